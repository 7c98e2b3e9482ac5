"""quizzes/attempts/queries.py: the hot statements in SQL give exactly what the ORM gives.

Each function is compared field by field with the equivalent queryset, on
SQLite and PostgreSQL (their converters differ: SQLite returns datetimes as
text and booleans as integers).
"""

from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.db import DataError, IntegrityError, close_old_connections, connection, connections, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.authtoken.models import Token

from common import pooler, sql
from quizzes.accounts import queries as account_queries
from quizzes.attempts import queries, start_queries
from quizzes.attempts.layout import Slot
from quizzes.attempts.services import attempt_answer_submit, attempt_finish, attempt_start
from quizzes.models import (
    Answer,
    Attempt,
    AttemptQuestion,
    Choice,
    Course,
    CourseGroup,
    PoolDraw,
    Question,
    Quiz,
    QuizOverride,
)
from tests.factories import current_version

GC = "gradient-checkpointing"
PROJECT_DIR = Path(__file__).resolve().parent.parent.parent


def fields(instance) -> dict:
    return {field.attname: getattr(instance, field.attname) for field in type(instance)._meta.concrete_fields}


@pytest.fixture
def quiz(content) -> Quiz:
    return content[GC]


@pytest.fixture
def answered(student, quiz):
    """A finished attempt with two answers, and one in progress with one answer."""
    first, _ = attempt_start(user=student, quiz=quiz)
    for position in (1, 2):
        question = quiz.questions.get(position=position)
        choice = question.choices.order_by("-is_correct", "position")[position - 1]
        attempt_answer_submit(
            user=student, attempt_id=first.pk, question_id=question.pk, choice_id=choice.pk, language="ur"
        )
    attempt_finish(attempt=first)
    second, _ = attempt_start(user=student, quiz=quiz)
    question = quiz.questions.get(position=1)
    attempt_answer_submit(
        user=student,
        attempt_id=second.pk,
        question_id=question.pk,
        choice_id=question.choices.first().pk,
        language="sn",
    )
    return first, second


def test_user_and_token_user_are_the_orm_rows(student):
    token = Token.objects.create(user=student)
    expected = fields(get_user_model().objects.get(pk=student.pk))
    assert fields(account_queries.user_get(student.pk)) == expected
    assert fields(account_queries.token_user_get(token.key)) == expected
    assert account_queries.user_get(10**9) is None
    assert account_queries.token_user_get("no-such-token") is None


def test_attempt_with_answers_is_the_orm_rows(student, answered):
    first, second = answered
    for attempt in (first, second):
        found, layout, answers = queries.attempt_with_answers(attempt_id=attempt.pk, user_id=student.pk)
        assert fields(found) == fields(Attempt.objects.get(pk=attempt.pk))
        rows = AttemptQuestion.objects.filter(attempt=attempt).select_related("version").order_by("position")
        assert [fields(slot) for slot in layout] == [fields(slot) for slot in rows]
        assert [slot.version_token for slot in layout] == [slot.version.token for slot in rows]
        expected = {answer.question_id: fields(answer) for answer in Answer.objects.filter(attempt=attempt)}
        assert {question_id: fields(answer) for question_id, answer in answers.items()} == expected
        assert all(answer.attempt is found for answer in answers.values())
        assert fields(queries.attempt_get(attempt_id=attempt.pk, user_id=student.pk)) == fields(found)
    assert queries.attempt_with_answers(attempt_id=first.pk, user_id=student.pk + 1) is None
    assert queries.attempt_get(attempt_id=first.pk, user_id=student.pk + 1) is None


def test_recorded_answer_is_the_orm_row_with_its_attempt(student, other_student, answered):
    first, second = answered
    for attempt in (first, second):
        for answer in Answer.objects.filter(attempt=attempt):
            found = queries.recorded_answer(attempt_id=attempt.pk, user_id=student.pk, question_id=answer.question_id)
            assert fields(found) == fields(answer)
            assert fields(found.attempt) == fields(Attempt.objects.get(pk=attempt.pk))
    question_id = Answer.objects.filter(attempt=second).get().question_id
    assert queries.recorded_answer(attempt_id=second.pk, user_id=other_student.pk, question_id=question_id) is None
    unanswered = second.quiz.questions.exclude(pk=question_id).first()
    assert queries.recorded_answer(attempt_id=second.pk, user_id=student.pk, question_id=unanswered.pk) is None


