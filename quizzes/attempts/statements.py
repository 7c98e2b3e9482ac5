"""The statements of a student's attempts, in fixed SQL (``common.sql``): the attempt and its
answers, an answer's lock and graded INSERT, the start of an attempt, and the dashboard's
courses, quizzes and attempts. Each is the only production definition of its read or write.
"""

from functools import cache

from django.db import connection, transaction
from django.utils import timezone

from common.sql import (
    attnames,
    column,
    database,
    fetch_each,
    fetchall,
    for_update,
    in_one_message,
    insert,
    instance,
    one_message_transaction,
    select_list,
    table,
)
from quizzes.attempts.grading import AttemptScore
from quizzes.models import Answer, Attempt, Choice, Course, Enrollment, Question, Quiz

# Attempts and answers --------------------------------------------------------------------------

ATTEMPT_NAMES = attnames(Attempt)
ANSWER_NAMES = ("id", "question_id", "choice_id", "is_correct", "language", "answered_at")
ANSWER_ROW_NAMES = attnames(Answer)


@cache
def _attempt_sql(vendor: str) -> str:
    return (
        f"SELECT {select_list(Attempt, 'a', ATTEMPT_NAMES)} FROM {table(Attempt)} a "
        f"WHERE a.{column(Attempt, 'id')} = %s AND a.{column(Attempt, 'user_id')} = %s"
    )


def attempt_get(*, attempt_id: int, user_id: int) -> Attempt | None:
    """The attempt if it is this user's, else None."""
    rows = fetchall(_attempt_sql(connection.vendor), [attempt_id, user_id])
    return instance(Attempt, ATTEMPT_NAMES, rows[0]) if rows else None


@cache
def _attempt_answers_sql(vendor: str) -> str:
    return (
        f"SELECT {select_list(Attempt, 'a', ATTEMPT_NAMES)}, {select_list(Answer, 'r', ANSWER_NAMES)} "
        f"FROM {table(Attempt)} a "
        f"LEFT JOIN {table(Answer)} r ON r.{column(Answer, 'attempt_id')} = a.{column(Attempt, 'id')} "
        f"WHERE a.{column(Attempt, 'id')} = %s AND a.{column(Attempt, 'user_id')} = %s"
    )


def attempt_with_answers(*, attempt_id: int, user_id: int) -> tuple[Attempt, dict[int, Answer]] | None:
    """The attempt (if it is this user's) and its answers by question id, in one statement."""
    rows = fetchall(_attempt_answers_sql(connection.vendor), [attempt_id, user_id])
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
        f"SELECT {select_list(Attempt, 'a', ATTEMPT_NAMES)}, {select_list(Answer, 'r', ANSWER_ROW_NAMES)} "
        f"FROM {table(Answer)} r "
        f"JOIN {table(Attempt)} a ON a.{column(Attempt, 'id')} = r.{column(Answer, 'attempt_id')} "
        f"WHERE r.{column(Answer, 'attempt_id')} = %s AND a.{column(Attempt, 'user_id')} = %s "
        f"AND r.{column(Answer, 'question_id')} = %s"
    )


def recorded_answer(*, attempt_id: int, user_id: int, question_id: int) -> Answer | None:
    """The answer recorded to this question in this user's attempt, with its ``attempt``, or None.
    What a retry reads after its INSERT met the unique constraint."""
    rows = fetchall(_recorded_answer_sql(connection.vendor), [attempt_id, user_id, question_id])
    if not rows:
        return None
    width = len(ATTEMPT_NAMES)
    answer = instance(Answer, ANSWER_ROW_NAMES, rows[0][width:])
    answer.attempt = instance(Attempt, ATTEMPT_NAMES, rows[0][:width])
    return answer


@cache
def _lock_sql(vendor: str) -> str:
    # Only the attempt's row: nothing else is joined, so nothing else is locked.
    return (
        f"SELECT {select_list(Attempt, 'a', ATTEMPT_NAMES)} FROM {table(Attempt)} a "
        f"WHERE a.{column(Attempt, 'id')} = %s AND a.{column(Attempt, 'user_id')} = %s{for_update()}"
    )


