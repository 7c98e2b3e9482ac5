"""``manage.py finish_overdue_attempts`` (for cron) and its selector, ``attempts_overdue``."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command

from quizzes.attempts.selectors import attempts_overdue
from quizzes.attempts.services import attempt_answer_submit, attempt_finish, attempt_start, practice_start
from quizzes.models import Attempt, Course
from tests.attempts.conftest import GRACE, NOW
from tests.factories import EnrollmentFactory, UserFactory

MINUTE = timedelta(minutes=1)


def student_named(username: str):
    user = UserFactory(username=username)
    EnrollmentFactory(user=user, course=Course.objects.get(slug="memory-efficient-training"))
    return user


def started(user, quiz, *, limit: timedelta, right_answers: int = 0) -> Attempt:
    """An attempt of ``user`` with a time limit of ``limit``, started now, answered right at its
    first ``right_answers`` questions."""
    quiz.time_limit = limit
    quiz.save(update_fields=["time_limit"])
    attempt, _created = attempt_start(user=user, quiz=quiz)
    for question in quiz.questions.order_by("position")[:right_answers]:
        right = question.choices.get(is_correct=True)
        attempt_answer_submit(
            user=user, attempt_id=attempt.pk, question_id=question.pk, choice_id=right.pk, language="en"
        )
    return attempt


def run(*args) -> str:
    out = StringIO()
    call_command("finish_overdue_attempts", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def three(clock, content):
    """Three attempts at gradient-checkpointing: deadlines at 10, 20 and 30 minutes."""
    quiz = content["gradient-checkpointing"]
    return [
        started(student_named(f"late-{number}"), quiz, limit=(number + 1) * 10 * MINUTE, right_answers=number + 1)
        for number in range(3)
    ]


def test_the_selector_is_is_overdue_as_a_filter(clock, three):
    first, second, _third = three
    clock.move_to(NOW + 20 * MINUTE + GRACE)  # the second's deadline + grace exactly: still taken
    assert [attempt.pk for attempt in attempts_overdue(now=NOW + 20 * MINUTE + GRACE)] == [first.pk]
    later = NOW + 20 * MINUTE + GRACE + timedelta(microseconds=1)
    overdue = attempts_overdue(now=later)
    assert [attempt.pk for attempt in overdue] == [first.pk, second.pk]
    assert overdue[0].user.username == "late-0" and overdue[0].quiz.slug == "gradient-checkpointing"


def test_finishes_each_overdue_attempt_with_its_answers(clock, three):
    first, second, third = three
    clock.move_to(NOW + 25 * MINUTE)
    assert run() == "Finished 2 overdue attempts.\n"
    for attempt, score in ((first, 1), (second, 2)):
        attempt.refresh_from_db()
        assert (attempt.state, attempt.score, attempt.finished_at) == (Attempt.State.FINISHED, score, NOW + 25 * MINUTE)
    third.refresh_from_db()
    assert third.state == Attempt.State.IN_PROGRESS
    assert run() == "Finished 0 overdue attempts.\n"


def test_dry_run_lists_them_and_finishes_none(clock, three):
    first, second, _third = three
    clock.move_to(NOW + 25 * MINUTE)
    lines = run("--dry-run").splitlines()
    assert lines == [
        f"{first.pk}\tlate-0\tgradient-checkpointing\t{first.deadline.isoformat()}",
        f"{second.pk}\tlate-1\tgradient-checkpointing\t{second.deadline.isoformat()}",
        "2 overdue attempts would be finished.",
    ]
    assert Attempt.objects.filter(state=Attempt.State.IN_PROGRESS).count() == 3


def test_leaves_attempts_without_deadline_and_practice(clock, content):
    quiz = content["gradient-checkpointing"]
    user = student_named("no-limit")
    attempt, _created = attempt_start(user=user, quiz=quiz)
    finished = attempt_start(user=student_named("practising"), quiz=quiz)[0]
    attempt_finish(attempt=finished)
    practice, _created = practice_start(user=finished.user, attempt_id=finished.pk)
    clock.move_to(NOW + timedelta(days=365))
    assert run() == "Finished 0 overdue attempts.\n"
    assert Attempt.objects.get(pk=attempt.pk).state == Attempt.State.IN_PROGRESS
    assert Attempt.objects.get(pk=practice.pk).state == Attempt.State.IN_PROGRESS