def test_published_quiz_for_student_is_the_orm_rows(student, outsider, other_student, quiz, answered):
    attempt_start(user=other_student, quiz=quiz)  # someone else's attempt: not theirs
    group = CourseGroup.objects.create(course=quiz.course, name="extra time")
    group.members.add(student)
    own = QuizOverride.objects.create(quiz=quiz, user=student, max_attempts=5)
    theirs = QuizOverride.objects.create(quiz=quiz, group=group, time_limit=timedelta(minutes=30))
    QuizOverride.objects.create(quiz=quiz, user=other_student, max_attempts=9)  # someone else's
    found, enrolled, attempts, overrides = start_queries.published_quiz_for_student(slug=GC, user_id=student.pk)
    assert fields(found) == fields(quiz) and fields(found.course) == fields(Course.objects.get(pk=quiz.course_id))
    expected = Attempt.objects.filter(user=student, quiz=quiz).order_by("-number")
    assert enrolled is True and [fields(attempt) for attempt in attempts] == [fields(a) for a in expected]
    assert [fields(override) for override in overrides] == [fields(own), fields(theirs)]
    assert [fields(o) for o in overrides] == [
        fields(o) for o in start_queries.student_overrides(user_id=student.pk, quiz_id=quiz.pk)
    ]
    assert start_queries.published_quiz_for_student(slug=GC, user_id=outsider.pk)[1:] == (False, [], [])
    Quiz.objects.filter(pk=quiz.pk).update(is_published=False)
    assert start_queries.published_quiz_for_student(slug=GC, user_id=student.pk) == (None, False, [], [])
    assert start_queries.published_quiz_for_student(slug="no-such-quiz", user_id=student.pk) == (
        None,
        False,
        [],
        [],
    )


def test_inserted_rows_are_what_the_database_holds(student, quiz, answered):
    _first, second = answered
    answer = Answer.objects.get(attempt=second)
    assert isinstance(answer.is_correct, bool)
    assert answer.language == "sn"
    assert fields(answer)["attempt_id"] == second.pk
    attempt_finish(attempt=second)
    third, created = attempt_start(user=student, quiz=quiz)
    assert created
    assert fields(third) == fields(Attempt.objects.get(pk=third.pk))
    assert (third.number, third.state, third.max_score) == (3, Attempt.State.IN_PROGRESS, 8)


# The answer's transaction is sent in one message on PostgreSQL outside a transaction (as in a
# request), and as two statements in transaction.atomic() inside one (as in a test's own): both ways.
BOTH_WAYS = pytest.mark.parametrize(
    "in_one_message",
    [
        pytest.param(False, marks=pytest.mark.django_db, id="statements"),
        pytest.param(True, marks=pytest.mark.django_db(transaction=True), id="one-message"),
    ],
)


def write(attempt, question, choice, *, user, language="en", position=None):
    return queries.answer_write(
        attempt_id=attempt.pk,
        user_id=user.pk,
        question_id=question.pk,
        choice_id=choice.pk,
        language=language,
        position=position,
        now=timezone.now(),
    )


def check_way(in_one_message: bool) -> None:
    assert sql.in_one_message(connection) is (in_one_message and connection.vendor == "postgresql")


@BOTH_WAYS
def test_answer_write_locks_only_the_owners_attempt(in_one_message, student, other_student, answered):
    check_way(in_one_message)
    finished, in_progress = answered
    question = Question.objects.get(quiz=in_progress.quiz, position=3)
    choice = question.choices.first()
    assert write(in_progress, question, choice, user=other_student) == (None, None)
    assert write(finished, question, choice, user=other_student) == (None, None)
    unknown = Attempt(pk=10**9)
    assert write(unknown, question, choice, user=student) == (None, None)
    assert not Answer.objects.filter(question=question).exists()
    attempt, answer = write(finished, question, choice, user=student)  # the owner's, but finished
    assert fields(attempt) == fields(Attempt.objects.get(pk=finished.pk)) and answer is None
    attempt, answer = write(in_progress, question, choice, user=student)
    assert fields(attempt) == fields(Attempt.objects.get(pk=in_progress.pk))
    assert fields(answer) == fields(Answer.objects.get(attempt=in_progress, question=question))


