"""Query budgets of the student pages and endpoints (issue 7).

Each is measured with the fixtures, then again after adding many questions,
choices, quizzes, courses, students, attempts and answers: the count must not
change, and must stay within its budget.

What counts: every statement Django sends to the database during the
request that reads or writes (``CaptureQueriesContext``: SELECT, INSERT,
UPDATE, DELETE, and SAVEPOINT / RELEASE SAVEPOINT too), from the session and
user lookups to the last one. Transaction control (BEGIN, COMMIT, ROLLBACK:
Django logs them on SQLite, only COMMIT on PostgreSQL) is counted apart: an
answer must be exactly one transaction (one COMMIT) and use no savepoint. On
PostgreSQL an answer's transaction is one message, ``BEGIN; lock; INSERT;
COMMIT`` (``quizzes.attempts.queries.answer_write``): one statement here, as it is one
round trip. The
writes are measured with a transactional test database
(``django_db(transaction=True)``) so that ``transaction.atomic`` is a real
transaction as in production, not a savepoint inside the test's own.

The quiz content (questions, choices) is held by each process
(``quizzes.content.cache``): budgets are for the usual, warm case, where the
process holds the quiz's snapshot and confirmed its version less than
``VERSION_RECHECK`` seconds ago. A request measured here comes right after one
that warmed the content, and the interval is held open for the test
(``version_confirmed``) so that a slow machine can't move a measurement past
it: each count is of the warm case or of a cold one, never one or the other
by chance. Once per interval a request reads the quiz's version, one query
more, and a cold cache (once per quiz after each edit) costs the two content
queries more: both checked separately. Sessions are in the database here (no
REDIS_URL): with Redis in production (``cached_db``) the session lookup is a
cache read and each count below is one query less.
"""

import json

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone, translation

from common.sql import _prepared_form
from quizzes.api.serializers import (
    AnswerFeedbackSerializer,
    AttemptSerializer,
    QuizDetailSerializer,
    QuizProgressSerializer,
)
from quizzes.attempts.rules import FULL_REVIEW
from quizzes.attempts.selectors import AnswerFeedback, student_courses, student_quizzes
from quizzes.attempts.services import attempt_finish, attempt_start
from quizzes.content import cache as content_cache
from quizzes.content.cache import quiz_content_invalidate, version_question
from quizzes.enrollment.services import enrollment_create
from quizzes.models import Answer, Attempt, Choice, OutboxMessage, Question, Quiz
from quizzes.outbox.queries import _answer_message_sql
from tests.api.conftest import token_client
from tests.factories import AttemptFactory, CourseFactory, QuizFactory, UserFactory, answer_row, answer_rows
from tests.progress_oracle import attempt_oracle, progress_of, student_quiz_detail_oracle, student_quizzes_oracle

GC = "gradient-checkpointing"
QUESTION_BUDGET = 6  # a question page
# An answer, exactly: a regression must show. The attempt's lock checks its owner, the INSERT
# reads the key of the version the layout holds, and the token of that version is read for its
# feedback (quizzes.attempts.queries.answer_write). On PostgreSQL the three travel in one
# message with their BEGIN and COMMIT: one round trip.
ANSWER_WRITE = 1 if connection.vendor == "postgresql" else 3
WEB_ANSWER = 2 + ANSWER_WRITE  # session, user, the attempt's lock and the graded INSERT
API_ANSWER = 1 + ANSWER_WRITE  # token's user, the attempt's lock and the graded INSERT
# A retry: the token's user, the lock and the INSERT the unique constraint refuses (one message on
# PostgreSQL, so the version's token is not read), then the recorded answer with its token.
API_ANSWER_RETRY = 1 + (1 if connection.vendor == "postgresql" else 2) + 1
DASHBOARD_BUDGET = 8  # the dashboard (with its practice due, one query: 4 in all) and the API's progress
API_QUIZ_LIST = 2  # token's user, and the dashboard's statement (a page of a list needs no COUNT)
OTHER_BUDGET = 8  # quiz page, result, resume
# The versions a layout holds, when this process holds them not (they never change after).
COLD_LAYOUT = 1
VERSION_READ = 1  # the quiz's version, once per VERSION_RECHECK seconds
RECHECK = content_cache.VERSION_RECHECK


TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK")


def statements(queries) -> tuple[int, int]:
    """(statements that read or write, COMMITs) of a CaptureQueriesContext. A transaction sent
    in one message (``BEGIN; ...; COMMIT``) counts as one statement, and its COMMIT as one unless
    a statement failed and it was rolled back (the ROLLBACK that follows it)."""
    sql = [query["sql"].strip().upper() for query in queries.captured_queries]
    after = [*sql[1:], None]
    commits = sum(
        text == "COMMIT" or (text.endswith("; COMMIT") and following != "ROLLBACK")
        for text, following in zip(sql, after, strict=True)
    )
    return sum(text not in TRANSACTION_CONTROL for text in sql), commits


def count_queries(client, method: str, path: str, data=None, *, status: int, commits: int = 0, **extra) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = getattr(client, method)(path, data or {}, **extra)
    assert response.status_code == status, (path, response.status_code, response.content[:300])
    count, committed = statements(queries)
    if connection.features.supports_transactions and status < 400 and method == "post":
        assert committed == commits, "one transaction per write"
    assert not any("SAVEPOINT" in query["sql"].upper() for query in queries.captured_queries) or method == "get"
    return count


def add_questions(quiz, count: int = 20, choices: int = 4) -> None:
    start = (quiz.questions.order_by("-position").values_list("position", flat=True).first() or 0) + 1
    questions = Question.objects.bulk_create(
        Question(quiz=quiz, position=position, text_en=f"Extra question {position}?", explanation_en="Because.")
        for position in range(start, start + count)
    )
    Choice.objects.bulk_create(
        Choice(question=question, position=position, text_en=f"Choice {position}", is_correct=position == 1)
        for question in questions
        for position in range(1, choices + 1)
    )
    quiz_content_invalidate(quiz.pk)  # bulk_create sends no signals


def add_history(user, quiz, finished_attempts: int = 5) -> None:
    """Finished attempts of ``user`` with an answer to every question."""
    questions = list(quiz.questions.order_by("position").prefetch_related("choices"))
    first = (
        Attempt.objects.filter(user=user, quiz=quiz).order_by("-number").values_list("number", flat=True).first()
    ) or 0
    answers = []
    for number in range(first + 1, first + 1 + finished_attempts):
        attempt = AttemptFactory(
            user=user,
            quiz=quiz,
            number=number,
            finished=True,
            score=number % (len(questions) + 1),
            max_score=len(questions),
            layout=False,  # laid out below with its answers, in one INSERT
        )
        answers += [
            {
                "attempt": attempt,
                "question": question,
                "choice": question.choices.all()[number % 2],
                "is_correct": number % 2 == 0,
            }
            for question in questions
        ]
    Answer.objects.bulk_create(answer_rows(answers))


def grow(student, content, other_student) -> None:
    """Much more of everything, for the student and for others."""
    for quiz in content.values():
        add_questions(quiz, 20)
        add_history(student, quiz, 4)
        add_history(other_student, quiz, 3)
    course = content[GC].course
    for index in range(5):
        extra = QuizFactory(course=course, slug=f"extra-{index}", position=10 + index)
        add_questions(extra, 3)
        add_history(student, extra, 2)
    other_course = CourseFactory(slug="zz-second", allow_self_enrollment=True)
    enrollment_create(user=student, course=other_course)
    for index in range(3):
        add_questions(QuizFactory(course=other_course, slug=f"second-{index}"), 2)
    for index in range(4):
        CourseFactory(slug=f"open-{index}", allow_self_enrollment=True)
    for _index in range(5):
        enrollment_create(user=UserFactory(), course=course)


def warm_and_count(client, method, path, *, status, data=None, **extra) -> int:
    """The count of a request once the content cache is warm (a first GET warms it)."""
    return count_queries(client, method, path, data, status=status, **extra)


