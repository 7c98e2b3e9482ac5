"""The teacher's settings as they apply to one student (quizzes/attempts/rules.py): overrides,
deadlines, the grace, the review and the time left.

The rules are plain functions of the quiz, its overrides, the attempt and a time: most tests
here need no database. The grace's edge is also checked through the answer's INSERT, whose
condition (``deadline >= cutoff``, quizzes/attempts/queries.py) must agree with
``rules.is_overdue`` to the microsecond.
"""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from quizzes.attempts import rules
from quizzes.attempts.services import AttemptError, attempt_answer_submit, attempt_start
from quizzes.models import Answer, Attempt, FeedbackTiming, Quiz, QuizOverride

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
HOUR, DAY = timedelta(hours=1), timedelta(days=1)
GRACE = timedelta(seconds=15)


def quiz(**settings) -> Quiz:
    values = {"opens_at": None, "closes_at": None, "time_limit": None, "max_attempts": 0, **settings}
    return Quiz(**values)


def mine(**settings) -> QuizOverride:
    return QuizOverride(user_id=1, **settings)


def group(**settings) -> QuizOverride:
    return QuizOverride(group_id=settings.pop("group_id", 1), **settings)


@pytest.fixture(autouse=True)
def grace(settings):
    settings.ATTEMPT_DEADLINE_GRACE = GRACE


# quiz_rules: the quiz's settings, each replaced by an override --------------------------------


class TestQuizRules:
    def test_without_override_the_quizs_settings(self):
        assert rules.quiz_rules(quiz(opens_at=NOW, closes_at=NOW + DAY, time_limit=HOUR, max_attempts=2)) == (
            rules.QuizRules(opens_at=NOW, closes_at=NOW + DAY, time_limit=HOUR, max_attempts=2)
        )

    def test_a_users_override_replaces_what_it_sets(self):
        found = rules.quiz_rules(
            quiz(opens_at=NOW, closes_at=NOW + DAY, time_limit=HOUR, max_attempts=2),
            [mine(opens_at=NOW - DAY, closes_at=NOW + 2 * DAY, time_limit=2 * HOUR, max_attempts=5)],
        )
        assert found == rules.QuizRules(NOW - DAY, NOW + 2 * DAY, 2 * HOUR, 5)

    def test_a_users_override_may_be_stricter(self):
        found = rules.quiz_rules(quiz(time_limit=HOUR, max_attempts=3), [mine(time_limit=HOUR / 2, max_attempts=1)])
        assert (found.time_limit, found.max_attempts) == (HOUR / 2, 1)

    def test_groups_give_the_most_generous_of_each_setting(self):
        found = rules.quiz_rules(
            quiz(opens_at=NOW, closes_at=NOW + DAY, time_limit=HOUR, max_attempts=1),
            [
                group(group_id=1, opens_at=NOW - HOUR, closes_at=NOW + 2 * DAY, time_limit=90 * timedelta(minutes=1)),
                group(group_id=2, opens_at=NOW - DAY, closes_at=NOW + 3 * DAY, time_limit=2 * HOUR, max_attempts=2),
                group(group_id=3, opens_at=NOW + HOUR, closes_at=NOW + DAY, max_attempts=4),
            ],
        )
        assert found == rules.QuizRules(
            opens_at=NOW - DAY, closes_at=NOW + 3 * DAY, time_limit=2 * HOUR, max_attempts=4
        )

    def test_a_groups_unlimited_attempts_win(self):
        found = rules.quiz_rules(
            quiz(max_attempts=1), [group(group_id=1, max_attempts=9), group(group_id=2, max_attempts=0)]
        )
        assert found.max_attempts == 0
        assert found.attempts_left(100) is None

    def test_a_users_override_comes_before_their_groups(self):
        found = rules.quiz_rules(
            quiz(time_limit=HOUR, max_attempts=1),
            [group(time_limit=3 * HOUR, max_attempts=0), mine(time_limit=2 * HOUR, max_attempts=2)],
        )
        assert (found.time_limit, found.max_attempts) == (2 * HOUR, 2)

    def test_each_setting_falls_back_on_its_own(self):
        """A user's override without a limit leaves the groups' limit; a group's without dates
        leaves the quiz's dates."""
        found = rules.quiz_rules(
            quiz(opens_at=NOW, closes_at=NOW + DAY, time_limit=HOUR, max_attempts=1),
            [mine(max_attempts=3), group(time_limit=2 * HOUR)],
        )
        assert found == rules.QuizRules(opens_at=NOW, closes_at=NOW + DAY, time_limit=2 * HOUR, max_attempts=3)

    def test_an_override_setting_nothing_changes_nothing(self):
        settings = quiz(opens_at=NOW, closes_at=NOW + DAY, time_limit=HOUR, max_attempts=2)
        assert rules.quiz_rules(settings, [mine(), group()]) == rules.quiz_rules(settings)

    def test_closes_at_for_agrees_with_quiz_rules(self):
        settings = quiz(closes_at=NOW + DAY)
        for overrides in ([], [mine(closes_at=NOW + 2 * DAY)], [group(closes_at=NOW + 3 * DAY), group(group_id=2)]):
            assert rules.closes_at_for(settings, overrides) == rules.quiz_rules(settings, overrides).closes_at

    @pytest.mark.parametrize(
        ("opens_at", "closes_at", "at", "expected"),
        [
            (NOW, None, NOW - timedelta(microseconds=1), (False, True, False)),
            (NOW, None, NOW, (True, False, False)),
            (None, NOW, NOW - timedelta(microseconds=1), (True, False, False)),
            (None, NOW, NOW, (False, False, True)),
            (None, None, NOW, (True, False, False)),
        ],
    )
    def test_open_from_the_opening_until_just_before_the_close(self, opens_at, closes_at, at, expected):
        found = rules.quiz_rules(quiz(opens_at=opens_at, closes_at=closes_at))
        assert (found.is_open(at), found.has_not_opened(at), found.has_closed(at)) == expected

    def test_attempts_left(self):
        assert rules.quiz_rules(quiz(max_attempts=3)).attempts_left(1) == 2
        assert rules.quiz_rules(quiz(max_attempts=3)).attempts_left(5) == 0
        assert rules.quiz_rules(quiz(max_attempts=0)).attempts_left(5) is None