@BOTH_WAYS
def test_answer_write_grades_with_the_key_and_returns_the_orm_row(in_one_message, student, quiz):
    check_way(in_one_message)
    attempt, _ = attempt_start(user=student, quiz=quiz)
    for position, is_correct, language in ((1, True, "ur"), (2, False, "id")):
        question = quiz.questions.get(position=position)
        choice = question.choices.filter(is_correct=is_correct).order_by("position").first()
        at = position if is_correct else None
        _locked, answer = write(attempt, question, choice, user=student, language=language, position=at)
        assert fields(answer) == fields(Answer.objects.get(pk=answer.pk))
        assert (answer.attempt_id, answer.question_id, answer.choice_id) == (attempt.pk, question.pk, choice.pk)
        assert (answer.is_correct, answer.language) == (is_correct, language)
        assert answer.answered_at is not None


@BOTH_WAYS
def test_answer_write_inserts_nothing_for_a_choice_not_open_in_that_question(in_one_message, student, quiz, content):
    check_way(in_one_message)
    attempt, _ = attempt_start(user=student, quiz=quiz)
    first, second, third = (quiz.questions.get(position=position) for position in (1, 2, 3))
    other_quiz = next(other for slug, other in content.items() if slug != GC)
    foreign = other_quiz.questions.order_by("position").first()

    def insert(question, choice, position=None):
        return write(attempt, question, choice, user=student, position=position)[1]

    assert insert(first, second.choices.first()) is None  # another question's choice
    assert insert(foreign, foreign.choices.first()) is None  # another quiz's question
    assert insert(first, first.choices.first(), position=2) is None  # not the question at that position
    added = Choice.objects.create(question=first, position=9, text_en="Added since the start")
    assert insert(first, added) is None  # not a choice the layout shows (a new version offers it)
    AttemptQuestion.objects.filter(attempt=attempt, question=third).delete()
    assert insert(third, third.choices.first()) is None  # not in the layout
    assert not Answer.objects.filter(attempt=attempt).exists()
    assert insert(second, second.choices.first(), position=2) is not None


def answer_twice(student, quiz):
    """Answer question 1 of a new attempt, then answer it again (refused by the unique constraint)."""
    attempt, _ = attempt_start(user=student, quiz=quiz)
    question = quiz.questions.get(position=1)
    first, other = question.choices.order_by("position")[:2]
    write(attempt, question, first, user=student)
    with pytest.raises(IntegrityError):
        write(attempt, question, other, user=student)
    return attempt, question, first


@BOTH_WAYS
def test_a_second_answer_raises_and_leaves_no_transaction_open(in_one_message, student, quiz):
    check_way(in_one_message)
    attempt, _question, first = answer_twice(student, quiz)
    if in_one_message and connection.vendor == "postgresql":
        from psycopg.pq import TransactionStatus

        # The failed INSERT skipped the message's COMMIT: it was rolled back at once.
        assert connection.connection.info.transaction_status == TransactionStatus.IDLE
    assert list(Answer.objects.filter(attempt=attempt).values_list("choice_id", flat=True)) == [first.pk]


def test_published_quiz_and_courses_are_the_orm_rows(student, quiz):
    found = start_queries.published_quiz(GC)
    assert fields(found) == fields(quiz)
    assert fields(found.course) == fields(Course.objects.get(pk=quiz.course_id))
    Quiz.objects.filter(pk=quiz.pk).update(is_published=False)
    assert start_queries.published_quiz(GC) is None
    enrolled, joinable, quiz_rows = queries.courses_of_student(student.pk)
    assert [fields(course) for course in enrolled] == [fields(quiz.course)]
    expected = Course.objects.filter(allow_self_enrollment=True).exclude(enrollments__user=student).order_by("slug")
    assert [fields(course) for course in joinable] == [fields(course) for course in expected]
    published = Quiz.objects.filter(course=quiz.course, is_published=True).order_by("position", "slug")
    assert [fields(row) for row, _attempt in quiz_rows] == [fields(other) for other in published]


def test_courses_of_student_gives_a_row_per_attempt(student, quiz):
    first = attempt_start(user=student, quiz=quiz)[0]
    first = attempt_finish(attempt=first)
    second = attempt_start(user=student, quiz=quiz)[0]
    _enrolled, _joinable, quiz_rows = queries.courses_of_student(student.pk)
    mine = [
        tuple(getattr(attempt, name) for name in queries.DASHBOARD_ATTEMPT_NAMES)
        for row, attempt in quiz_rows
        if row.pk == quiz.pk
    ]
    assert mine == [
        (first.pk, Attempt.State.FINISHED, 0, first.max_score, first.pass_mark, first.finished_at),
        (second.pk, Attempt.State.IN_PROGRESS, None, second.max_score, second.pass_mark, None),
    ]
    others = [attempt for row, attempt in quiz_rows if row.pk != quiz.pk]
    assert others == [None] * len(others)


