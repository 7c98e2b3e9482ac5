"""The teacher's dates, time limit and attempts through the services, on a controlled clock:
what a start sets and refuses, what an answer past the deadline does, and practice attempts
beside graded ones."""

from datetime import timedelta

import pytest

from common.dates import local_datetime
from quizzes.attempts.services import (
    DEADLINE_PASSED,
    NO_ATTEMPTS_LEFT,
    QUIZ_CLOSED,
    QUIZ_NOT_OPEN,
    AttemptError,
    attempt_answer_submit,
    attempt_finish,
    attempt_start,
    practice_start,
)
from quizzes.models import Answer, Attempt, CourseGroup, QuizOverride
from tests.attempts.conftest import GRACE, NOW
from tests.factories import UserFactory

MINUTE, HOUR, DAY = timedelta(minutes=1), timedelta(hours=1), timedelta(days=1)


def configure(quiz, **settings):
    for name, value in settings.items():
        setattr(quiz, name, value)
    quiz.save(update_fields=list(settings))
    return quiz


def choice(quiz, position: int, *, correct: bool):
    return quiz.questions.get(position=position).choices.filter(is_correct=correct).order_by("position").first()


def answer(attempt, quiz, position: int, *, correct: bool = True):
    picked = choice(quiz, position, correct=correct)
    return attempt_answer_submit(
        user=attempt.user, attempt_id=attempt.pk, question_id=picked.question_id, choice_id=picked.pk, language="en"
    )


def snapshot():
    """Every attempt and answer, as values: a refused write leaves this unchanged."""
    return list(Attempt.objects.order_by("pk").values()), list(Answer.objects.order_by("pk").values())


def group_of(student, quiz, **settings) -> QuizOverride:
    group = CourseGroup.objects.create(course_id=quiz.course_id, name=f"group {CourseGroup.objects.count()}")
    group.members.add(student)
    return QuizOverride.objects.create(quiz=quiz, group=group, **settings)


# The deadline a start sets -------------------------------------------------------------------


class TestStartSetsTheDeadline:
    def test_start_plus_the_time_limit(self, clock, student, gc_quiz):
        configure(gc_quiz, time_limit=20 * MINUTE)
        attempt, created = attempt_start(user=student, quiz=gc_quiz)
        assert created and attempt.started_at == NOW
        assert attempt.deadline == NOW + 20 * MINUTE
        assert Attempt.objects.get(pk=attempt.pk).deadline == NOW + 20 * MINUTE

    def test_the_close_date_when_it_comes_first(self, clock, student, gc_quiz):
        configure(gc_quiz, time_limit=HOUR, closes_at=NOW + 10 * MINUTE)
        attempt, _created = attempt_start(user=student, quiz=gc_quiz)
        assert attempt.deadline == NOW + 10 * MINUTE

    def test_the_close_date_without_a_limit(self, clock, student, gc_quiz):
        configure(gc_quiz, closes_at=NOW + DAY)
        attempt, _created = attempt_start(user=student, quiz=gc_quiz)
        assert attempt.deadline == NOW + DAY

    def test_none_without_limit_or_close(self, clock, student, gc_quiz):
        attempt, _created = attempt_start(user=student, quiz=gc_quiz)
        assert attempt.deadline is None

    def test_a_students_override_gives_more_time(self, clock, student, gc_quiz):
        configure(gc_quiz, time_limit=20 * MINUTE, closes_at=NOW + 30 * MINUTE)
        QuizOverride.objects.create(quiz=gc_quiz, user=student, time_limit=HOUR, closes_at=NOW + 2 * HOUR)
        attempt, _created = attempt_start(user=student, quiz=gc_quiz)
        assert attempt.deadline == NOW + HOUR

    def test_a_groups_override_gives_more_time(self, clock, student, gc_quiz):
        configure(gc_quiz, time_limit=20 * MINUTE)
        group_of(student, gc_quiz, time_limit=30 * MINUTE)
        group_of(student, gc_quiz, time_limit=40 * MINUTE)
        attempt, _created = attempt_start(user=student, quiz=gc_quiz)
        assert attempt.deadline == NOW + 40 * MINUTE

    def test_another_students_override_is_not_mine(self, clock, student, gc_quiz):
        configure(gc_quiz, time_limit=20 * MINUTE)
        QuizOverride.objects.create(quiz=gc_quiz, user=UserFactory(), time_limit=HOUR)
        attempt, _created = attempt_start(user=student, quiz=gc_quiz)
        assert attempt.deadline == NOW + 20 * MINUTE