@cache
def _answer_insert_sql(vendor: str, at_position: bool) -> str:
    # Each column of the new row: a parameter, or a value of the rows it is checked against.
    # The key is read by this statement, so it is the one committed before it started (after the lock).
    values = {
        "attempt_id": f"a.{column(Attempt, 'id')}",
        "question_id": f"c.{column(Choice, 'question_id')}",
        "choice_id": f"c.{column(Choice, 'id')}",
        "is_correct": f"c.{column(Choice, 'is_correct')}",
        "language": "%s",
        "answered_at": "%s",
    }
    position = f" AND q.{column(Question, 'position')} = %s" if at_position else ""
    return (
        f"INSERT INTO {table(Answer)} ({', '.join(column(Answer, name) for name in values)}) "
        f"SELECT {', '.join(values.values())} FROM {table(Choice)} c "
        f"JOIN {table(Question)} q ON q.{column(Question, 'id')} = c.{column(Choice, 'question_id')} "
        f"JOIN {table(Attempt)} a ON a.{column(Attempt, 'quiz_id')} = q.{column(Question, 'quiz_id')} "
        f"WHERE c.{column(Choice, 'id')} = %s AND c.{column(Choice, 'question_id')} = %s "
        f"AND c.{column(Choice, 'is_archived')} = %s AND q.{column(Question, 'is_archived')} = %s{position} "
        f"AND a.{column(Attempt, 'id')} = %s AND a.{column(Attempt, 'user_id')} = %s "
        f"AND a.{column(Attempt, 'state')} = %s "
        f"RETURNING {', '.join(column(Answer, name) for name in ANSWER_ROW_NAMES)}"
    )


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
    both travel in one message with BEGIN and COMMIT (``one_message_transaction``):
    the busiest write, in one round trip instead of four.
    """
    db = database()
    answered_at = db.ops.adapt_datetimefield_value(timezone.now())
    insert_params = [language, answered_at, choice_id, question_id, False, False]
    insert_params += [position] if position is not None else []
    insert_params += [attempt_id, user_id, Attempt.State.IN_PROGRESS.value]
    statements = [
        (_lock_sql(db.vendor), [attempt_id, user_id]),
        (_answer_insert_sql(db.vendor, position is not None), insert_params),
    ]
    if in_one_message(db):
        locked, inserted = one_message_transaction(statements)
    else:
        with transaction.atomic():
            locked, inserted = [fetchall(sql, params) for sql, params in statements]
    attempt = instance(Attempt, ATTEMPT_NAMES, locked[0]) if locked else None
    answer = instance(Answer, ANSWER_ROW_NAMES, inserted[0]) if inserted else None
    return attempt, answer


# The dashboard and the progress endpoint -------------------------------------------------------

COURSE_NAMES = attnames(Course)
QUIZ_NAMES = attnames(Quiz)
PROGRESS_NAMES = AttemptScore._fields  # ("id", "state", "score", "max_score", "pass_mark"): what grading reads


@cache
def _dashboard_sql(vendor: str) -> str:
    course_id, quiz_id = f"c.{column(Course, 'id')}", f"q.{column(Quiz, 'id')}"
    return (
        f"SELECT {select_list(Course, 'c', COURSE_NAMES)}, e.{column(Enrollment, 'id')}, "
        f"{select_list(Quiz, 'q', QUIZ_NAMES)}, {select_list(Attempt, 'a', PROGRESS_NAMES)} "
        f"FROM {table(Course)} c "
        f"LEFT JOIN {table(Enrollment)} e ON e.{column(Enrollment, 'course_id')} = {course_id} "
        f"AND e.{column(Enrollment, 'user_id')} = %s "
        f"LEFT JOIN {table(Quiz)} q ON q.{column(Quiz, 'course_id')} = {course_id} "
        f"AND e.{column(Enrollment, 'id')} IS NOT NULL AND q.{column(Quiz, 'is_published')} = %s "
        f"LEFT JOIN {table(Attempt)} a ON a.{column(Attempt, 'quiz_id')} = {quiz_id} "
        f"AND a.{column(Attempt, 'user_id')} = %s "
        f"WHERE e.{column(Enrollment, 'id')} IS NOT NULL OR c.{column(Course, 'allow_self_enrollment')} = %s "
        f"ORDER BY c.{column(Course, 'slug')}, q.{column(Quiz, 'position')}, q.{column(Quiz, 'slug')}, "
        f"a.{column(Attempt, 'id')}"
    )


def courses_of_student(user_id: int) -> tuple[list[Course], list[Course], list[tuple[Quiz, tuple | None]]]:
    """One statement for the dashboard and the progress endpoint.

    Returns the courses the user is enrolled in and those open to self-enrollment
    they have not joined, each by slug, and the published quizzes of the
    enrolled courses in order, each with one of the user's attempts (id,
    state, score, max_score, pass_mark) or None: a row per attempt.
    """
    course_width, quiz_width = len(COURSE_NAMES), len(QUIZ_NAMES)
    enrolled, joinable, quizzes = [], [], []
    seen: set[int] = set()
    for row in fetchall(_dashboard_sql(connection.vendor), [user_id, True, user_id, True]):
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
        f"SELECT {select_list(Quiz, 'q', QUIZ_NAMES)}, {select_list(Course, 'c', COURSE_NAMES)} "
        f"FROM {table(Quiz)} q JOIN {table(Course)} c ON c.{column(Course, 'id')} = q.{column(Quiz, 'course_id')} "
        f"WHERE q.{column(Quiz, 'slug')} = %s AND q.{column(Quiz, 'is_published')} = %s"
    )


def published_quiz(slug: str) -> Quiz | None:
    """The published quiz with this slug, its course attached, or None."""
    return _published_quiz_of(fetchall(_published_quiz_sql(connection.vendor), [slug, True]))


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
        f"SELECT 1 FROM {table(Enrollment)} e "
        f"JOIN {table(Quiz)} q ON q.{column(Quiz, 'course_id')} = e.{column(Enrollment, 'course_id')} "
        f"WHERE e.{column(Enrollment, 'user_id')} = %s AND q.{column(Quiz, 'slug')} = %s"
    )


@cache
def _attempts_by_slug_sql(vendor: str) -> str:
    return (
        f"SELECT {select_list(Attempt, 'a', ATTEMPT_NAMES)} FROM {table(Attempt)} a "
        f"JOIN {table(Quiz)} q ON q.{column(Quiz, 'id')} = a.{column(Attempt, 'quiz_id')} "
        f"WHERE a.{column(Attempt, 'user_id')} = %s AND q.{column(Quiz, 'slug')} = %s "
        f"ORDER BY a.{column(Attempt, 'number')} DESC"
    )


def published_quiz_for_student(*, slug: str, user_id: int) -> tuple[Quiz | None, bool, list[Attempt]]:
    """In one round trip: the published quiz with this slug (its course attached) or None,
    whether the user is enrolled in its course, and the user's attempts at it, newest first."""
    vendor = database().vendor
    found, enrolled, attempts = fetch_each(
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
        f"SELECT {select_list(Attempt, 'a', ATTEMPT_NAMES)} FROM {table(Attempt)} a "
        f"WHERE a.{column(Attempt, 'user_id')} = %s AND a.{column(Attempt, 'quiz_id')} = %s "
        f"ORDER BY a.{column(Attempt, 'number')} DESC"
    )


