"""The teacher's settings as they apply to one student: when a quiz may be taken, how many
attempts they have, an attempt's deadline, and what its review shows.

Each rule is defined here once; the services and selectors apply it, and the server's clock
(``django.utils.timezone.now``) is the only clock.

- A quiz's settings for a student (``QuizRules``): the quiz's, each replaced by the student's
  own override where it sets one, else by the most generous of their groups' overrides (the
  earliest opening, the latest close, the longest time limit, the most attempts).
- An attempt's deadline is the earlier of its start plus the time limit and the close date, as
  they apply to its student *now*: set when it starts, and set again whenever a quiz's dates or
  limit, an override or a group's members change (``quizzes.attempts.deadlines``). It is never
  before the start (a close date moved before it leaves the attempt no time). An answer is
  taken until ``ATTEMPT_DEADLINE_GRACE`` after it; past that the attempt is overdue and is
  finished with what was answered.
- The review (``Review``): ``feedback_timing`` says when a student sees whether each answer was
  right and its explanation, ``show_right_answer`` whether they ever see the right choice. A
  practice attempt shows its feedback at once: one is started only when the review of the
  attempt it practises already shows it (``quizzes.attempts.practice``). An attempt's score is
  shown once it is finished, whatever the timing, as Moodle's "marks" are.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings

from quizzes.models import FeedbackTiming

OVERRIDDEN = ("opens_at", "closes_at", "time_limit", "max_attempts")


@dataclass(frozen=True)
class QuizRules:
    """A quiz's dates, time limit and attempts for one student (None: no such limit;
    ``max_attempts`` 0: unlimited)."""

    opens_at: datetime | None
    closes_at: datetime | None
    time_limit: timedelta | None
    max_attempts: int

    def is_open(self, now: datetime) -> bool:
        return not self.has_not_opened(now) and not self.has_closed(now)

    def has_not_opened(self, now: datetime) -> bool:
        return self.opens_at is not None and now < self.opens_at

    def has_closed(self, now: datetime) -> bool:
        return self.closes_at is not None and now >= self.closes_at

    def attempts_left(self, used: int) -> int | None:
        """How many more attempts count (None: unlimited)."""
        return None if not self.max_attempts else max(self.max_attempts - used, 0)

    def deadline(self, started_at: datetime) -> datetime | None:
        """The deadline of an attempt started at ``started_at`` under these settings: never
        before its start, which the database requires (``attempt_deadline_after_start``)."""
        ends = [end for end in (self.closes_at, started_at + self.time_limit if self.time_limit else None) if end]
        return max(min(ends), started_at) if ends else None


def _most_generous(name: str, values: list):
    if name == "opens_at":
        return min(values)
    if name == "max_attempts":  # 0 is unlimited, the most generous of all
        return 0 if 0 in values else max(values)
    return max(values)


def quiz_rules(quiz, overrides=()) -> QuizRules:
    """``quiz``'s settings for a student whose overrides (their own and their groups', each a
    ``QuizOverride`` of this quiz) are ``overrides``."""
    return QuizRules(**{name: _setting(name, getattr(quiz, name), overrides) for name in OVERRIDDEN})


def closes_at_for(quiz, overrides=()) -> datetime | None:
    """``quiz_rules(quiz, overrides).closes_at``, reading nothing else of ``quiz``."""
    return _setting("closes_at", quiz.closes_at, overrides)


def _setting(name: str, quiz_value, overrides):
    mine = [getattr(o, name) for o in overrides if o.user_id is not None and getattr(o, name) is not None]
    if mine:
        return mine[0]
    theirs = [getattr(o, name) for o in overrides if o.user_id is None and getattr(o, name) is not None]
    return _most_generous(name, theirs) if theirs else quiz_value


def deadline_cutoff(now: datetime) -> datetime:
    """The earliest deadline an answer made at ``now`` is still taken under."""
    return now - settings.ATTEMPT_DEADLINE_GRACE


def is_overdue(attempt, now: datetime) -> bool:
    """Whether an attempt in progress is past its deadline and grace: it takes no answer
    and is finished when next touched (``quizzes.attempts.services.attempt_finish_if_overdue``)."""
    return not attempt.is_finished and attempt.deadline is not None and attempt.deadline < deadline_cutoff(now)


def time_left(attempt, now: datetime) -> int | None:
    """Whole seconds until an attempt's deadline (0 once it has passed); None without one or
    once finished."""
    if attempt.is_finished or attempt.deadline is None:
        return None
    return max(int((attempt.deadline - now).total_seconds()), 0)


@dataclass(frozen=True)
class Review:
    """What a student sees of their answers' feedback now: whether each was right (with the
    explanation), and the right choice."""

    correctness: bool
    right_answer: bool

    @property
    def explanation(self) -> bool:
        return self.correctness

    @property
    def key(self) -> str:
        """A short name of what is shown (for caches of what is rendered with it)."""
        return f"{int(self.correctness)}{int(self.right_answer)}"

    def choice_marks(self, *, is_correct: bool, chosen: bool, answered_right: bool) -> "ChoiceMarks":
        """How a choice of an answered question is marked for its student: as the right answer
        only where the key is shown, and the chosen one right or wrong only where correctness is.
        The one definition the pages read (``quizzes/jinja2/quizzes/_macros.html``); the API's
        ``AnswerFeedback.correct_choice_id`` (quizzes.attempts.selectors) reads ``right_answer`` as it does."""
        key = self.right_answer and is_correct
        right = key or (chosen and self.correctness and answered_right)
        return ChoiceMarks(right=right, wrong=chosen and self.correctness and not right, key=key)


@dataclass(frozen=True)
class ChoiceMarks:
    right: bool  # marked right (✓)
    wrong: bool  # the student's choice, marked wrong (✗)
    key: bool  # tagged as the right answer


FULL_REVIEW = Review(correctness=True, right_answer=True)


def feedback_timing(*, quiz, attempt) -> str:
    """The ``FeedbackTiming`` that applies to ``attempt``: the quiz's, or at once for a practice."""
    return FeedbackTiming.IMMEDIATELY if attempt.is_practice else quiz.feedback_timing


