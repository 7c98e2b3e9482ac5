"""A teacher's extension saved while fifty students answer at their old deadline (PostgreSQL).

Half the class is already past the old deadline and its grace, half is not; every student
answers the quiz's questions in order until one is refused, while another thread saves a group
override of the whole class with a longer limit (``quiz_override_save``, which recomputes their
deadlines under the attempts' locks). Each answer is judged by one deadline or the other, never
a mixture: an attempt is either extended, and then every answer it acknowledged is stored, or
was refused first under its old deadline and finished, and then it kept that deadline and holds
no answer past it. Real clock: the deadlines are set far from the race's own milliseconds.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from quizzes.attempts.deadlines import DeadlinesRecomputed, quiz_override_save
from quizzes.attempts.services import AttemptError, attempt_answer_submit, attempt_start
from quizzes.models import Attempt, Course, CourseGroup, QuizOverride
from tests.concurrency import RACERS, requires_postgresql, run_together, unexpected
from tests.factories import EnrollmentFactory, UserFactory

pytestmark = [requires_postgresql, pytest.mark.django_db(transaction=True)]

GRACE = timedelta(seconds=15)
EXTENDED = timedelta(hours=2)


def test_an_extension_saved_while_fifty_students_answer_at_the_old_deadline(settings, content, gc_quiz):
    settings.ATTEMPT_DEADLINE_GRACE = GRACE
    gc_quiz.time_limit = timedelta(minutes=20)
    gc_quiz.save(update_fields=["time_limit"])
    course = Course.objects.get(slug="memory-efficient-training")
    group = CourseGroup.objects.create(course=course, name="Everyone, after the outage")
    questions = list(gc_quiz.questions.order_by("position").prefetch_related("choices"))
    right = {question.pk: next(c.pk for c in question.choices.all() if c.is_correct) for question in questions}
    now = timezone.now()
    started_at = now - timedelta(minutes=30)
    old_deadlines, attempts = {}, []
    for number in range(RACERS):
        user = UserFactory(username=f"outage-{number}")
        EnrollmentFactory(user=user, course=course)
        group.members.add(user)
        attempt = attempt_start(user=user, quiz=gc_quiz)[0]
        # Even numbers are past their deadline and its grace; odd ones have ten minutes left.
        old_deadlines[attempt.pk] = now - timedelta(minutes=10) if number % 2 == 0 else now + timedelta(minutes=10)
        Attempt.objects.filter(pk=attempt.pk).update(started_at=started_at, deadline=old_deadlines[attempt.pk])
        attempts.append(attempt)

    def answer_until_refused(index):
        attempt = attempts[index]
        acknowledged = []
        for question in questions:
            try:
                answer, _created = attempt_answer_submit(
                    user=attempt.user,
                    attempt_id=attempt.pk,
                    question_id=question.pk,
                    choice_id=right[question.pk],
                    language="en",
                )
            except AttemptError as error:
                return acknowledged, error
            acknowledged.append(answer)
        return acknowledged, None

    def call(index):
        if index < RACERS:
            return answer_until_refused(index)
        return quiz_override_save(override=QuizOverride(quiz=gc_quiz, group=group, time_limit=EXTENDED))

    outcomes = run_together(RACERS + 1, call)

    assert not unexpected(outcomes[:RACERS], tuple) and not unexpected(outcomes[RACERS:], DeadlinesRecomputed)
    done = outcomes[RACERS]
    extended = 0
    for attempt, (acknowledged, refusal) in zip(attempts, outcomes[:RACERS], strict=True):
        attempt.refresh_from_db()
        stored = {answer.pk: answer for answer in attempt.answers.all()}
        assert set(stored) == {answer.pk for answer in acknowledged}  # every acknowledged answer kept
        if attempt.deadline == started_at + EXTENDED:
            extended += 1
            assert attempt.pk in done.moved and attempt.state == Attempt.State.IN_PROGRESS
            assert refusal is None and len(acknowledged) == len(questions)
        else:  # refused under the old deadline first, and finished with what it had
            assert refusal is not None and refusal.code == "deadline_passed", refusal
            assert attempt.deadline == old_deadlines[attempt.pk] < timezone.now() - GRACE
            assert attempt.state == Attempt.State.FINISHED and attempt.pk not in done.moved
            assert all(answer.answered_at <= attempt.deadline + GRACE for answer in stored.values())
            assert attempt.score == len(stored)
    # Those never past a deadline were all extended, whenever their answers came.
    running = [attempt for number, attempt in enumerate(attempts) if number % 2]
    assert all(attempt.deadline == started_at + EXTENDED for attempt in running)
    assert extended == len(done.moved) >= len(running)