@pytest.fixture(autouse=True)
def empty_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def version_confirmed(monkeypatch):
    """A version confirmed by one request stays confirmed for the next, however long the
    test takes between them (``test_the_version_is_read_again_after_the_interval`` counts
    the read)."""
    monkeypatch.setattr(content_cache, "VERSION_RECHECK", 3600.0)


@pytest.fixture
def attempt(student, content):
    attempt, _created = attempt_start(user=student, quiz=content[GC])
    return attempt


def answer_directly(attempt, quiz, position: int, choice_position: int = 1) -> None:
    question = quiz.questions.get(position=position)
    answer_row(
        attempt=attempt,
        question=question,
        choice=question.choices.get(position=choice_position),
        is_correct=choice_position == 1,
    ).save()


class TestQuestionPage:
    def test_unanswered_question(self, student, other_student, student_client, content, attempt):
        path = f"/en/attempts/{attempt.pk}/questions/1/"
        cold = count_queries(student_client, "get", path, status=200)
        before = count_queries(student_client, "get", path, status=200)
        grow(student, content, other_student)
        count_queries(student_client, "get", path, status=200)  # the content changed: cold again
        after = count_queries(student_client, "get", path, status=200)
        assert after == before <= QUESTION_BUDGET
        assert cold == before + COLD_LAYOUT <= QUESTION_BUDGET

    def test_question_with_feedback_in_urdu(self, student, other_student, student_client, content, attempt):
        answer_directly(attempt, content[GC], 1)
        path = f"/ur/attempts/{attempt.pk}/questions/1/"
        count_queries(student_client, "get", path, status=200)
        before = count_queries(student_client, "get", path, status=200)
        grow(student, content, other_student)
        answer_directly(attempt, content[GC], 2, 2)  # the attempt's own answers grow too
        count_queries(student_client, "get", path, status=200)
        after = count_queries(student_client, "get", "/sn" + path[3:], status=200)
        assert after == before <= QUESTION_BUDGET

    def test_the_version_is_read_again_after_the_interval(self, monkeypatch, time_machine, student_client, attempt):
        """Once per VERSION_RECHECK seconds: one query (the version), and the content unchanged
        is not read again; the request after it is warm again. (The quiz's page: a question's
        page reads its layout's versions, which never change, and not the quiz's content.)"""
        monkeypatch.setattr(content_cache, "VERSION_RECHECK", RECHECK)
        time_machine.move_to(timezone.now(), tick=False)
        path = f"/en/quizzes/{GC}/"
        count_queries(student_client, "get", path, status=200)
        warm = count_queries(student_client, "get", path, status=200)
        time_machine.shift(RECHECK)
        assert count_queries(student_client, "get", path, status=200) == warm + VERSION_READ
        assert count_queries(student_client, "get", path, status=200) == warm

    def test_the_cache_is_shared_by_languages(self, student_client, attempt):
        count_queries(student_client, "get", f"/en/attempts/{attempt.pk}/questions/1/", status=200)
        warm = count_queries(student_client, "get", f"/en/attempts/{attempt.pk}/questions/1/", status=200)
        for language in ("ur", "sn", "id"):
            path = f"/{language}/attempts/{attempt.pk}/questions/1/"
            assert count_queries(student_client, "get", path, status=200) == warm


