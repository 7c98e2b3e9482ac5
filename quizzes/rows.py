"""The statements every student request runs, written once in SQL.

Each student request runs the same few reads and writes: who the user is, the
attempt and its answers, an answer's lock (of the owner's attempt) and its
INSERT graded by the choice's key. Built by the ORM, each of these costs 0.3 to
1.3 ms of Python (building and compiling the query) against about 0.1 ms to
send it and read the row, and at a few per request that was most of a page's
cost (issue 7, ``make bench``). Here each is a fixed SQL string, built once from
the models' table and column names, and rows become model instances through
``Model.from_db`` with the same converters the ORM applies, so callers get
exactly what the equivalent queryset returns.

On PostgreSQL each statement is also prepared once per connection (``_send``):
planning the answer's INSERT ... SELECT cost PostgreSQL as much as running it.

Only these hot paths live here; everything else uses the ORM.
"""

import hashlib
import weakref
from datetime import datetime
from functools import cache

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import DEFAULT_DB_ALIAS, Error, connection, connections, transaction
from django.db.models.expressions import Col
from django.utils import timezone

from quizzes.models import Answer, Attempt, Choice, Course, Enrollment, Question, Quiz


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _field(model, attname: str):
    return next(field for field in model._meta.concrete_fields if field.attname == attname)


def _column(model, attname: str) -> str:
    """The quoted column of a field, by its attribute name (``quiz_id``, ``state``)."""
    return connection.ops.quote_name(_field(model, attname).column)


def _attnames(model) -> tuple[str, ...]:
    return tuple(field.attname for field in model._meta.concrete_fields)


def _select_list(model, alias: str, names: tuple[str, ...]) -> str:
    return ", ".join(f"{alias}.{_column(model, name)}" for name in names)


@cache
def _converters(model, names: tuple[str, ...], vendor: str):
    """For each column needing one, the converters the ORM would apply (SQLite datetimes, booleans)."""
    found = []
    for index, name in enumerate(names):
        field = _field(model, name)
        expression = Col(model._meta.db_table, field)
        converters = connection.ops.get_db_converters(expression) + field.get_db_converters(connection)
        if converters:
            found.append((index, converters, expression))
    return tuple(found)