def attempt_review(*, quiz, attempt, closes_at, now: datetime) -> Review:
    """What ``attempt``'s student sees of its feedback at ``now``: ``quiz`` gives
    ``feedback_timing`` and ``show_right_answer``; ``closes_at`` is the quiz's close date for
    this student (``QuizRules.closes_at``), a callable read only for ``after_close``."""
    timing = feedback_timing(quiz=quiz, attempt=attempt)
    if timing == FeedbackTiming.IMMEDIATELY:
        shown = True
    elif timing == FeedbackTiming.AFTER_ATTEMPT:
        shown = attempt.is_finished
    elif timing == FeedbackTiming.AFTER_CLOSE:
        close = closes_at()
        # A quiz with no close date never closes: its feedback waits as long.
        shown = close is not None and now >= close
    else:
        shown = False
    return Review(correctness=shown, right_answer=shown and quiz.show_right_answer)


def missed_question_ids(asked, answered_right) -> set[int]:
    """The questions an attempt missed: those of its layout (``asked``) not answered right
    (``answered_right``); unanswered ones are missed too. What a practice of it asks."""
    return set(asked) - set(answered_right)


def missed_count(attempt) -> int:
    """How many questions a finished attempt missed: its score counts those answered right."""
    return attempt.max_score - attempt.score


def practice_offered(attempt, review: Review, missed) -> bool:
    """Whether a practice of ``attempt``'s ``missed`` questions (or how many) may start: it is
    finished, it missed some, and its ``review`` already shows which answers were right (a
    practice shows its feedback at once)."""
    return attempt.is_finished and review.correctness and bool(missed)