@pytest.mark.django_db(transaction=True)
class TestAnswering:
    """Real transactions: the answer's BEGIN/COMMIT are not counted, savepoints would be."""

    def web_answer(self, client, attempt, quiz, position: int) -> int:
        question = quiz.questions.get(position=position)
        data = {"question": question.pk, "choice": question.choices.get(position=1).pk}
        return count_queries(
            client, "post", f"/en/attempts/{attempt.pk}/questions/{position}/", data, status=302, commits=1
        )

    def api_answer(self, client, attempt, quiz, position: int, *, status: int = 201) -> int:
        question = quiz.questions.get(position=position)
        data = {"question": question.pk, "choice": question.choices.get(position=1).pk}
        with CaptureQueriesContext(connection) as queries:
            response = client.post(f"/api/v1/attempts/{attempt.pk}/answers/?lang=ur", data, format="json")
        assert response.status_code == status, response.content
        count, committed = statements(queries)
        # A new answer is one transaction; a retry's failed INSERT is rolled back, then the record read.
        assert committed == (1 if status == 201 else 0)
        assert not any("SAVEPOINT" in query["sql"].upper() for query in queries.captured_queries)
        return count

    def test_web_answer(self, student, other_student, student_client, content, attempt):
        quiz = content[GC]
        student_client.get(f"/en/attempts/{attempt.pk}/questions/1/")  # warms the content cache
        before = self.web_answer(student_client, attempt, quiz, 1)
        grow(student, content, other_student)
        student_client.get(f"/en/attempts/{attempt.pk}/questions/2/")
        after = self.web_answer(student_client, attempt, quiz, 2)
        assert after == before == WEB_ANSWER
        assert Answer.objects.filter(attempt=attempt).count() == 2

    def test_api_answer(self, student, other_student, content, attempt):
        quiz = content[GC]
        client = token_client(student)
        client.get(f"/api/v1/attempts/{attempt.pk}/")
        self.api_answer(client, attempt, quiz, 1)  # the first warms the content cache
        before = self.api_answer(client, attempt, quiz, 2)
        grow(student, content, other_student)
        self.api_answer(client, attempt, quiz, 3)
        after = self.api_answer(client, attempt, quiz, 4)
        assert after == before == API_ANSWER
        # The same answer again (a retry) is answered from the record.
        assert self.api_answer(client, attempt, quiz, 4, status=200) == API_ANSWER_RETRY
        assert Answer.objects.filter(attempt=attempt).count() == 4

    def test_an_answer_carries_its_xapi_message_in_one_insert_of_its_own_transaction(
        self, settings, student, content, attempt
    ):
        """With an LRS, the outbox adds one INSERT to an answer's transaction: in the same
        message on PostgreSQL (no round trip), one more statement elsewhere; still one COMMIT."""
        settings.XAPI_ENDPOINT = "http://127.0.0.1:9/xAPI/"
        quiz = content[GC]
        client = token_client(student)
        client.get(f"/api/v1/attempts/{attempt.pk}/")  # the layout's versions, into this process
        self.api_answer(client, attempt, quiz, 1)  # the first warms the content cache
        question = quiz.questions.get(position=2)
        data = {"question": question.pk, "choice": question.choices.get(position=1).pk}
        with CaptureQueriesContext(connection) as queries:
            response = client.post(f"/api/v1/attempts/{attempt.pk}/answers/", data, format="json")
        assert response.status_code == 201
        count, committed = statements(queries)
        assert (count, committed) == (API_ANSWER + (0 if connection.vendor == "postgresql" else 1), 1)
        sql = " ".join(query["sql"] for query in queries.captured_queries)
        message_sql = _answer_message_sql(connection.alias)  # as text, or as the EXECUTE of its name
        head = message_sql.split("%s")[0]  # the text before its parameters, as captured
        assert sql.count(head) + sql.count(f"EXECUTE {_prepared_form(message_sql)[0]}(") == 1
        assert OutboxMessage.objects.filter(kind=OutboxMessage.Kind.XAPI_ANSWERED).count() == 2

    def test_api_start_gives_what_the_serializer_gives(self, student, content):
        """A new attempt is rendered without reading its answers (none yet): as the serializer
        renders it from the rows. (tests/api/test_rendering.py: the renderer is the serializer.)"""
        response = token_client(student).post(f"/api/v1/quizzes/{GC}/attempts/", format="json")
        assert response.status_code == 201
        attempt = attempt_oracle(response.json()["id"])
        assert response.json() == json.loads(json.dumps(AttemptSerializer(attempt).data))
        assert response.json()["answers"] == [] and response.json()["state"] == "in_progress"
        assert [question["id"] for question in response.json()["questions"]] == list(
            content[GC].questions.order_by("position").values_list("pk", flat=True)
        )

    def test_api_feedback_from_the_cache_is_the_recorded_truth(self, student, content, attempt):
        """The cached content gives the same feedback as the rows: right choice, explanation, language."""
        quiz = content[GC]
        client = token_client(student)
        question = quiz.questions.get(position=3)  # no Urdu translation in the fixtures
        wrong = question.choices.exclude(is_correct=True).order_by("position").first()
        response = client.post(
            f"/api/v1/attempts/{attempt.pk}/answers/?lang=ur",
            {"question": question.pk, "choice": wrong.pk},
            format="json",
        )
        assert response.status_code == 201
        body = response.json()
        assert body["correct"] is False
        assert body["correct_choice"] == question.choices.get(is_correct=True).pk
        assert body["explanation"] == question.explanation_en
        assert body["explanation_language"] == "en"
        # From the cache, exactly what the serializer gives from the rows of the version answered.
        recorded = Answer.objects.select_related("version").get(attempt=attempt, question=question)
        # The quiz shows its feedback at once.
        recorded = AnswerFeedback(recorded, version_question(recorded.version, position=1), FULL_REVIEW)
        with translation.override("ur"):
            recorded = AnswerFeedbackSerializer(recorded).data
        assert body == json.loads(json.dumps(recorded))
        retry = client.post(
            f"/api/v1/attempts/{attempt.pk}/answers/?lang=ur",
            {"question": question.pk, "choice": wrong.pk},
            format="json",
        )
        assert (retry.status_code, retry.json()) == (200, body)