# Starts refused by the dates -----------------------------------------------------------------


class TestStartRefused:
    def test_before_the_quiz_opens(self, clock, student, gc_quiz):
        configure(gc_quiz, opens_at=NOW + timedelta(microseconds=1))
        before = snapshot()
        with pytest.raises(AttemptError) as refused:
            attempt_start(user=student, quiz=gc_quiz)
        assert (refused.value.code, refused.value.status) == ("quiz_not_open", 403)
        assert refused.value.message == QUIZ_NOT_OPEN % {"date": local_datetime(gc_quiz.opens_at)}
        assert snapshot() == before

    def test_from_the_opening_on(self, clock, student, gc_quiz):
        configure(gc_quiz, opens_at=NOW)
        _attempt, created = attempt_start(user=student, quiz=gc_quiz)
        assert created

    def test_once_the_quiz_closed(self, clock, student, gc_quiz):
        configure(gc_quiz, closes_at=NOW)
        before = snapshot()
        with pytest.raises(AttemptError) as refused:
            attempt_start(user=student, quiz=gc_quiz)
        assert (refused.value.code, refused.value.status) == ("quiz_closed", 403)
        assert refused.value.message == QUIZ_CLOSED % {"date": local_datetime(gc_quiz.closes_at)}
        assert snapshot() == before

    def test_an_override_opens_it_earlier_for_me(self, clock, student, gc_quiz):
        configure(gc_quiz, opens_at=NOW + DAY, closes_at=NOW + 2 * DAY)
        QuizOverride.objects.create(quiz=gc_quiz, user=student, opens_at=NOW - HOUR)
        _attempt, created = attempt_start(user=student, quiz=gc_quiz)
        assert created

    def test_a_groups_override_keeps_it_open_later(self, clock, student, gc_quiz):
        configure(gc_quiz, closes_at=NOW - HOUR)
        group_of(student, gc_quiz, closes_at=NOW + HOUR)
        attempt, created = attempt_start(user=student, quiz=gc_quiz)
        assert created and attempt.deadline == NOW + HOUR

    def test_an_attempt_in_progress_is_resumed_until_its_deadline(self, clock, student, gc_quiz):
        configure(gc_quiz, closes_at=NOW + HOUR)
        first, _created = attempt_start(user=student, quiz=gc_quiz)
        clock.move_to(NOW + HOUR + GRACE)  # closed, but this attempt still takes answers
        again, created = attempt_start(user=student, quiz=gc_quiz)
        assert not created and again.pk == first.pk


# An overdue attempt, when it is next touched --------------------------------------------------


