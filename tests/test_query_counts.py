"""The student pages use a fixed number of queries, however much content and
history there is: measured with the fixtures, then again after adding many
questions, choices, quizzes, attempts and answers."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from quizzes.models import Answer, Attempt, Choice, Question
from quizzes.services import attempt_start, enrollment_create
from tests.factories import AttemptFactory, CourseFactory, QuizFactory, UserFactory

GC = "gradient-checkpointing"
CEILING = 15
# An answer is a transaction of its own (savepoints count as queries here, as
# the tests run inside a transaction) on top of loading the page.
POST_CEILING = 20


def count_queries(client, method: str, path: str, data=None, *, status: int) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = getattr(client, method)(path, data or {})
    assert response.status_code == status, (path, response.status_code)
    return len(queries)


def add_questions(quiz, count: int = 20, choices: int = 4) -> None:
    start = quiz.questions.count() + 1
    questions = Question.objects.bulk_create(
        Question(quiz=quiz, position=position, text_en=f"Extra question {position}?", explanation_en="Because.")
        for position in range(start, start + count)
    )
    Choice.objects.bulk_create(
        Choice(question=question, position=position, text_en=f"Choice {position}", is_correct=position == 1)
        for question in questions
        for position in range(1, choices + 1)
    )


def add_history(user, quiz, finished_attempts: int = 5) -> None:
    """Finished attempts of ``user`` with an answer to every question."""
    questions = list(quiz.questions.prefetch_related("choices"))
    first = (
        Attempt.objects.filter(user=user, quiz=quiz).order_by("-number").values_list("number", flat=True).first()
    ) or 0
    for number in range(first + 1, first + 1 + finished_attempts):
        attempt = AttemptFactory(
            user=user,
            quiz=quiz,
            number=number,
            finished=True,
            score=number % (len(questions) + 1),
            max_score=len(questions),
        )
        Answer.objects.bulk_create(
            Answer(
                attempt=attempt,
                question=question,
                choice=question.choices.all()[number % 2],
                is_correct=number % 2 == 0,
                language="en",
            )
            for question in questions
        )


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


class TestDashboard:
    def test_query_count_does_not_grow(self, student, other_student, student_client, content):
        attempt_start(user=student, quiz=content[GC])
        before = count_queries(student_client, "get", "/en/", status=200)
        grow(student, content, other_student)
        after = count_queries(student_client, "get", "/en/", status=200)
        assert after == before
        assert after <= CEILING

    def test_ceiling(self, student_client, content, django_assert_max_num_queries):
        with django_assert_max_num_queries(CEILING):
            assert student_client.get("/ur/").status_code == 200


class TestQuestionPage:
    @pytest.fixture
    def attempt(self, student, content):
        attempt, _created = attempt_start(user=student, quiz=content[GC])
        return attempt

    def answer_first(self, attempt, content):
        question = content[GC].questions.get(position=1)
        Answer.objects.create(
            attempt=attempt, question=question, choice=question.choices.get(position=1), is_correct=True, language="en"
        )

    def test_unanswered_question_query_count_does_not_grow(
        self, student, other_student, student_client, content, attempt
    ):
        path = f"/en/attempts/{attempt.pk}/questions/1/"
        before = count_queries(student_client, "get", path, status=200)
        grow(student, content, other_student)
        after = count_queries(student_client, "get", path, status=200)
        assert after == before
        assert after <= CEILING

    def test_feedback_query_count_does_not_grow(self, student, other_student, student_client, content, attempt):
        self.answer_first(attempt, content)
        path = f"/ur/attempts/{attempt.pk}/questions/1/"
        before = count_queries(student_client, "get", path, status=200)
        grow(student, content, other_student)
        # the attempt's own answers grow too
        question = content[GC].questions.get(position=2)
        Answer.objects.create(
            attempt=attempt, question=question, choice=question.choices.get(position=2), is_correct=True, language="en"
        )
        after = count_queries(student_client, "get", path, status=200)
        assert after == before
        assert after <= CEILING

    def test_answer_post_query_count_does_not_grow(self, student, other_student, student_client, content, attempt):
        def post(position: int) -> int:
            question = content[GC].questions.get(position=position)
            data = {"question": question.pk, "choice": question.choices.get(position=1).pk}
            return count_queries(
                student_client, "post", f"/en/attempts/{attempt.pk}/questions/{position}/", data, status=302
            )

        before = post(1)
        grow(student, content, other_student)
        after = post(2)
        assert after == before
        assert after <= POST_CEILING

    def test_ceiling(self, student_client, attempt, django_assert_max_num_queries):
        with django_assert_max_num_queries(CEILING):
            assert student_client.get(f"/sn/attempts/{attempt.pk}/questions/1/").status_code == 200


class TestOtherPages:
    def test_quiz_page_query_count_does_not_grow(self, student, other_student, student_client, content):
        attempt_start(user=student, quiz=content[GC])
        path = f"/en/quizzes/{GC}/"
        before = count_queries(student_client, "get", path, status=200)
        Attempt.objects.filter(user=student).delete()
        grow(student, content, other_student)
        attempt_start(user=student, quiz=content[GC])
        after = count_queries(student_client, "get", path, status=200)
        assert after == before
        assert after <= CEILING

    def test_result_page_query_count_does_not_grow(self, student, other_student, student_client, content):
        def result_of_new_attempt() -> int:
            attempt, _created = attempt_start(user=student, quiz=content[GC])
            student_client.post(f"/en/attempts/{attempt.pk}/finish/")
            return count_queries(student_client, "get", f"/en/attempts/{attempt.pk}/result/", status=200)

        before = result_of_new_attempt()
        grow(student, content, other_student)
        after = result_of_new_attempt()
        assert after == before
        assert after <= CEILING

    def test_resume_query_count_does_not_grow(self, student, other_student, student_client, content):
        attempt, _created = attempt_start(user=student, quiz=content[GC])
        path = f"/en/attempts/{attempt.pk}/"
        before = count_queries(student_client, "get", path, status=302)
        grow(student, content, other_student)
        after = count_queries(student_client, "get", path, status=302)
        assert after == before
        assert after <= CEILING