@cache
def _enrollment_lock_sql(vendor: str) -> str:
    # Only the enrollment's row: nothing is joined, so the course is not locked with it.
    return (
        f"SELECT {column(Enrollment, 'id')} FROM {table(Enrollment)} "
        f"WHERE {column(Enrollment, 'user_id')} = %s AND {column(Enrollment, 'course_id')} = %s{for_update()}"
    )


def start_reads(*, user_id: int, course_id: int, quiz_id: int) -> tuple[bool, list[Attempt], int]:
    """What starting an attempt reads, in one round trip, in the caller's transaction: lock
    the user's enrollment in the course until the transaction ends (False if there is none),
    then, read after the lock, the user's attempts at the quiz (newest first) and the number
    of the quiz's open questions."""
    vendor = database().vendor
    locked, attempts, counted = fetch_each(
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
        f"SELECT COUNT(*) FROM {table(Question)} WHERE {column(Question, 'quiz_id')} = %s "
        f"AND {column(Question, 'is_archived')} = %s"
    )


def attempt_insert(*, user_id: int, quiz_id: int, number: int, max_score: int, pass_mark: int) -> Attempt | None:
    """INSERT a new attempt in progress (``started_at`` set here, as auto_now_add would) and
    return it; None, with nothing written, when a unique constraint refuses it (a second
    attempt in progress, a taken number): no savepoint is needed around it in a transaction."""
    attempt = insert(
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