# Prepared statements (PostgreSQL) -------------------------------------------------------------

POSTGRESQL_ONLY = pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL prepares statements")


def test_a_statement_becomes_an_execute_with_the_same_parameters():
    text = "SELECT a FROM t WHERE b = %s AND c IN (%s, %s)"
    name, prepare, execute = sql._prepared_form(text)
    assert name.startswith("quizzes_") and sql._prepared_form(text)[0] == name
    assert prepare == f"PREPARE {name} AS SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)"
    assert execute == f"EXECUTE {name}(%s, %s, %s)"
    assert sql._prepared_form("SELECT 1")[2] == f"EXECUTE {sql._prepared_form('SELECT 1')[0]}"


def sent(action) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        action()
    return [query["sql"] for query in captured.captured_queries]


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_each_statement_is_prepared_once_per_connection(student):
    connection.close()  # a new connection has nothing prepared
    first = sent(lambda: account_queries.user_get(student.pk))
    assert len(first) == 1 and first[0].startswith("PREPARE quizzes_") and "; EXECUTE quizzes_" in first[0]
    again = sent(lambda: account_queries.user_get(student.pk))
    assert len(again) == 1 and again[0].startswith("EXECUTE quizzes_") and "PREPARE" not in again[0]
    assert fields(account_queries.user_get(student.pk)) == fields(get_user_model().objects.get(pk=student.pk))
    connection.close()
    assert sent(lambda: account_queries.user_get(student.pk))[0].startswith("PREPARE quizzes_")


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_prepared_statements_outlive_a_rolled_back_transaction(student):
    connection.close()
    with pytest.raises(ZeroDivisionError), transaction.atomic():
        assert sent(lambda: account_queries.user_get(student.pk))[0].startswith("PREPARE")
        1 / 0  # noqa: B018
    # PREPARE is not undone by ROLLBACK: the statement is still there, and known to be.
    assert sent(lambda: account_queries.user_get(student.pk))[0].startswith("EXECUTE")
    assert account_queries.user_get(student.pk).pk == student.pk


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_after_an_error_the_connection_prepares_afresh(student, quiz):
    attempt, question, _first = answer_twice(student, quiz)
    # What is prepared on the connection is not assumed after an error: dropped and prepared again.
    message = sent(lambda: account_queries.user_get(student.pk))[0]
    assert message.startswith("DEALLOCATE ALL; PREPARE quizzes_")
    assert sent(lambda: account_queries.user_get(student.pk))[0].startswith("EXECUTE")
    found, _layout, _answers = queries.attempt_with_answers(attempt_id=attempt.pk, user_id=student.pk)
    assert found.pk == attempt.pk and list(_answers) == [question.pk]


@pytest.mark.django_db
def test_statements_are_sent_as_text_when_preparing_is_off(student, settings):
    settings.QUIZZES_PREPARED_STATEMENTS = False
    message = sent(lambda: account_queries.user_get(student.pk))[0]
    assert message.startswith("SELECT") and "EXECUTE" not in message
    assert fields(account_queries.user_get(student.pk)) == fields(get_user_model().objects.get(pk=student.pk))


def backend_pid() -> int:
    return connection.connection.info.backend_pid


@pytest.fixture
def checks(monkeypatch) -> list[bool]:
    """The connection checks Django makes (``is_usable``: a ``SELECT 1``), each one's outcome."""
    made = []
    is_usable = connection.is_usable

    def counted():
        made.append(is_usable())
        return made[-1]

    monkeypatch.setattr(connection, "is_usable", counted)
    return made