class TestOverdue:
    def test_starting_again_finishes_it_and_starts_the_next(self, clock, student, gc_quiz):
        configure(gc_quiz, time_limit=10 * MINUTE)
        first, _created = attempt_start(user=student, quiz=gc_quiz)
        answer(first, gc_quiz, 1)
        answer(first, gc_quiz, 2, correct=False)
        clock.move_to(NOW + 10 * MINUTE + GRACE + timedelta(microseconds=1))
        second, created = attempt_start(user=student, quiz=gc_quiz)
        assert created and second.number == 2
        first.refresh_from_db()
        assert first.state == Attempt.State.FINISHED
        assert first.score == 1
        assert first.finished_at == NOW + 10 * MINUTE + GRACE + timedelta(microseconds=1)

    def test_starting_again_finishes_it_even_when_no_attempt_is_left(self, clock, student, gc_quiz):
        configure(gc_quiz, time_limit=10 * MINUTE, max_attempts=1)
        first, _created = attempt_start(user=student, quiz=gc_quiz)
        answer(first, gc_quiz, 1)
        clock.move_to(NOW + HOUR)
        with pytest.raises(AttemptError) as refused:
            attempt_start(user=student, quiz=gc_quiz)
        assert refused.value.code == "no_attempts_left"
        first.refresh_from_db()
        assert (first.state, first.score) == (Attempt.State.FINISHED, 1)

    def test_starting_again_finishes_it_even_once_the_quiz_closed(self, clock, student, gc_quiz):
        configure(gc_quiz, closes_at=NOW + HOUR)
        first, _created = attempt_start(user=student, quiz=gc_quiz)
        answer(first, gc_quiz, 1)
        clock.move_to(NOW + 2 * HOUR)
        with pytest.raises(AttemptError) as refused:
            attempt_start(user=student, quiz=gc_quiz)
        assert refused.value.code == "quiz_closed"
        assert Attempt.objects.filter(user=student).count() == 1
        first.refresh_from_db()
        assert (first.state, first.score) == (Attempt.State.FINISHED, 1)

    def test_a_late_answer_is_refused_and_finishes_the_attempt(self, clock, student, gc_quiz):
        configure(gc_quiz, time_limit=10 * MINUTE)
        attempt, _created = attempt_start(user=student, quiz=gc_quiz)
        answer(attempt, gc_quiz, 1)
        late = NOW + 10 * MINUTE + GRACE + timedelta(seconds=1)
        clock.move_to(late)
        answers_before = list(Answer.objects.order_by("pk").values())
        with pytest.raises(AttemptError) as refused:
            answer(attempt, gc_quiz, 2)
        assert (refused.value.code, refused.value.status) == ("deadline_passed", 409)
        assert refused.value.message == DEADLINE_PASSED % {"time": local_datetime(attempt.deadline)}
        assert list(Answer.objects.order_by("pk").values()) == answers_before
        attempt.refresh_from_db()
        assert (attempt.state, attempt.score, attempt.finished_at) == (Attempt.State.FINISHED, 1, late)

    def test_after_the_late_answer_the_attempt_is_finished(self, clock, student, gc_quiz):
        configure(gc_quiz, time_limit=10 * MINUTE)
        attempt, _created = attempt_start(user=student, quiz=gc_quiz)
        clock.move_to(NOW + HOUR)
        with pytest.raises(AttemptError):
            answer(attempt, gc_quiz, 1)
        with pytest.raises(AttemptError) as again:
            answer(attempt, gc_quiz, 1)
        assert again.value.code == "attempt_finished"

    @pytest.mark.parametrize("after_deadline", [timedelta(0), GRACE / 2, GRACE])
    def test_an_answer_within_the_grace_is_taken(self, clock, student, gc_quiz, after_deadline):
        configure(gc_quiz, time_limit=10 * MINUTE)
        attempt, _created = attempt_start(user=student, quiz=gc_quiz)
        clock.move_to(NOW + 10 * MINUTE + after_deadline)
        recorded, created = answer(attempt, gc_quiz, 1)
        assert created and recorded.is_correct
        assert recorded.answered_at == NOW + 10 * MINUTE + after_deadline
        # Still in progress: finishing it counts the answer given in the grace.
        assert attempt_finish(attempt=attempt).score == 1

    def test_a_retry_of_a_recorded_answer_after_the_grace_is_refused(self, clock, student, gc_quiz):
        configure(gc_quiz, time_limit=10 * MINUTE)
        attempt, _created = attempt_start(user=student, quiz=gc_quiz)
        answer(attempt, gc_quiz, 1)
        clock.move_to(NOW + HOUR)
        with pytest.raises(AttemptError) as refused:
            answer(attempt, gc_quiz, 1)
        assert refused.value.code == "deadline_passed"
        assert Answer.objects.filter(attempt=attempt).count() == 1
        attempt.refresh_from_db()
        assert attempt.score == 1