class TestQuizDetailFromTheCache:
    @pytest.mark.parametrize("language", ["en", "ur", "sn", "id"])
    def test_same_as_the_serializer_over_the_rows(self, student, content, language):
        """The API's quiz (questions from the cache) is what the nested serializers give from the rows,
        archived choices left out, English fallback marked."""
        quiz = content[GC]
        archived = quiz.questions.get(position=2).choices.get(position=3)
        archived.is_archived = True
        archived.save()
        attempt_start(user=student, quiz=quiz)
        client = token_client(student)
        client.get(f"/api/v1/quizzes/{GC}/?lang={language}")  # warms the cache
        with CaptureQueriesContext(connection) as queries:
            response = client.get(f"/api/v1/quizzes/{GC}/?lang={language}")
        assert response.status_code == 200
        with translation.override(language):
            expected = QuizDetailSerializer(student_quiz_detail_oracle(user=student, slug=GC)).data
        assert response.json() == json.loads(json.dumps(expected))
        assert archived.pk not in [c["id"] for q in response.json()["questions"] for c in q["choices"]]
        # The token; the quiz, enrollment, attempts and overrides in one message (one by one on
        # SQLite); no question or choice.
        assert statements(queries)[0] == (2 if connection.vendor == "postgresql" else 5)


class TestDashboardAndProgress:
    def test_dashboard(self, student, other_student, student_client, content):
        attempt_start(user=student, quiz=content[GC])
        before = count_queries(student_client, "get", "/en/", status=200)
        student_client.get("/ur/")  # the quizzes' content, read once per edit (marks what is in English)
        in_urdu = count_queries(student_client, "get", "/ur/", status=200)
        grow(student, content, other_student)
        student_client.get("/ur/")
        after = count_queries(student_client, "get", "/ur/", status=200)
        assert after == in_urdu == before <= DASHBOARD_BUDGET

    def test_dashboard_reads_content_the_cache_holds_without_a_query(self, time_machine, student_client, content):
        """The versions come with the dashboard's statement: another process (nothing held) takes
        the snapshots from the cache, and one that holds them confirms them, all without a query."""
        time_machine.move_to(timezone.now(), tick=False)
        before = count_queries(student_client, "get", "/en/", status=200)
        student_client.get("/ur/")
        content_cache._held.clear()
        assert count_queries(student_client, "get", "/ur/", status=200) == before
        time_machine.shift(10 * RECHECK)
        assert count_queries(student_client, "get", "/ur/", status=200) == before

    def test_api_progress(self, student, other_student, content):
        attempt_start(user=student, quiz=content[GC])
        client = token_client(student)
        before = count_queries(client, "get", "/api/v1/progress/", status=200)
        grow(student, content, other_student)
        after = count_queries(client, "get", "/api/v1/progress/?lang=id", status=200)
        assert after == before <= DASHBOARD_BUDGET

    def test_api_quiz_list(self, student, other_student, content):
        """The API's quiz list reads the progress as the dashboard does: one fixed statement."""
        attempt_start(user=student, quiz=content[GC])
        client = token_client(student)
        before = count_queries(client, "get", "/api/v1/quizzes/", status=200)
        grow(student, content, other_student)
        after = count_queries(client, "get", "/api/v1/quizzes/?lang=ur", status=200)
        assert after == before == API_QUIZ_LIST

    def test_progress_added_up_in_python_equals_the_aggregate_query(self, student, other_student, content):
        """student_courses grades in Python (quizzes.attempts.grading) the rows of one statement: it
        must say what the ORM half of grading says, aggregated by the database (tests/progress_oracle.py)."""
        attempt_start(user=student, quiz=content[GC])
        grow(student, content, other_student)
        # A finished attempt that passes exactly at the pass mark, and attempts with no questions.
        quiz = content["activation-recomputation-tradeoffs"]
        number = Attempt.objects.filter(user=student, quiz=quiz).count() + 1
        AttemptFactory(user=student, quiz=quiz, number=number, finished=True, score=7, max_score=10, pass_mark=70)
        AttemptFactory(user=student, quiz=quiz, number=number + 1, finished=True, score=0, max_score=0, pass_mark=70)
        empty = QuizFactory(course=quiz.course, slug="empty-quiz", position=30, pass_mark=70)
        AttemptFactory(user=student, quiz=empty, number=1, finished=True, score=0, max_score=0, pass_mark=70)
        open_to_all = QuizFactory(course=quiz.course, slug="empty-pass-mark-0", position=31, pass_mark=0)
        AttemptFactory(user=student, quiz=open_to_all, number=1, finished=True, score=0, max_score=0, pass_mark=0)
        expected = {quiz.slug: progress_of(quiz) for quiz in student_quizzes_oracle(user=student)}
        found = {
            quiz.slug: progress_of(quiz) for course in student_courses(user=student) for quiz in course.progress_quizzes
        }
        assert found == expected
        assert found[GC][0] == 5 and found[GC][3] is not None  # 4 finished, 1 in progress
        assert found["empty-quiz"] == (1, 0, False, None) and found["empty-pass-mark-0"] == (1, 0, True, None)
        assert len(found) == 12  # 2 + 5 extra + 2 empty in the first course, 3 in the second
        assert [quiz.slug for quiz in student_quizzes(user=student)] == list(expected)

    def test_api_quiz_list_is_the_serializer_over_the_oracle(self, student, other_student, content):
        """The API's list (the fixed statement, graded in Python) gives what the serializer gives over
        the ORM oracle: the same quizzes, in the same order, with the same fields."""
        attempt_start(user=student, quiz=content[GC])
        grow(student, content, other_student)
        quiz = content["activation-recomputation-tradeoffs"]
        AttemptFactory(user=student, quiz=quiz, number=50, finished=True, score=0, max_score=0, pass_mark=70)
        CourseFactory(slug="aa-not-mine-first")
        QuizFactory(course=content[GC].course, slug="a-draft", position=1, is_published=False)
        response = token_client(student).get("/api/v1/quizzes/?lang=ur")
        assert response.status_code == 200
        with translation.override("ur"):
            expected = QuizProgressSerializer(student_quizzes_oracle(user=student), many=True).data
        assert response.json()["results"] == json.loads(json.dumps(expected))
        assert response.json()["count"] == 10