@cache
def _concrete_order(model, names: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
    """``Model.from_db`` takes values in the order of the model's fields: the names in that
    order and where each one's value is in ``names``, or None when ``names`` are in order."""
    ordered = tuple(field.attname for field in model._meta.concrete_fields if field.attname in names)
    if ordered == names:
        return None
    return ordered, tuple(names.index(name) for name in ordered)


def _db():
    """The database connection of this thread. ``connection`` is a proxy that finds it again on
    each attribute read (a thread- and task-local lookup): the hot functions below read it once."""
    return connections[DEFAULT_DB_ALIAS]


def instance(model, names: tuple[str, ...], values):
    """A model instance from one row of ``names`` columns, as the ORM would build it."""
    db = _db()
    converters = _converters(model, names, db.vendor)
    if converters:
        values = list(values)
        for index, functions, expression in converters:
            for function in functions:
                values[index] = function(values[index], expression, db)
    return _build(model, names, values)


def _build(model, names: tuple[str, ...], values):
    """``Model.from_db`` for Python values (already converted) named by ``names``."""
    order = _concrete_order(model, names)
    if order is not None:
        names, positions = order
        values = [values[position] for position in positions]
    return model.from_db(DEFAULT_DB_ALIAS, list(names), list(values))


def _fetchall(sql: str, params) -> list[tuple]:
    return _send([(sql, params)])[0]


def _fetch_each(statements: list[tuple[str, list]]) -> list[list[tuple]]:
    """Each statement's rows: in one message (one round trip) where the connection takes several
    statements in one (``_many_per_message``), else one by one. In order: each one reads what
    the ones before it did, and, in a transaction, after the locks they took."""
    if _many_per_message(_db()):
        return _send(statements)
    return [_fetchall(sql, params) for sql, params in statements]


def _many_per_message(db) -> bool:
    """Whether one message may hold several statements: PostgreSQL with client-side binding
    (Django's default). Not SQLite (its driver runs one statement per call), nor server-side
    binding (a prepared statement holds one command)."""
    return db.vendor == "postgresql" and not db.settings_dict["OPTIONS"].get("server_side_binding")


# Sending statements ----------------------------------------------------------------------------

# Per PostgreSQL connection (psycopg's), the statements prepared on it; None when that is not
# known (after an error), and the next message starts with DEALLOCATE ALL.
_prepared_on: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _prepares(db) -> bool:
    """Whether statements are prepared: where a message may hold several statements
    (``_many_per_message``: the PREPARE travels with the first EXECUTE; with server-side
    binding psycopg prepares by itself), unless turned off in the settings
    (``QUIZZES_PREPARED_STATEMENTS``: off behind a pooler in transaction mode)."""
    return _many_per_message(db) and settings.QUIZZES_PREPARED_STATEMENTS


@cache
def _prepared_form(sql: str) -> tuple[str, str, str]:
    """``sql`` as a prepared statement: its name, its PREPARE (parameters numbered $1, $2...),
    and the EXECUTE that runs it with the same %s parameters."""
    name = "quizzes_" + hashlib.sha1(sql.encode()).hexdigest()[:16]
    parts = sql.split("%s")
    numbered = parts[0] + "".join(f"${index}{part}" for index, part in enumerate(parts[1:], 1))
    arguments = f"({', '.join(['%s'] * (len(parts) - 1))})" if len(parts) > 1 else ""
    return name, f"PREPARE {name} AS {numbered}", f"EXECUTE {name}{arguments}"


def _send(statements: list[tuple[str, list]], *, in_transaction: bool = False) -> list[list[tuple]]:
    """Send ``statements`` to the database in one message and return each one's rows
    (``_send_once``); the first reads of a request are their own connection check.

    With ``conn_health_checks``, Django checks a persistent connection before a request's
    first statement with a ``SELECT 1``: a round trip of its own, as much as a statement.
    Here a request's first statements, when they only read, are sent at once instead: if
    the connection turns out to be lost (the server restarted, the backend was killed while
    idle), it is closed and they are sent again on a new one, as the check would have done.
    Reading twice changes nothing; a transaction (an answer) is never sent twice, so a
    request whose first statement writes gets Django's check before it.
    """
    db = _db()
    if in_transaction or not _checks_itself(db):
        return _send_once(db, statements, in_transaction=in_transaction)
    db.health_check_done = True  # the statements below are the check
    try:
        return _send_once(db, statements)
    except Error:
        if db.is_usable():
            raise  # the statements failed, not the connection
    db.close()
    return _send_once(db, statements)


def _checks_itself(db) -> bool:
    """Whether the next statement would come after Django's health check of a persistent
    connection (outside a transaction: a connection lost in one cannot be replaced)."""
    return db.connection is not None and db.health_check_enabled and not db.health_check_done and not db.in_atomic_block


def _send_once(db, statements: list[tuple[str, list]], *, in_transaction: bool = False) -> list[list[tuple]]:
    """Send ``statements`` to the database in one message and return each one's rows;
    ``in_transaction``: as one transaction, ``BEGIN; ...; COMMIT`` (PostgreSQL only, outside
    any transaction: ``_one_message_transaction``).

    On PostgreSQL each statement travels as the EXECUTE of a statement prepared on this
    connection, its PREPARE sent in the same message the first time: PostgreSQL then parses
    and plans it once per connection instead of once per request (pgbench: the answer's
    transaction at twice the rate). Prepared statements outlive a rolled-back transaction;
    after any error this connection's are dropped (DEALLOCATE ALL) and prepared again, so
    that what is known of them is never wrong.
    """
    with db.cursor() as cursor:
        raw = db.connection if _prepares(db) else None
        setup, new = _preparations(raw, statements) if raw is not None else ([], set())
        head = ["BEGIN", *setup] if in_transaction else setup
        body = [_prepared_form(sql)[2] if raw is not None else sql for sql, _params in statements]
        tail = ["COMMIT"] if in_transaction else []
        params = [param for _sql, statement_params in statements for param in statement_params]
        try:
            cursor.execute("; ".join([*head, *body, *tail]), params)
        except Exception:
            if raw is not None:
                _prepared_on[raw] = None  # not known any more: DEALLOCATE ALL in the next message
            if in_transaction and _in_transaction_block(db):
                cursor.execute("ROLLBACK")
            raise
        if raw is not None:
            _prepared_on[raw] |= new
        for _result in head:  # past BEGIN, DEALLOCATE and the PREPAREs
            cursor.nextset()
        found = []
        for index in range(len(statements)):
            if index:
                cursor.nextset()
            found.append(cursor.fetchall())
    return found


def _preparations(raw, statements: list[tuple[str, list]]) -> tuple[list[str], set[str]]:
    """What must come before ``statements`` on this (psycopg) connection: DEALLOCATE ALL when
    what is prepared on it is not known, and the PREPARE of each statement not prepared yet.
    Returns those texts and the names they prepare (known once the message has run)."""
    texts = []
    if _prepared_on.get(raw) is None:
        if raw in _prepared_on:
            texts.append("DEALLOCATE ALL")
        _prepared_on[raw] = set()
    prepares = {}  # name -> PREPARE, once each, in order
    for sql, _params in statements:
        name, prepare, _execute = _prepared_form(sql)
        if name not in _prepared_on[raw]:
            prepares.setdefault(name, prepare)
    return [*texts, *prepares.values()], set(prepares)


def _in_transaction_block(db) -> bool:
    from psycopg.pq import TransactionStatus

    return db.connection.info.transaction_status in (TransactionStatus.INTRANS, TransactionStatus.INERROR)


# Users -----------------------------------------------------------------------------------------


@cache
def _user_sql(vendor: str) -> tuple[str, tuple[str, ...]]:
    User = get_user_model()
    names = _attnames(User)
    return f"SELECT {_select_list(User, 't', names)} FROM {_table(User)} t WHERE t.{_column(User, 'id')} = %s", names


def user_get(user_id):
    """The user with this primary key, or None (what ModelBackend.get_user reads)."""
    sql, names = _user_sql(connection.vendor)
    rows = _fetchall(sql, [user_id])
    return instance(get_user_model(), names, rows[0]) if rows else None


@cache
def _token_sql(vendor: str) -> tuple[str, tuple[str, ...]]:
    from rest_framework.authtoken.models import Token

    User = get_user_model()
    names = _attnames(User)
    sql = (
        f"SELECT {_select_list(User, 'u', names)} FROM {_table(Token)} t "
        f"JOIN {_table(User)} u ON u.{_column(User, 'id')} = t.{_column(Token, 'user_id')} "
        f"WHERE t.{_column(Token, 'key')} = %s"
    )
    return sql, names


def token_user_get(key: str):
    """The user an API token belongs to, or None."""
    sql, names = _token_sql(connection.vendor)
    rows = _fetchall(sql, [key])
    return instance(get_user_model(), names, rows[0]) if rows else None


# Attempts and answers --------------------------------------------------------------------------

ATTEMPT_NAMES = _attnames(Attempt)
ANSWER_NAMES = ("id", "question_id", "choice_id", "is_correct", "language", "answered_at")
ANSWER_ROW_NAMES = _attnames(Answer)


@cache
def _attempt_sql(vendor: str) -> str:
    return (
        f"SELECT {_select_list(Attempt, 'a', ATTEMPT_NAMES)} FROM {_table(Attempt)} a "
        f"WHERE a.{_column(Attempt, 'id')} = %s AND a.{_column(Attempt, 'user_id')} = %s"
    )


def attempt_get(*, attempt_id: int, user_id: int) -> Attempt | None:
    """The attempt if it is this user's, else None."""
    rows = _fetchall(_attempt_sql(connection.vendor), [attempt_id, user_id])
    return instance(Attempt, ATTEMPT_NAMES, rows[0]) if rows else None


@cache
def _attempt_answers_sql(vendor: str) -> str:
    return (
        f"SELECT {_select_list(Attempt, 'a', ATTEMPT_NAMES)}, {_select_list(Answer, 'r', ANSWER_NAMES)} "
        f"FROM {_table(Attempt)} a "
        f"LEFT JOIN {_table(Answer)} r ON r.{_column(Answer, 'attempt_id')} = a.{_column(Attempt, 'id')} "
        f"WHERE a.{_column(Attempt, 'id')} = %s AND a.{_column(Attempt, 'user_id')} = %s"
    )


def attempt_with_answers(*, attempt_id: int, user_id: int) -> tuple[Attempt, dict[int, Answer]] | None:
    """The attempt (if it is this user's) and its answers by question id, in one statement."""
    rows = _fetchall(_attempt_answers_sql(connection.vendor), [attempt_id, user_id])
    if not rows:
        return None
    width = len(ATTEMPT_NAMES)
    attempt = instance(Attempt, ATTEMPT_NAMES, rows[0][:width])
    answers = {}
    for row in rows:
        if row[width] is None:
            continue
        answer = instance(Answer, ("attempt_id", *ANSWER_NAMES), (attempt.pk, *row[width:]))
        answer.attempt = attempt
        answers[answer.question_id] = answer
    return attempt, answers


@cache
def _recorded_answer_sql(vendor: str) -> str:
    return (
        f"SELECT {_select_list(Attempt, 'a', ATTEMPT_NAMES)}, {_select_list(Answer, 'r', ANSWER_ROW_NAMES)} "
        f"FROM {_table(Answer)} r "
        f"JOIN {_table(Attempt)} a ON a.{_column(Attempt, 'id')} = r.{_column(Answer, 'attempt_id')} "
        f"WHERE r.{_column(Answer, 'attempt_id')} = %s AND a.{_column(Attempt, 'user_id')} = %s "
        f"AND r.{_column(Answer, 'question_id')} = %s"
    )


def recorded_answer(*, attempt_id: int, user_id: int, question_id: int) -> Answer | None:
    """The answer recorded to this question in this user's attempt, with its ``attempt``, or None.
    What a retry reads after its INSERT met the unique constraint."""
    rows = _fetchall(_recorded_answer_sql(connection.vendor), [attempt_id, user_id, question_id])
    if not rows:
        return None
    width = len(ATTEMPT_NAMES)
    answer = instance(Answer, ANSWER_ROW_NAMES, rows[0][width:])
    answer.attempt = instance(Attempt, ATTEMPT_NAMES, rows[0][:width])
    return answer


def _for_update() -> str:
    """Row locks where the database has them (not SQLite, where a write locks the whole file)."""
    return " FOR UPDATE" if connection.features.has_select_for_update else ""


@cache
def _lock_sql(vendor: str) -> str:
    # Only the attempt's row: nothing else is joined, so nothing else is locked.
    return (
        f"SELECT {_select_list(Attempt, 'a', ATTEMPT_NAMES)} FROM {_table(Attempt)} a "
        f"WHERE a.{_column(Attempt, 'id')} = %s AND a.{_column(Attempt, 'user_id')} = %s{_for_update()}"
    )


@cache
def _answer_insert_sql(vendor: str, at_position: bool) -> str:
    # Each column of the new row: a parameter, or a value of the rows it is checked against.
    # The key is read by this statement, so it is the one committed before it started (after the lock).
    values = {
        "attempt_id": f"a.{_column(Attempt, 'id')}",
        "question_id": f"c.{_column(Choice, 'question_id')}",
        "choice_id": f"c.{_column(Choice, 'id')}",
        "is_correct": f"c.{_column(Choice, 'is_correct')}",
        "language": "%s",
        "answered_at": "%s",
    }
    position = f" AND q.{_column(Question, 'position')} = %s" if at_position else ""
    return (
        f"INSERT INTO {_table(Answer)} ({', '.join(_column(Answer, name) for name in values)}) "
        f"SELECT {', '.join(values.values())} FROM {_table(Choice)} c "
        f"JOIN {_table(Question)} q ON q.{_column(Question, 'id')} = c.{_column(Choice, 'question_id')} "
        f"JOIN {_table(Attempt)} a ON a.{_column(Attempt, 'quiz_id')} = q.{_column(Question, 'quiz_id')} "
        f"WHERE c.{_column(Choice, 'id')} = %s AND c.{_column(Choice, 'question_id')} = %s "
        f"AND c.{_column(Choice, 'is_archived')} = %s AND q.{_column(Question, 'is_archived')} = %s{position} "
        f"AND a.{_column(Attempt, 'id')} = %s AND a.{_column(Attempt, 'user_id')} = %s "
        f"AND a.{_column(Attempt, 'state')} = %s "
        f"RETURNING {', '.join(_column(Answer, name) for name in ANSWER_ROW_NAMES)}"
    )


def _in_one_message(db) -> bool:
    """Whether a transaction can travel as one message (``_many_per_message``), outside any
    transaction."""
    return _many_per_message(db) and not db.in_atomic_block


def _one_message_transaction(statements: list[tuple[str, list]]) -> list[list[tuple]]:
    """Run ``statements`` as one transaction sent in one message (``BEGIN; ...; COMMIT``): one
    round trip instead of one per statement and two for BEGIN and COMMIT. Returns each one's rows.

    Each statement still reads what was committed when it started (READ COMMITTED takes a
    snapshot per statement, in one message too). When one fails, PostgreSQL skips the rest,
    COMMIT included: the transaction is rolled back here before the error is raised, so the
    connection is always left outside a transaction, as Django expects in autocommit mode.
    """
    return _send(statements, in_transaction=True)


def answer_write(
    *, attempt_id: int, user_id: int, question_id: int, choice_id: int, language: str, position: int | None
) -> tuple[Attempt | None, Answer | None]:
    """Lock the attempt and INSERT the answer graded with the choice's key, in one transaction.

    Returns the attempt as locked (None if it is not this user's) and the new
    answer, or None when nothing was inserted: the attempt is not in progress,
    or the choice is not an open choice of an open question of the attempt's
    quiz (at ``position``, when given). Whether the answer may be recorded is
    decided here, by the database, as committed; the caller explains a refusal.
    A second answer to the question raises IntegrityError (the unique
    constraint), with nothing written.

    The INSERT is a statement after the lock, so its key is the one committed
    by a regrade the lock waited for. On PostgreSQL, outside any transaction,
    both travel in one message with BEGIN and COMMIT (``_one_message_transaction``):
    the busiest write, in one round trip instead of four.
    """
    db = _db()
    answered_at = db.ops.adapt_datetimefield_value(timezone.now())
    insert_params = [language, answered_at, choice_id, question_id, False, False]
    insert_params += [position] if position is not None else []
    insert_params += [attempt_id, user_id, Attempt.State.IN_PROGRESS.value]
    statements = [
        (_lock_sql(db.vendor), [attempt_id, user_id]),
        (_answer_insert_sql(db.vendor, position is not None), insert_params),
    ]
    if _in_one_message(db):
        locked, inserted = _one_message_transaction(statements)
    else:
        with transaction.atomic():
            locked, inserted = [_fetchall(sql, params) for sql, params in statements]
    attempt = instance(Attempt, ATTEMPT_NAMES, locked[0]) if locked else None
    answer = instance(Answer, ANSWER_ROW_NAMES, inserted[0]) if inserted else None
    return attempt, answer


@cache
def _insert_sql(model, names: tuple[str, ...], vendor: str, conflict: str) -> str:
    columns = ", ".join(_column(model, name) for name in names)
    placeholders = ", ".join(["%s"] * len(names))
    on_conflict = " ON CONFLICT DO NOTHING" if conflict == "ignore" else ""
    return (
        f"INSERT INTO {_table(model)} ({columns}) VALUES ({placeholders}){on_conflict} RETURNING {_column(model, 'id')}"
    )


def _insert(model, values: dict, *, conflict: str = "raise"):
    """INSERT one row of ``values`` (by attribute name) and return it as an instance.

    Datetimes are adapted as the ORM adapts them (SQLite stores them as text). A row a unique
    constraint refuses raises IntegrityError, or, with ``conflict="ignore"``, is not written
    and None is returned.
    """
    names = tuple(values)
    params = [
        connection.ops.adapt_datetimefield_value(value) if isinstance(value, datetime) else value
        for value in values.values()
    ]
    found = _fetchall(_insert_sql(model, names, _db().vendor, conflict), params)
    if not found:
        return None
    return _build(model, ("id", *names), (found[0][0], *values.values()))


# The dashboard and the progress endpoint -------------------------------------------------------

COURSE_NAMES = _attnames(Course)
QUIZ_NAMES = _attnames(Quiz)
PROGRESS_NAMES = ("id", "state", "score", "max_score", "pass_mark")


@cache
def _dashboard_sql(vendor: str) -> str:
    course_id, quiz_id = f"c.{_column(Course, 'id')}", f"q.{_column(Quiz, 'id')}"
    return (
        f"SELECT {_select_list(Course, 'c', COURSE_NAMES)}, e.{_column(Enrollment, 'id')}, "
        f"{_select_list(Quiz, 'q', QUIZ_NAMES)}, {_select_list(Attempt, 'a', PROGRESS_NAMES)} "
        f"FROM {_table(Course)} c "
        f"LEFT JOIN {_table(Enrollment)} e ON e.{_column(Enrollment, 'course_id')} = {course_id} "
        f"AND e.{_column(Enrollment, 'user_id')} = %s "
        f"LEFT JOIN {_table(Quiz)} q ON q.{_column(Quiz, 'course_id')} = {course_id} "
        f"AND e.{_column(Enrollment, 'id')} IS NOT NULL AND q.{_column(Quiz, 'is_published')} = %s "
        f"LEFT JOIN {_table(Attempt)} a ON a.{_column(Attempt, 'quiz_id')} = {quiz_id} "
        f"AND a.{_column(Attempt, 'user_id')} = %s "
        f"WHERE e.{_column(Enrollment, 'id')} IS NOT NULL OR c.{_column(Course, 'allow_self_enrollment')} = %s "
        f"ORDER BY c.{_column(Course, 'slug')}, q.{_column(Quiz, 'position')}, q.{_column(Quiz, 'slug')}, "
        f"a.{_column(Attempt, 'id')}"
    )


def courses_of_student(user_id: int) -> tuple[list[Course], list[Course], list[tuple[Quiz, tuple | None]]]:
    """One statement for the dashboard and the progress endpoint.

    Returns the courses the user is enrolled in and those open to self-enrolment
    they have not joined, each by slug, and the published quizzes of the
    enrolled courses in order, each with one of the user's attempts (id,
    state, score, max_score, pass_mark) or None: a row per attempt.
    """
    course_width, quiz_width = len(COURSE_NAMES), len(QUIZ_NAMES)
    enrolled, joinable, quizzes = [], [], []
    seen: set[int] = set()
    for row in _fetchall(_dashboard_sql(connection.vendor), [user_id, True, user_id, True]):
        course_row, enrollment_id, rest = row[:course_width], row[course_width], row[course_width + 1 :]
        if course_row[0] not in seen:
            seen.add(course_row[0])
            (enrolled if enrollment_id is not None else joinable).append(instance(Course, COURSE_NAMES, course_row))
        if rest[0] is not None:
            attempt = rest[quiz_width:] if rest[quiz_width] is not None else None
            quizzes.append((instance(Quiz, QUIZ_NAMES, rest[:quiz_width]), attempt))
    return enrolled, joinable, quizzes


# Arriving at a quiz: reading it and starting an attempt ----------------------------------------


@cache
def _published_quiz_sql(vendor: str) -> str:
    return (
        f"SELECT {_select_list(Quiz, 'q', QUIZ_NAMES)}, {_select_list(Course, 'c', COURSE_NAMES)} "
        f"FROM {_table(Quiz)} q JOIN {_table(Course)} c ON c.{_column(Course, 'id')} = q.{_column(Quiz, 'course_id')} "
        f"WHERE q.{_column(Quiz, 'slug')} = %s AND q.{_column(Quiz, 'is_published')} = %s"
    )


def published_quiz(slug: str) -> Quiz | None:
    """The published quiz with this slug, its course attached, or None."""
    return _published_quiz_of(_fetchall(_published_quiz_sql(connection.vendor), [slug, True]))


def _published_quiz_of(found: list[tuple]) -> Quiz | None:
    if not found:
        return None
    width = len(QUIZ_NAMES)
    quiz = instance(Quiz, QUIZ_NAMES, found[0][:width])
    quiz.course = instance(Course, COURSE_NAMES, found[0][width:])
    return quiz


@cache
def _enrolled_by_slug_sql(vendor: str) -> str:
    return (
        f"SELECT 1 FROM {_table(Enrollment)} e "
        f"JOIN {_table(Quiz)} q ON q.{_column(Quiz, 'course_id')} = e.{_column(Enrollment, 'course_id')} "
        f"WHERE e.{_column(Enrollment, 'user_id')} = %s AND q.{_column(Quiz, 'slug')} = %s"
    )


@cache
def _attempts_by_slug_sql(vendor: str) -> str:
    return (
        f"SELECT {_select_list(Attempt, 'a', ATTEMPT_NAMES)} FROM {_table(Attempt)} a "
        f"JOIN {_table(Quiz)} q ON q.{_column(Quiz, 'id')} = a.{_column(Attempt, 'quiz_id')} "
        f"WHERE a.{_column(Attempt, 'user_id')} = %s AND q.{_column(Quiz, 'slug')} = %s "
        f"ORDER BY a.{_column(Attempt, 'number')} DESC"
    )


def published_quiz_for_student(*, slug: str, user_id: int) -> tuple[Quiz | None, bool, list[Attempt]]:
    """In one round trip: the published quiz with this slug (its course attached) or None,
    whether the user is enrolled in its course, and the user's attempts at it, newest first."""
    vendor = _db().vendor
    found, enrolled, attempts = _fetch_each(
        [
            (_published_quiz_sql(vendor), [slug, True]),
            (_enrolled_by_slug_sql(vendor), [user_id, slug]),
            (_attempts_by_slug_sql(vendor), [user_id, slug]),
        ]
    )
    quiz = _published_quiz_of(found)
    if quiz is None:
        return None, False, []
    return quiz, bool(enrolled), [instance(Attempt, ATTEMPT_NAMES, row) for row in attempts]


@cache
def _student_attempts_sql(vendor: str) -> str:
    return (
        f"SELECT {_select_list(Attempt, 'a', ATTEMPT_NAMES)} FROM {_table(Attempt)} a "
        f"WHERE a.{_column(Attempt, 'user_id')} = %s AND a.{_column(Attempt, 'quiz_id')} = %s "
        f"ORDER BY a.{_column(Attempt, 'number')} DESC"
    )


@cache
def _enrollment_lock_sql(vendor: str) -> str:
    # Only the enrolment's row: nothing is joined, so the course is not locked with it.
    return (
        f"SELECT {_column(Enrollment, 'id')} FROM {_table(Enrollment)} "
        f"WHERE {_column(Enrollment, 'user_id')} = %s AND {_column(Enrollment, 'course_id')} = %s{_for_update()}"
    )


def start_reads(*, user_id: int, course_id: int, quiz_id: int) -> tuple[bool, list[Attempt], int]:
    """What starting an attempt reads, in one round trip, in the caller's transaction: lock
    the user's enrolment in the course until the transaction ends (False if there is none),
    then, read after the lock, the user's attempts at the quiz (newest first) and the number
    of the quiz's open questions."""
    vendor = _db().vendor
    locked, attempts, counted = _fetch_each(
        [
            (_enrollment_lock_sql(vendor), [user_id, course_id]),
            (_student_attempts_sql(vendor), [user_id, quiz_id]),
            (_open_questions_sql(vendor), [quiz_id, False]),
        ]
    )
    return bool(locked), [instance(Attempt, ATTEMPT_NAMES, row) for row in attempts], counted[0][0]


@cache
def _open_questions_sql(vendor: str) -> str:
    return (
        f"SELECT COUNT(*) FROM {_table(Question)} WHERE {_column(Question, 'quiz_id')} = %s "
        f"AND {_column(Question, 'is_archived')} = %s"
    )


def attempt_insert(*, user_id: int, quiz_id: int, number: int, max_score: int, pass_mark: int) -> Attempt | None:
    """INSERT a new attempt in progress (``started_at`` set here, as auto_now_add would) and
    return it; None, with nothing written, when a unique constraint refuses it (a second
    attempt in progress, a taken number): no savepoint is needed around it in a transaction."""
    attempt = _insert(
        Attempt,
        {
            "user_id": user_id,
            "quiz_id": quiz_id,
            "number": number,
            "state": Attempt.State.IN_PROGRESS.value,
            "started_at": timezone.now(),
            "max_score": max_score,
            "pass_mark": pass_mark,
        },
        conflict="ignore",
    )
    if attempt is not None:
        attempt.finished_at = attempt.score = None
    return attempt