def request_starts() -> None:
    """What Django does when a request starts (``request_started``): a persistent connection is
    checked again (``CONN_HEALTH_CHECKS``) before the request's first statement."""
    close_old_connections()


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_a_requests_first_read_comes_after_djangos_connection_check(student, checks):
    account_queries.user_get(student.pk)
    request_starts()
    assert account_queries.user_get(student.pk).pk == student.pk
    assert checks == [True]
    # Once per request: its other statements need no check.
    assert queries.courses_of_student(student.pk)[0] and checks == [True]


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_a_read_on_a_connection_lost_while_idle_is_sent_on_a_new_one(student, checks):
    account_queries.user_get(student.pk)
    lost = backend_pid()
    with connection.get_new_connection(connection.get_connection_params()) as other:
        other.autocommit = True
        other.execute("SELECT pg_terminate_backend(%s)", [lost])
    request_starts()
    assert account_queries.user_get(student.pk).pk == student.pk
    assert checks == [False] and backend_pid() != lost  # found lost by Django's check, then replaced


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_a_failing_read_on_a_live_connection_is_sent_once(student, checks):
    account_queries.user_get(student.pk)
    kept = backend_pid()
    request_starts()
    with pytest.raises(DataError), CaptureQueriesContext(connection) as queries:
        sql.fetchall("SELECT 1 / %s", [0])
    assert checks == [True] and backend_pid() == kept
    assert len(queries.captured_queries) == 1


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_a_request_whose_first_statement_writes_is_checked_before_it(student, quiz, checks):
    attempt, _ = attempt_start(user=student, quiz=quiz)
    question = quiz.questions.get(position=1)
    request_starts()
    write(attempt, question, question.choices.first(), user=student)
    assert checks == [True]


def test_the_fixed_sql_leaves_djangos_connection_check_to_django():
    """No private attribute of Django's connection is set or read (its health check included)."""
    private = "health_check_" + "done"
    sources = [*(PROJECT_DIR / "common").rglob("*.py"), *(PROJECT_DIR / "quizzes").rglob("*.py")]
    sources += [*(PROJECT_DIR / "lms").rglob("*.py"), *(PROJECT_DIR / "tests").rglob("*.py")]
    assert len(sources) > 50
    assert [path for path in sources if private in path.read_text(encoding="utf-8")] == []


# Pooled and direct connections (common/pooler.py) ----------------------------------------------


def test_preparing_is_decided_per_connection_by_default():
    assert settings.QUIZZES_PREPARED_STATEMENTS == "auto"


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, "auto"), ("", "auto"), ("auto", "auto"), (" AUTO ", "auto"), ("1", True), ("on", True), ("0", False)],
)
def test_the_prepared_statements_variable(monkeypatch, value, expected):
    from lms.settings import _on_off, env_choice

    if value is None:
        monkeypatch.delenv("DJANGO_DB_PREPARED_STATEMENTS", raising=False)
    else:
        monkeypatch.setenv("DJANGO_DB_PREPARED_STATEMENTS", value)
    assert env_choice("DJANGO_DB_PREPARED_STATEMENTS", {"auto": "auto", **_on_off}, "auto") == expected


def test_a_prepared_statements_value_not_understood_stops_the_start(monkeypatch):
    from lms.settings import _on_off, env_choice

    monkeypatch.setenv("DJANGO_DB_PREPARED_STATEMENTS", "sometimes")
    with pytest.raises(ImproperlyConfigured, match="DJANGO_DB_PREPARED_STATEMENTS"):
        env_choice("DJANGO_DB_PREPARED_STATEMENTS", {"auto": "auto", **_on_off}, "auto")


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_a_direct_connection_is_found_direct_once_when_it_opens(student, monkeypatch):
    probes = []
    probe = pooler._probe
    monkeypatch.setattr(pooler, "_probe", lambda db: probes.append(db.alias) or probe(db))
    connection.close()
    connection.ensure_connection()
    assert probes == ["default"]
    assert pooler.behind_pooler(connection) is False and sql.prepares(connection) is True
    account_queries.user_get(student.pk)
    assert probes == ["default"]  # once per connection, not per statement
    assert connection.connection.prepare_threshold is None  # Django's default (OPTIONS), left alone
    assert connection.settings_dict["DISABLE_SERVER_SIDE_CURSORS"] is False


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_on_a_pooled_connection_the_statements_are_sent_as_text(student, monkeypatch):
    connection.ensure_connection()
    monkeypatch.setitem(pooler._pooled, connection.connection, True)
    message = sent(lambda: account_queries.user_get(student.pk))[0]
    assert message.startswith("SELECT") and "EXECUTE" not in message and "PREPARE" not in message
    assert fields(account_queries.user_get(student.pk)) == fields(get_user_model().objects.get(pk=student.pk))
    monkeypatch.setattr(settings, "QUIZZES_PREPARED_STATEMENTS", True, raising=False)  # "1": prepare anyway
    assert sent(lambda: account_queries.user_get(student.pk))[0].startswith(("PREPARE", "DEALLOCATE"))