# The deadline, the grace and the time left ---------------------------------------------------


class TestDeadline:
    def test_a_limit_only(self):
        assert rules.QuizRules(None, None, HOUR, 0).deadline(NOW) == NOW + HOUR

    def test_a_close_only(self):
        assert rules.QuizRules(None, NOW + DAY, None, 0).deadline(NOW) == NOW + DAY

    def test_both_the_earlier(self):
        assert rules.QuizRules(None, NOW + DAY, HOUR, 0).deadline(NOW) == NOW + HOUR
        assert rules.QuizRules(None, NOW + HOUR / 2, HOUR, 0).deadline(NOW) == NOW + HOUR / 2

    def test_none(self):
        assert rules.QuizRules(NOW - DAY, None, None, 0).deadline(NOW) is None


def attempt(*, deadline=None, state=Attempt.State.IN_PROGRESS, is_practice=False) -> Attempt:
    return Attempt(deadline=deadline, state=state, is_practice=is_practice)


class TestOverdue:
    def test_the_cutoff_is_now_less_the_grace(self):
        assert rules.deadline_cutoff(NOW) == NOW - GRACE

    @pytest.mark.parametrize(
        ("after_deadline", "overdue"),
        [
            (timedelta(0), False),
            (GRACE - timedelta(microseconds=1), False),
            (GRACE, False),  # exactly at deadline + grace: still taken, as the INSERT takes it
            (GRACE + timedelta(microseconds=1), True),
        ],
    )
    def test_overdue_only_after_the_deadline_and_all_its_grace(self, after_deadline, overdue):
        assert rules.is_overdue(attempt(deadline=NOW), NOW + after_deadline) is overdue

    def test_without_deadline_never(self):
        assert rules.is_overdue(attempt(), NOW + 365 * DAY) is False

    def test_finished_never(self):
        assert rules.is_overdue(attempt(deadline=NOW, state=Attempt.State.FINISHED), NOW + DAY) is False


class TestTimeLeft:
    def test_whole_seconds_until_the_deadline(self):
        assert rules.time_left(attempt(deadline=NOW + HOUR), NOW) == 3600
        assert rules.time_left(attempt(deadline=NOW + timedelta(seconds=59, milliseconds=999)), NOW) == 59

    def test_zero_once_passed_even_within_the_grace(self):
        assert rules.time_left(attempt(deadline=NOW), NOW) == 0
        assert rules.time_left(attempt(deadline=NOW), NOW + GRACE / 2) == 0

    def test_none_without_deadline_or_once_finished(self):
        assert rules.time_left(attempt(), NOW) is None
        assert rules.time_left(attempt(deadline=NOW + HOUR, state=Attempt.State.FINISHED), NOW) is None


# The review ------------------------------------------------------------------------------------

IN_PROGRESS, FINISHED = Attempt.State.IN_PROGRESS, Attempt.State.FINISHED
NOTHING = rules.Review(correctness=False, right_answer=False)
ALL = rules.FULL_REVIEW
WITHOUT_KEY = rules.Review(correctness=True, right_answer=False)


def review(timing, show_right_answer, state, *, is_practice=False, closes_at=None, now=NOW) -> rules.Review:
    settings = Quiz(feedback_timing=timing, show_right_answer=show_right_answer)
    return rules.attempt_review(
        quiz=settings,
        attempt=attempt(state=state, is_practice=is_practice),
        closes_at=lambda: closes_at,
        now=now,
    )