class TestOtherPages:
    def test_quiz_page(self, student, other_student, student_client, content):
        attempt_start(user=student, quiz=content[GC])
        path = f"/en/quizzes/{GC}/"
        count_queries(student_client, "get", path, status=200)
        before = count_queries(student_client, "get", path, status=200)
        Attempt.objects.filter(user=student).delete()
        grow(student, content, other_student)
        attempt_start(user=student, quiz=content[GC])
        count_queries(student_client, "get", path, status=200)
        after = count_queries(student_client, "get", path, status=200)
        assert after == before <= OTHER_BUDGET

    def test_result_page(self, student, other_student, student_client, content):
        def result_of_new_attempt() -> int:
            attempt, _created = attempt_start(user=student, quiz=content[GC])
            student_client.post(f"/en/attempts/{attempt.pk}/finish/")
            count_queries(student_client, "get", f"/en/attempts/{attempt.pk}/result/", status=200)
            return count_queries(student_client, "get", f"/en/attempts/{attempt.pk}/result/", status=200)

        before = result_of_new_attempt()
        grow(student, content, other_student)
        after = result_of_new_attempt()
        assert after == before <= OTHER_BUDGET

    def test_resume(self, student, other_student, student_client, content, attempt):
        path = f"/en/attempts/{attempt.pk}/"
        count_queries(student_client, "get", path, status=302)
        before = count_queries(student_client, "get", path, status=302)
        grow(student, content, other_student)
        count_queries(student_client, "get", path, status=302)
        after = count_queries(student_client, "get", path, status=302)
        assert after == before <= OTHER_BUDGET