# Another database alias (``using``) ------------------------------------------------------------


@pytest.fixture
def other_alias():
    """The second alias of the test settings, "other": the same test database, a connection of its own."""
    return connections["other"]


USING_OTHER = pytest.mark.django_db(transaction=True, databases=["default", "other"])


@USING_OTHER
def test_a_read_with_using_runs_on_that_connection_and_builds_its_instances(student, quiz, answered, other_alias):
    first, _second = answered
    with CaptureQueriesContext(other_alias) as on_other, CaptureQueriesContext(connection) as on_default:
        user = account_queries.user_get(student.pk, using="other")
        attempt, _layout, answers = queries.attempt_with_answers(attempt_id=first.pk, user_id=student.pk, using="other")
        found, enrolled, attempts, _overrides = start_queries.published_quiz_for_student(
            slug=GC, user_id=student.pk, using="other"
        )
        enrolled_in, _joinable, quiz_rows = queries.courses_of_student(student.pk, using="other")
    # One message each on PostgreSQL; the quiz's four reads one by one on SQLite.
    assert len(on_other.captured_queries) == (4 if connection.vendor == "postgresql" else 7)
    assert on_default.captured_queries == []
    built = [user, attempt, *answers.values(), found, found.course, *attempts, *enrolled_in]
    built += [row for row, _attempt in quiz_rows]
    assert {instance._state.db for instance in built} == {"other"}
    assert fields(user) == fields(get_user_model().objects.get(pk=student.pk))
    assert fields(attempt) == fields(Attempt.objects.get(pk=first.pk)) and enrolled is True
    assert account_queries.user_get(student.pk)._state.db == "default"


@USING_OTHER
def test_a_write_with_using_runs_on_that_connection(student, quiz, other_alias):
    values = {"user_id": student.pk, "quiz_id": quiz.pk, "max_score": 8, "pass_mark": 60}
    question = quiz.questions.get(position=1)
    version = current_version(question)
    slot = Slot(1, question.pk, version.pk, version.token, tuple(question.choices.values_list("pk", flat=True)))
    with CaptureQueriesContext(other_alias) as on_other, CaptureQueriesContext(connection) as on_default:
        attempt = start_queries.attempt_insert(number=1, using="other", **values)
        start_queries.layout_insert(attempt_id=attempt.pk, slots=[slot], using="other")
    assert attempt._state.db == "other" and on_default.captured_queries == []
    written = [query for query in on_other.captured_queries if query["sql"] not in ("BEGIN", "COMMIT")]
    assert len(written) == 2
    choice = question.choices.order_by("position").first()
    with CaptureQueriesContext(other_alias) as on_other, CaptureQueriesContext(connection) as on_default:
        locked, answer = queries.answer_write(
            attempt_id=attempt.pk,
            user_id=student.pk,
            question_id=question.pk,
            choice_id=choice.pk,
            language="en",
            position=1,
            now=timezone.now(),
            using="other",
        )
        again = queries.recorded_answer(
            attempt_id=attempt.pk, user_id=student.pk, question_id=question.pk, using="other"
        )
    assert on_default.captured_queries == [] and on_other.captured_queries
    assert (locked._state.db, answer._state.db, again._state.db, again.attempt._state.db) == ("other",) * 4
    assert fields(answer) == fields(Answer.objects.get(attempt=attempt)) == fields(again)


def test_the_names_are_quoted_by_the_connection_given(other_alias, monkeypatch):
    # The other alias's connection quotes names its own way (as another vendor's would).
    monkeypatch.setattr(other_alias.ops, "quote_name", lambda name: f"[{name}]")
    assert sql.table(Attempt, "other") == "[quizzes_attempt]"
    assert sql.column(Attempt, "quiz_id", "other") == "[quiz_id]"
    assert sql.select_list(Attempt, "a", ("id", "state"), "other") == "a.[id], a.[state]"
    assert sql.table(Attempt) == connection.ops.quote_name("quizzes_attempt") != "[quizzes_attempt]"


