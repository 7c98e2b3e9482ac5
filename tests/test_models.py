"""Every invariant of the content and the records is kept by the database."""

import re
from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone, translation

from quizzes.models import Attempt, Choice, Course, Enrollment, Question, Quiz
from tests.factories import (
    AnswerFactory,
    AttemptFactory,
    ChoiceFactory,
    CourseFactory,
    EnrollmentFactory,
    QuestionFactory,
    QuizFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def violates(constraint: str, *sqlite_columns: str):
    """Expect an IntegrityError from ``constraint``.

    PostgreSQL names the constraint; SQLite names a CHECK or a partial unique
    index, but for a plain UNIQUE constraint only lists its columns.
    """
    names = [re.escape(constraint)]
    if sqlite_columns:
        names.append(re.escape("UNIQUE constraint failed: " + ", ".join(sqlite_columns)))
    return pytest.raises(IntegrityError, match="|".join(names))


class TestAnswer:
    def test_second_answer_to_the_same_question_is_refused(self):
        answer = AnswerFactory()
        other_choice = ChoiceFactory(question=answer.question)
        with violates("answer_one_per_question_per_attempt", "quizzes_answer.attempt_id", "quizzes_answer.question_id"):
            with transaction.atomic():
                AnswerFactory(attempt=answer.attempt, question=answer.question, choice=other_choice)

    def test_answers_to_different_questions_of_an_attempt_are_fine(self):
        answer = AnswerFactory()
        AnswerFactory(attempt=answer.attempt)
        assert answer.attempt.answers.count() == 2


class TestPositions:
    def test_question_position_unique_within_quiz(self):
        question = QuestionFactory(position=1)
        with violates("question_unique_position_in_quiz", "quizzes_question.quiz_id", "quizzes_question.position"):
            with transaction.atomic():
                QuestionFactory(quiz=question.quiz, position=1)

    def test_same_question_position_in_another_quiz_is_fine(self):
        QuestionFactory(position=1)
        QuestionFactory(position=1)
        assert Question.objects.filter(position=1).count() == 2

    def test_choice_position_unique_within_question(self):
        choice = ChoiceFactory(position=1)
        with violates("choice_unique_position_in_question", "quizzes_choice.question_id", "quizzes_choice.position"):
            with transaction.atomic():
                ChoiceFactory(question=choice.question, position=1)

    def test_question_position_zero_refused(self):
        with violates("question_position_positive"), transaction.atomic():
            QuestionFactory(position=0)

    def test_choice_position_zero_refused(self):
        with violates("choice_position_positive"), transaction.atomic():
            ChoiceFactory(position=0)


class TestAttempt:
    def test_second_attempt_in_progress_refused(self):
        attempt = AttemptFactory(number=1)
        with violates("attempt_one_in_progress_per_user_quiz", "quizzes_attempt.user_id", "quizzes_attempt.quiz_id"):
            with transaction.atomic():
                AttemptFactory(user=attempt.user, quiz=attempt.quiz, number=2)

    def test_in_progress_attempts_of_other_users_or_quizzes_are_fine(self):
        attempt = AttemptFactory(number=1)
        AttemptFactory(user=attempt.user, number=1)
        AttemptFactory(quiz=attempt.quiz, number=1)
        assert Attempt.objects.filter(state=Attempt.State.IN_PROGRESS).count() == 3

    def test_finished_attempts_do_not_count_against_in_progress(self):
        first = AttemptFactory(number=1, finished=True)
        AttemptFactory(user=first.user, quiz=first.quiz, number=2, finished=True)
        AttemptFactory(user=first.user, quiz=first.quiz, number=3)
        assert Attempt.objects.filter(user=first.user, quiz=first.quiz).count() == 3

    def test_attempt_number_unique_per_user_and_quiz(self):
        attempt = AttemptFactory(number=1, finished=True)
        with violates(
            "attempt_unique_number",
            "quizzes_attempt.user_id",
            "quizzes_attempt.quiz_id",
            "quizzes_attempt.is_practice",
            "quizzes_attempt.number",
        ):
            with transaction.atomic():
                AttemptFactory(user=attempt.user, quiz=attempt.quiz, number=1)

    def test_practice_attempts_are_numbered_and_in_progress_apart(self):
        graded = AttemptFactory(number=1)
        practice = AttemptFactory(user=graded.user, quiz=graded.quiz, number=1, is_practice=True)
        assert {graded.state, practice.state} == {Attempt.State.IN_PROGRESS}
        columns = ("quizzes_attempt.user_id", "quizzes_attempt.quiz_id", "quizzes_attempt.is_practice")
        with violates("attempt_one_in_progress_per_user_quiz", *columns), transaction.atomic():
            AttemptFactory(user=graded.user, quiz=graded.quiz, number=2, is_practice=True)

    def test_deadline_before_the_start_refused(self):
        attempt = AttemptFactory(number=1)
        with violates("attempt_deadline_after_start"), transaction.atomic():
            Attempt.objects.filter(pk=attempt.pk).update(deadline=attempt.started_at - timedelta(seconds=1))

    def test_attempt_number_zero_refused(self):
        with violates("attempt_number_positive"), transaction.atomic():
            AttemptFactory(number=0)

    def test_score_above_max_refused(self):
        with violates("attempt_score_within_max"), transaction.atomic():
            AttemptFactory(finished=True, score=9, max_score=8)

    def test_score_equal_to_max_is_fine(self):
        attempt = AttemptFactory(finished=True, score=8, max_score=8)
        assert attempt.score == attempt.max_score

    def test_finished_without_finished_at_refused(self):
        with violates("attempt_finished_has_time_and_score"), transaction.atomic():
            AttemptFactory(finished=True, finished_at=None)

    def test_finished_without_score_refused(self):
        with violates("attempt_finished_has_time_and_score"), transaction.atomic():
            AttemptFactory(finished=True, score=None)

    def test_in_progress_with_score_refused(self):
        with violates("attempt_finished_has_time_and_score"), transaction.atomic():
            AttemptFactory(score=3)

    def test_in_progress_with_finished_at_refused(self):
        with violates("attempt_finished_has_time_and_score"), transaction.atomic():
            AttemptFactory(finished_at=timezone.now())

    def test_attempt_pass_mark_above_100_refused(self):
        with violates("attempt_pass_mark_at_most_100"), transaction.atomic():
            AttemptFactory(pass_mark=101)


class TestQuiz:
    def test_pass_mark_above_100_refused(self):
        with violates("quiz_pass_mark_at_most_100"), transaction.atomic():
            QuizFactory(pass_mark=101)

    def test_pass_mark_100_is_fine(self):
        assert QuizFactory(pass_mark=100).pass_mark == 100

    def test_slug_unique(self):
        QuizFactory(slug="same")
        with pytest.raises(IntegrityError), transaction.atomic():
            QuizFactory(slug="same")


class TestEnglishRequired:
    @pytest.mark.parametrize("empty", [None, ""])
    def test_course_title(self, empty):
        with violates("course_title_en_present"), transaction.atomic():
            CourseFactory(title_en=empty, title_ur="کورس")

    @pytest.mark.parametrize("empty", [None, ""])
    def test_quiz_title(self, empty):
        with violates("quiz_title_en_present"), transaction.atomic():
            QuizFactory(title_en=empty, title_ur="کوئز")

    @pytest.mark.parametrize("empty", [None, ""])
    def test_question_text(self, empty):
        with violates("question_text_en_present"), transaction.atomic():
            QuestionFactory(text_en=empty, text_sn="Mubvunzo?")

    @pytest.mark.parametrize("empty", [None, ""])
    def test_choice_text(self, empty):
        with violates("choice_text_en_present"), transaction.atomic():
            ChoiceFactory(text_en=empty, text_ind="Pilihan")

    def test_quiz_created_through_the_base_field_in_urdu_is_refused(self):
        # `title=` writes the active language's column, so no English title.
        course = CourseFactory()
        with translation.override("ur"):
            with violates("quiz_title_en_present"), transaction.atomic():
                Quiz.objects.create(course=course, slug="urdu-only", title="صرف اردو")
        assert not Quiz.objects.filter(slug="urdu-only").exists()

    def test_translations_may_be_empty(self):
        question = QuestionFactory(text_ur=None, text_sn="", explanation_en="")
        question.refresh_from_db()
        assert question.text_en
        assert question.text_ur is None


class TestEnrollment:
    def test_enrolling_twice_refused(self):
        enrollment = EnrollmentFactory()
        with violates("enrollment_unique_user_course", "quizzes_enrollment.user_id", "quizzes_enrollment.course_id"):
            with transaction.atomic():
                Enrollment.objects.create(user=enrollment.user, course=enrollment.course)

    def test_same_user_in_two_courses_is_fine(self):
        user = UserFactory()
        EnrollmentFactory(user=user)
        EnrollmentFactory(user=user)
        assert user.enrollments.count() == 2


class TestNaturalKeys:
    def test_round_trip(self):
        choice = ChoiceFactory(position=3, question__position=2, question__quiz__slug="nk-quiz")
        question = choice.question
        quiz = question.quiz
        course = quiz.course
        assert quiz.natural_key() == ("nk-quiz",)
        assert question.natural_key() == ("nk-quiz", 2)
        assert choice.natural_key() == ("nk-quiz", 2, 3)
        assert Course.objects.get_by_natural_key(*course.natural_key()) == course
        assert Quiz.objects.get_by_natural_key(*quiz.natural_key()) == quiz
        assert Question.objects.get_by_natural_key(*question.natural_key()) == question
        assert Choice.objects.get_by_natural_key(*choice.natural_key()) == choice

    def test_same_positions_in_another_quiz_are_told_apart(self):
        first = ChoiceFactory(position=1, question__position=1, question__quiz__slug="first")
        second = ChoiceFactory(position=1, question__position=1, question__quiz__slug="second")
        assert Choice.objects.get_by_natural_key("first", 1, 1) == first
        assert Choice.objects.get_by_natural_key("second", 1, 1) == second