# Attempts: overrides and practice ------------------------------------------------------------


def finish_one(student, quiz, *, correct_first: bool = False) -> Attempt:
    attempt, _created = attempt_start(user=student, quiz=quiz)
    answer(attempt, quiz, 1, correct=correct_first)
    return attempt_finish(attempt=attempt)


class TestAttempts:
    def test_a_students_override_gives_more_attempts(self, clock, student, gc_quiz):
        configure(gc_quiz, max_attempts=1)
        QuizOverride.objects.create(quiz=gc_quiz, user=student, max_attempts=2)
        finish_one(student, gc_quiz)
        second = finish_one(student, gc_quiz)
        assert second.number == 2
        with pytest.raises(AttemptError) as refused:
            attempt_start(user=student, quiz=gc_quiz)
        assert (refused.value.code, refused.value.message) == ("no_attempts_left", NO_ATTEMPTS_LEFT)

    def test_an_override_of_unlimited_attempts(self, clock, student, gc_quiz):
        configure(gc_quiz, max_attempts=1)
        group_of(student, gc_quiz, max_attempts=0)
        for _ in range(3):
            finish_one(student, gc_quiz)
        assert Attempt.objects.filter(user=student, is_practice=False).count() == 3

    def test_an_override_of_fewer_attempts(self, clock, student, gc_quiz):
        configure(gc_quiz, max_attempts=3)
        QuizOverride.objects.create(quiz=gc_quiz, user=student, max_attempts=1)
        finish_one(student, gc_quiz)
        with pytest.raises(AttemptError) as refused:
            attempt_start(user=student, quiz=gc_quiz)
        assert refused.value.code == "no_attempts_left"

    def test_practice_is_not_counted_in_the_attempts_used(self, clock, student, gc_quiz):
        configure(gc_quiz, max_attempts=2)
        first = finish_one(student, gc_quiz)
        practice, created = practice_start(user=student, attempt_id=first.pk)
        assert created and practice.is_practice and practice.deadline is None
        attempt_finish(attempt=practice)
        second, created = attempt_start(user=student, quiz=gc_quiz)
        assert created and second.number == 2 and not second.is_practice

    def test_a_practice_in_progress_does_not_block_a_graded_start(self, clock, student, gc_quiz):
        configure(gc_quiz, time_limit=10 * MINUTE)
        first = finish_one(student, gc_quiz)
        practice, _created = practice_start(user=student, attempt_id=first.pk)
        graded, created = attempt_start(user=student, quiz=gc_quiz)
        assert created and graded.pk != practice.pk and not graded.is_practice
        assert graded.deadline == NOW + 10 * MINUTE
        practice.refresh_from_db()
        assert practice.state == Attempt.State.IN_PROGRESS

    def test_a_graded_attempt_in_progress_does_not_block_a_practice(self, clock, student, gc_quiz):
        first = finish_one(student, gc_quiz)
        graded, _created = attempt_start(user=student, quiz=gc_quiz)
        practice, created = practice_start(user=student, attempt_id=first.pk)
        assert created and practice.is_practice and practice.pk != graded.pk
        assert Attempt.objects.get(pk=graded.pk).state == Attempt.State.IN_PROGRESS

    def test_a_practice_has_no_deadline_and_is_never_overdue(self, clock, student, gc_quiz):
        configure(gc_quiz, time_limit=10 * MINUTE)
        first = finish_one(student, gc_quiz)
        practice, _created = practice_start(user=student, attempt_id=first.pk)
        clock.move_to(NOW + DAY)
        question = practice.drawn_layout[0].question_id
        right = gc_quiz.questions.get(pk=question).choices.get(is_correct=True)
        recorded, created = attempt_answer_submit(
            user=student, attempt_id=practice.pk, question_id=question, choice_id=right.pk, language="en"
        )
        assert created and recorded.is_correct