@BOTH_WAYS
def test_start_reads_lock_the_enrollment_then_read_the_attempts_and_open_questions(
    in_one_message, student, quiz, answered, outsider
):
    PoolDraw.objects.create(quiz=quiz, pool="memory", count=2)
    with transaction.atomic():
        enrolled, settings, attempts, overrides, questions, draws = start_queries.start_reads(
            user_id=student.pk, course_id=quiz.course_id, quiz_id=quiz.pk
        )
    assert enrolled is True and overrides == []
    assert [getattr(settings, name) for name in start_queries.QUIZ_SETTING_NAMES] == [
        getattr(quiz, name) for name in start_queries.QUIZ_SETTING_NAMES
    ]
    newest_first = Attempt.objects.filter(user=student).order_by("-number")
    assert [fields(attempt) for attempt in attempts] == [fields(attempt) for attempt in newest_first]
    open_questions = quiz.questions.filter(is_archived=False).order_by("position")
    assert [question.id for question in questions] == [question.pk for question in open_questions]
    for found, question in zip(questions, open_questions, strict=True):
        version = current_version(question)
        assert (found.version_id, found.position, found.pool, found.keep_choice_order) == (
            version.pk,
            question.position,
            question.pool,
            question.keep_choice_order,
        )
        assert found.choice_ids == tuple(choice["id"] for choice in version.choices)
    assert draws == {"memory": 2}
    outside = start_queries.start_reads(user_id=outsider.pk, course_id=quiz.course_id, quiz_id=quiz.pk)
    assert outside[0] is False and outside[2:] == ([], [], questions, draws)


@BOTH_WAYS
def test_an_attempt_a_unique_constraint_refuses_is_not_written(in_one_message, student, quiz):
    first, _new = attempt_start(user=student, quiz=quiz)  # number 1, in progress
    values = {"user_id": student.pk, "quiz_id": quiz.pk, "max_score": 8, "pass_mark": 60}
    with CaptureQueriesContext(connection) as queries:
        assert start_queries.attempt_insert(number=2, **values) is None  # a second one in progress
    assert not any("SAVEPOINT" in query["sql"] for query in queries.captured_queries)
    attempt_finish(attempt=first)
    assert start_queries.attempt_insert(number=1, **values) is None  # a taken number
    second = start_queries.attempt_insert(number=2, **values)
    assert fields(second) == fields(Attempt.objects.get(pk=second.pk))
    assert Attempt.objects.filter(user=student).count() == 2


@POSTGRESQL_ONLY
@pytest.mark.django_db
def test_with_server_side_binding_a_transactions_reads_go_one_by_one(student, quiz, monkeypatch):
    # A prepared statement holds one command: several statements may not share a message.
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "server_side_binding", True)
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        reads = start_queries.start_reads(user_id=student.pk, course_id=quiz.course_id, quiz_id=quiz.pk)
    assert reads.enrolled is True
    sent = [query["sql"] for query in queries.captured_queries if "SAVEPOINT" not in query["sql"]]
    # The lock, the quiz's key share, the attempts, the overrides, its versions, its pool draws.
    assert len(sent) == 6 and not any("; " in sql for sql in sent)


# Every fixed INSERT writes every column --------------------------------------------------------


def _inserted_columns(sql_text: str) -> list[str]:
    listed = sql_text.split("(", 1)[1].split(")", 1)[0]
    return [name.strip().strip('"`') for name in listed.split(",")]


def _model_columns(model) -> list[str]:
    return [field.column for field in model._meta.concrete_fields if not field.primary_key]


@pytest.mark.parametrize("at_position", [False, True])
def test_the_answer_insert_writes_every_concrete_column_of_answer(at_position):
    from quizzes.attempts.queries import _answer_insert_sql

    assert _inserted_columns(_answer_insert_sql("default", at_position)) == _model_columns(Answer)


@pytest.mark.parametrize("conflict", ["raise", "ignore"])
def test_the_generic_insert_writes_every_concrete_column(conflict):
    assert _inserted_columns(sql._insert_sql(Attempt, "default", conflict)) == _model_columns(Attempt)


def test_a_new_row_fills_what_save_would_and_refuses_a_missing_value():
    row = sql.new_row(Attempt, {"user_id": 1, "quiz_id": 2, "number": 1, "max_score": 3, "pass_mark": 50})
    assert tuple(row) == sql.inserted_names(Attempt)
    assert (row["state"], row["score"], row["finished_at"]) == (Attempt.State.IN_PROGRESS, None, None)
    assert row["started_at"] is not None
    with pytest.raises(ValueError, match="max_score"):
        sql.new_row(Attempt, {"user_id": 1, "quiz_id": 2, "number": 1, "pass_mark": 50})
