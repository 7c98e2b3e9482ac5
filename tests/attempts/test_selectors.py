"""Reads: a student's progress at each quiz, the student's courses, joinable courses."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from quizzes.attempts.selectors import (
    published_quiz_get,
    student_attempt_get,
    student_courses,
    student_dashboard,
    student_quiz_get,
    student_quizzes,
)
from quizzes.attempts.services import attempt_answer_submit, attempt_finish, attempt_start
from quizzes.models import Attempt, Quiz
from tests.factories import AttemptFactory, CourseFactory, EnrollmentFactory, QuizFactory, UserFactory
from tests.progress_oracle import progress_of, student_quizzes_oracle

GC = "gradient-checkpointing"
AR = "activation-recomputation-tradeoffs"


def finished(user, quiz, score: int, *, number: int | None = None, max_score: int = 8, pass_mark: int = 70):
    number = number or Attempt.objects.filter(user=user, quiz=quiz).count() + 1
    return AttemptFactory(
        user=user, quiz=quiz, number=number, finished=True, score=score, max_score=max_score, pass_mark=pass_mark
    )


def progress(user) -> dict:
    """The quizzes of ``user``'s courses with their progress, as production reads them; the ORM
    oracle (the database adding up grading's expressions) must say the same."""
    found = {quiz.slug: quiz for quiz in student_quizzes(user=user)}
    oracle = {quiz.slug: progress_of(quiz) for quiz in student_quizzes_oracle(user=user)}
    assert {slug: progress_of(quiz) for slug, quiz in found.items()} == oracle
    return found


class TestQuizProgress:
    def test_no_attempts(self, student, content):
        rows = progress(student)
        assert set(rows) == {GC, AR}
        for quiz in rows.values():
            assert quiz.attempts_used == 0
            assert quiz.best_percent is None
            assert quiz.passed is False
            assert quiz.in_progress_id is None

    def test_ordered_by_position(self, student, content):
        assert [quiz.slug for quiz in student_quizzes(user=student)] == [GC, AR]

    def test_only_published_quizzes(self, student, content):
        content[AR].is_published = False
        content[AR].save()
        assert set(progress(student)) == {GC}

    def test_in_progress_attempt(self, student, content):
        attempt, _created = attempt_start(user=student, quiz=content[GC])
        row = progress(student)[GC]
        assert row.attempts_used == 1
        assert row.in_progress_id == attempt.pk
        assert row.best_percent is None  # an attempt in progress has no grade yet
        assert row.passed is False
        assert progress(student)[AR].in_progress_id is None

    def test_best_finished_attempt(self, student, content):
        quiz = content[GC]
        finished(student, quiz, 5)  # 62%
        finished(student, quiz, 7)  # 87%
        finished(student, quiz, 2)  # 25%
        row = progress(student)[GC]
        assert row.attempts_used == 3
        assert row.best_percent == 87  # rounded down, as Attempt.percent
        assert row.passed is True
        assert row.in_progress_id is None

    def test_best_percent_rounds_down_like_attempt_percent(self, student, content):
        attempt = finished(student, content[GC], 2, max_score=3)
        assert progress(student)[GC].best_percent == attempt.percent == 66

    def test_in_progress_and_other_users_are_ignored_for_the_grade(self, student, other_student, content):
        quiz = content[GC]
        finished(student, quiz, 3)  # 37%, failed
        finished(other_student, quiz, 8)  # someone else's 100%
        # An in-progress attempt of mine cannot hold a score (database constraint),
        # so the grade must come from finished attempts only.
        current, _created = attempt_start(user=student, quiz=quiz)
        row = progress(student)[GC]
        assert row.attempts_used == 2
        assert row.best_percent == 37
        assert row.passed is False
        assert row.in_progress_id == current.pk

        theirs = progress(other_student)[GC]
        assert (theirs.attempts_used, theirs.best_percent, theirs.passed, theirs.in_progress_id) == (1, 100, True, None)

    def test_passed_uses_the_pass_mark_copied_into_the_attempt(self, student, content):
        quiz = content[GC]
        finished(student, quiz, 5, pass_mark=60)  # 62.5% >= 60%
        quiz.pass_mark = 100
        quiz.save()
        assert progress(student)[GC].passed is True

    def test_passed_is_exact_not_from_the_rounded_percent(self, student, content):
        # 2/3 = 66.67%: shown as 66%, yet it reaches a pass mark of 66 and not 67.
        finished(student, content[GC], 2, max_score=3, pass_mark=67)
        assert progress(student)[GC].passed is False
        finished(student, content[AR], 2, max_score=3, pass_mark=66)
        assert progress(student)[AR].passed is True

    def test_passed_if_any_finished_attempt_passed(self, student, content):
        quiz = content[GC]
        finished(student, quiz, 8)
        finished(student, quiz, 0)
        row = progress(student)[GC]
        assert row.passed is True
        assert row.best_percent == 100

    def test_a_user_without_attempts_sees_nothing_of_others(self, student, other_student, content):
        attempt, _created = attempt_start(user=other_student, quiz=content[GC])
        choice = content[GC].questions.get(position=1).choices.get(is_correct=True)
        attempt_answer_submit(
            user=attempt.user, attempt_id=attempt.pk, question_id=choice.question_id, choice_id=choice.pk, language="en"
        )
        attempt_finish(attempt=attempt)
        row = progress(student)[GC]
        assert (row.attempts_used, row.best_percent, row.passed, row.in_progress_id) == (0, None, False, None)

    def test_each_quiz_counted_separately(self, student, content):
        finished(student, content[GC], 8)
        finished(student, content[GC], 8)
        attempt_start(user=student, quiz=content[AR])
        rows = progress(student)
        assert (rows[GC].attempts_used, rows[AR].attempts_used) == (2, 1)
        assert rows[AR].best_percent is None

    def test_long_quiz_best_percent(self, student, content):
        # score * 100 goes past a small integer (400 * 100 > 32767) without overflowing.
        finished(student, content[GC], 399, max_score=400, pass_mark=50)
        row = progress(student)[GC]
        assert (row.best_percent, row.passed) == (99, True)

    def test_long_quiz_with_a_high_pass_mark_does_not_overflow(self, student, content):
        finished(student, content[GC], 400, max_score=400, pass_mark=100)
        row = progress(student)[GC]
        assert (row.best_percent, row.passed) == (100, True)


class TestStudentCourses:
    def test_only_enrolled_courses(self, student, content):
        EnrollmentFactory(user=UserFactory(), course=CourseFactory(slug="not-mine"))
        other = CourseFactory(slug="also-mine")
        EnrollmentFactory(user=student, course=other)
        assert [course.slug for course in student_courses(user=student)] == ["also-mine", "memory-efficient-training"]

    def test_not_enrolled_anywhere(self, outsider):
        assert list(student_courses(user=outsider)) == []

    def test_progress_quizzes_prefetched_with_annotations(self, student, content, django_assert_num_queries):
        finished(student, content[GC], 6)
        with django_assert_num_queries(1):
            courses = list(student_courses(user=student))
            quizzes = courses[0].progress_quizzes
        assert [quiz.slug for quiz in quizzes] == [GC, AR]
        assert (quizzes[0].best_percent, quizzes[0].passed, quizzes[0].attempts_used) == (75, True, 1)
        assert quizzes[1].attempts_used == 0

    def test_progress_quizzes_exclude_unpublished_and_other_courses(self, student, content):
        QuizFactory(course=content[GC].course, is_published=False, slug="draft")
        QuizFactory(course=CourseFactory(), slug="elsewhere")
        (course,) = student_courses(user=student)
        assert [quiz.slug for quiz in course.progress_quizzes] == [GC, AR]

    def test_one_row_per_course_even_with_many_enrollments(self, student, other_student, content):
        (course,) = student_courses(user=student)
        assert course.slug == "memory-efficient-training"


class TestJoinableCourses:
    def test_open_courses_not_joined(self, outsider, content):
        CourseFactory(slug="closed", allow_self_enrollment=False)
        CourseFactory(slug="open", allow_self_enrollment=True)
        assert [course.slug for course in student_dashboard(user=outsider)[1]] == ["memory-efficient-training", "open"]

    def test_joined_courses_are_not_joinable(self, student, other_student, content):
        CourseFactory(slug="open", allow_self_enrollment=True)
        assert [course.slug for course in student_dashboard(user=student)[1]] == ["open"]

    def test_other_peoples_enrollments_do_not_hide_a_course(self, outsider, student, content):
        assert "memory-efficient-training" in {course.slug for course in student_dashboard(user=outsider)[1]}


class TestSmallReads:
    def test_published_quiz_get(self, content):
        assert published_quiz_get(slug=GC).course.slug == "memory-efficient-training"
        content[GC].is_published = False
        content[GC].save()
        with pytest.raises(content[GC].DoesNotExist):
            published_quiz_get(slug=GC)

    def test_student_quiz_get_newest_first_own_only_with_progress(self, student, other_student, outsider, content):
        finished(student, content[GC], 1)
        finished(student, content[GC], 2)
        finished(other_student, content[GC], 3)
        with CaptureQueriesContext(connection) as queries:
            quiz, enrolled, attempts = student_quiz_get(user=student, slug=GC)
        assert len(queries) == (1 if connection.vendor == "postgresql" else 4)  # one message on PostgreSQL
        assert enrolled is True and [attempt.number for attempt in attempts] == [2, 1]
        assert quiz.course.slug == "memory-efficient-training" and quiz.attempts_used == 2
        assert quiz.in_progress_id is None
        assert student_quiz_get(user=outsider, slug=GC)[1:] == (False, [])
        content[GC].is_published = False
        content[GC].save()
        with pytest.raises(Quiz.DoesNotExist):
            student_quiz_get(user=student, slug=GC)

    def test_student_attempt_get_refuses_someone_elses(self, student, other_student, content):
        theirs = finished(other_student, content[GC], 1)
        with pytest.raises(Attempt.DoesNotExist):
            student_attempt_get(user=student, attempt_id=theirs.pk)
        assert student_attempt_get(user=other_student, attempt_id=theirs.pk).pk == theirs.pk