class TestAttemptReview:
    @pytest.mark.parametrize(
        ("timing", "state", "shown"),
        [
            (FeedbackTiming.IMMEDIATELY, IN_PROGRESS, True),
            (FeedbackTiming.IMMEDIATELY, FINISHED, True),
            (FeedbackTiming.AFTER_ATTEMPT, IN_PROGRESS, False),
            (FeedbackTiming.AFTER_ATTEMPT, FINISHED, True),
            (FeedbackTiming.NEVER, IN_PROGRESS, False),
            (FeedbackTiming.NEVER, FINISHED, False),
        ],
    )
    @pytest.mark.parametrize("show_right_answer", [True, False])
    def test_each_timing_and_state(self, timing, state, shown, show_right_answer):
        assert review(timing, show_right_answer, state) == rules.Review(
            correctness=shown, right_answer=shown and show_right_answer
        )

    @pytest.mark.parametrize("state", [IN_PROGRESS, FINISHED])
    @pytest.mark.parametrize("show_right_answer", [True, False])
    def test_after_close_from_the_close_on(self, state, show_right_answer):
        shown = ALL if show_right_answer else WITHOUT_KEY
        after_close = FeedbackTiming.AFTER_CLOSE
        assert review(after_close, show_right_answer, state, closes_at=NOW + timedelta(microseconds=1)) == NOTHING
        assert review(after_close, show_right_answer, state, closes_at=NOW) == shown
        assert review(after_close, show_right_answer, state, closes_at=NOW - DAY) == shown

    def test_after_close_without_a_close_date_waits_for_ever(self):
        assert review(FeedbackTiming.AFTER_CLOSE, True, FINISHED, closes_at=None, now=NOW + 3650 * DAY) == NOTHING

    def test_the_close_date_is_read_only_for_after_close(self):
        def unreadable():
            raise AssertionError("closes_at read")

        for timing in (FeedbackTiming.IMMEDIATELY, FeedbackTiming.AFTER_ATTEMPT, FeedbackTiming.NEVER):
            rules.attempt_review(quiz=Quiz(feedback_timing=timing), attempt=attempt(), closes_at=unreadable, now=NOW)

    @pytest.mark.parametrize("timing", FeedbackTiming.values)
    @pytest.mark.parametrize("state", [IN_PROGRESS, FINISHED])
    @pytest.mark.parametrize("show_right_answer", [True, False])
    def test_a_practice_shows_its_feedback_at_once(self, timing, state, show_right_answer):
        found = review(timing, show_right_answer, state, is_practice=True, closes_at=NOW + DAY)
        assert found == (ALL if show_right_answer else WITHOUT_KEY)

    def test_the_explanation_goes_with_the_correctness(self):
        assert ALL.explanation and WITHOUT_KEY.explanation and not NOTHING.explanation
        assert (ALL.key, WITHOUT_KEY.key, NOTHING.key) == ("11", "10", "00")


# The grace's edge through the answer's INSERT -----------------------------------------------


@pytest.mark.parametrize(
    ("after_grace", "taken"),
    [
        (-timedelta(microseconds=1), True),
        (timedelta(0), True),  # exactly deadline + grace
        (timedelta(microseconds=1), False),
    ],
)
@pytest.mark.parametrize("started", [NOW, NOW + timedelta(microseconds=250_000)], ids=["whole", "fraction"])
def test_the_insert_and_is_overdue_agree_at_the_edge_of_the_grace(student, gc_quiz, after_grace, taken, started):
    gc_quiz.time_limit = timedelta(minutes=10)
    gc_quiz.save(update_fields=["time_limit"])
    with time_machine.travel(started, tick=False) as clock:
        attempt, _created = attempt_start(user=student, quiz=gc_quiz)
        assert attempt.deadline == started + timedelta(minutes=10)
        at = attempt.deadline + GRACE + after_grace
        assert rules.is_overdue(attempt, at) is not taken
        clock.move_to(at)
        choice = gc_quiz.questions.get(position=1).choices.get(is_correct=True)
        submit = {"user": student, "attempt_id": attempt.pk, "question_id": choice.question_id, "choice_id": choice.pk}
        if taken:
            answer, created = attempt_answer_submit(**submit, language="en")
            assert created and answer.answered_at == at
            assert Attempt.objects.get(pk=attempt.pk).state == Attempt.State.IN_PROGRESS
        else:
            with pytest.raises(AttemptError) as refused:
                attempt_answer_submit(**submit, language="en")
            assert (refused.value.code, refused.value.status) == ("deadline_passed", 409)
            assert not Answer.objects.filter(attempt_id=attempt.pk).exists()
            assert Attempt.objects.get(pk=attempt.pk).state == Attempt.State.FINISHED