class TestCacheCorrectness:
    """The cached content follows edits made through save(), in every worker's view."""

    def test_an_edit_reaches_the_next_attempt_not_the_one_in_progress(
        self, student, student_client, content, attempt, parse_html
    ):
        path = f"/en/attempts/{attempt.pk}/questions/1/"
        student_client.get(path)
        question = content[GC].questions.get(position=1)
        shown = question.text_en
        question.text_en = "Edited question text?"
        question.save()
        assert parse_html(student_client.get(path)).one("h1", class_="question-text").text == shown
        attempt_finish(attempt=attempt)
        following, _created = attempt_start(user=student, quiz=content[GC])
        page = parse_html(student_client.get(f"/en/attempts/{following.pk}/questions/1/"))
        assert page.one("h1", class_="question-text").text == "Edited question text?"

    def test_archived_choice_and_translation_follow_in_the_next_attempt(
        self, student, student_client, content, attempt, parse_html
    ):
        student_client.get(f"/ur/attempts/{attempt.pk}/questions/1/")
        question = content[GC].questions.get(position=1)
        archived = question.choices.get(position=4)
        archived.is_archived = True
        archived.save()
        question.text_ur = None
        question.save()
        before = parse_html(student_client.get(f"/ur/attempts/{attempt.pk}/questions/1/"))
        assert archived.pk in [int(node["value"]) for node in before.find_all("input", type="radio")]
        assert before.one("h1", class_="question-text").get("lang") is None  # still the Urdu shown
        attempt_finish(attempt=attempt)
        following, _created = attempt_start(user=student, quiz=content[GC])
        page = parse_html(student_client.get(f"/ur/attempts/{following.pk}/questions/1/"))
        assert archived.pk not in [int(node["value"]) for node in page.find_all("input", type="radio")]
        heading = page.one("h1", class_="question-text")
        assert heading.text == question.text_en
        assert heading["lang"] == "en"  # English shown in place of Urdu is marked

    def test_the_right_answer_is_not_in_the_page_before_answering(self, student_client, content, attempt):
        student_client.get(f"/en/attempts/{attempt.pk}/questions/1/")
        body = student_client.get(f"/en/attempts/{attempt.pk}/questions/1/").content.decode()
        assert "right answer" not in body and "✓" not in body

    def test_a_write_without_signals_is_served_until_the_public_invalidation(self, content):
        from quizzes.content.cache import quiz_content

        quiz = content[GC]
        first = quiz_content(quiz.pk)
        assert [q.position for q in first.questions] == list(range(1, 9))
        Question.objects.filter(quiz=quiz, position__gt=4).update(is_archived=True)  # no signal
        assert len(quiz_content(quiz.pk).questions) == 8  # served from the cache, as documented
        quiz_content_invalidate(quiz.pk)
        assert [q.position for q in quiz_content(quiz.pk).questions] == [1, 2, 3, 4]
        assert Quiz.objects.filter(pk=quiz.pk).exists()
