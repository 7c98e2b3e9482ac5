"""The grading rule: an attempt's percent, share and verdict, a quiz's grade, a course's progress.

The one definition. Every figure a student or a teacher is shown (the dashboard, a quiz's
page, a result, the API, the gradebook and its CSV, a regrade's preview), and every grade
sent to another system (the LTI grade, the xAPI score), comes from here: from the Python
functions, over attempts already read, or from the ORM expressions beside them, where the
database adds up many attempts (the gradebook). Each rule is written once in each language,
side by side (the exact share only in Python: no query needs it);
tests/attempts/test_grading.py checks that the two agree on a table of cases.

An attempt
    Its ``score`` is its number of right answers, out of ``max_score``, the quiz's open
    questions when it started; its ``pass_mark`` (%) was copied from the quiz then too.
    An attempt in progress has no score: no percent and no verdict (None, NULL).

    percent = score * 100 // max_score: a whole percentage, rounded down (7 of 8: 87 %).

    share = score / max_score, exactly (7 of 8: 7/8): what leaves the site. The LTI grade is
    the share of the column's maximum (``scaled``: 7 of 8 is 7 out of 8, 87.5 out of 100),
    xAPI's scaled score the share itself; the pages show the percent. Exact as a fraction,
    with no float noise (2 of 3 out of 3 is 2), rounded only when it is not a whole number of
    millionths (2 of 3 out of 10: 6.666667).

    passed = percent >= pass_mark. The pass mark is a whole number, so comparing the
    rounded-down percent is the same as comparing exactly (score * 100 >= pass_mark *
    max_score): 2 of 3 is shown as 66 % and reaches a pass mark of 66, not one of 67.

    An attempt at no question (max_score 0: its quiz had no open question when it started,
    every question archived) scores 0 % (a share of 0), and so passes only when the pass mark
    is 0.
    Why 0 %: a finished attempt always has a score and a percent (the gradebook and
    ``Attempt.percent`` have always said 0 %, and "no grade" is for attempts in progress);
    it showed nothing, so not 100 %. Then the verdict follows from the percent like any
    other: 0 % reaches only a pass mark of 0. (Before this module the dashboard and the API
    said no percent at all, and every view said passed whatever the pass mark, as
    0 * 100 >= pass_mark * 0: a "0 %, passed" of a 70 % quiz.)

A quiz, for one student (``quiz_progress``)
    ``attempts_used``: every attempt, in progress included (as ``max_attempts`` counts).
    ``best_percent``: the percent of the best finished attempt (Moodle's default grading
    method, "highest grade"); None before the first. ``passed``: whether any finished
    attempt passed, each against the pass mark copied onto it, so the attempt that passed
    need not be the best one (75 % against a pass mark of 80 then 62 % against 50: best 75,
    passed). ``in_progress_id``: the attempt to resume, or None.

A course, for one student (``course_progress``)
    Its published quizzes passed, of its published quizzes.

The database side casts the smallint columns to bigint before multiplying: PostgreSQL
multiplies smallint by smallint as smallint, which overflows (and integer arithmetic
would not last either for long quizzes at scale). Integer division rounds down on both
databases for these non-negative values.
"""

from collections.abc import Iterable
from fractions import Fraction
from typing import NamedTuple, Protocol

from django.db.models import BigIntegerField, Case, Count, F, IntegerField, Max, Q, Value, When
from django.db.models.functions import Cast, Coalesce
from django.db.models.lookups import GreaterThanOrEqual

# Attempt.State's values (this module is below the models: they use it).
FINISHED = "finished"
IN_PROGRESS = "in_progress"


class Graded(Protocol):
    """What grading reads of an attempt: an ``Attempt``, or an ``AttemptScore`` row."""

    id: int
    state: str
    score: int | None
    max_score: int
    pass_mark: int


class AttemptScore(NamedTuple):
    """An attempt's figures as a fixed statement reads them (``queries.PROGRESS_NAMES``)."""

    id: int
    state: str
    score: int | None
    max_score: int
    pass_mark: int


class QuizProgress(NamedTuple):
    attempts_used: int
    best_percent: int | None
    passed: bool
    in_progress_id: int | None


class CourseProgress(NamedTuple):
    passed: int
    total: int


# One attempt ------------------------------------------------------------------------------


def scored_answers_q(prefix: str = "") -> Q:
    """The answers an attempt's score counts, one point each: the right ones (``prefix``: the
    lookup path to the answer). At the finish and at a regrade alike."""
    return Q(**{f"{prefix}is_correct": True})


def percent(score: int | None, max_score: int) -> int | None:
    """Whole percent, rounded down; 0 for an attempt at no question; None without a score."""
    if score is None:
        return None
    return score * 100 // max_score if max_score else 0


def share(score: int | None, max_score: int) -> Fraction | None:
    """The score's exact share of the maximum; 0 for an attempt at no question; None without a score."""
    if score is None:
        return None
    return Fraction(score, max_score) if max_score else Fraction(0)


def scaled(score: int | None, max_score: int, maximum: float = 1) -> int | float | None:
    """The score out of ``maximum`` (``share`` times it): exact, to the millionth when it is
    not a whole number of millionths; an int when whole (a JSON ``7``, not ``7.0``)."""
    exact = share(score, max_score)
    if exact is None:
        return None
    # A float maximum (a FloatField's) is taken as the decimal it prints as, not its binary value.
    value = round(exact * Fraction(str(maximum) if isinstance(maximum, float) else maximum), 6)
    return value.numerator if value.denominator == 1 else float(value)


def percent_sql(prefix: str = "") -> Case:
    """``percent`` of the attempt at ``prefix`` ("" on Attempt, "attempts__" on Quiz)."""
    score, max_score = Cast(f"{prefix}score", BigIntegerField()), Cast(f"{prefix}max_score", BigIntegerField())
    return Case(
        When(**{f"{prefix}score__isnull": True}, then=Value(None)),
        When(**{f"{prefix}max_score": 0}, then=Value(0)),
        default=score * Value(100) / max_score,
        output_field=BigIntegerField(),
    )


def passed(score: int | None, max_score: int, pass_mark: int) -> bool | None:
    """Whether the score reaches the pass mark; None without a score."""
    grade = percent(score, max_score)
    return None if grade is None else grade >= pass_mark


def passed_sql(prefix: str = "") -> GreaterThanOrEqual:
    """``passed``, as a condition (NULL without a score: never true in a WHERE or a When)."""
    return GreaterThanOrEqual(percent_sql(prefix), F(f"{prefix}pass_mark"))


def is_finished(attempt: Graded) -> bool:
    return attempt.state == FINISHED


def finished_sql(prefix: str = "") -> Q:
    return Q(**{f"{prefix}state": FINISHED})


# One quiz: a student's attempts at it -----------------------------------------------------


def best_attempt(attempts: Iterable[Graded]) -> Graded | None:
    """The finished attempt with the highest percent (ties: the first started), or None."""
    finished = [attempt for attempt in attempts if is_finished(attempt)]
    return max(finished, key=lambda a: (percent(a.score, a.max_score), -a.id), default=None)


def best_percent(attempts: Iterable[Graded]) -> int | None:
    best = best_attempt(attempts)
    return None if best is None else percent(best.score, best.max_score)


def best_percent_sql(prefix: str = "", *, filter: Q | None = None) -> Max:
    """``best_percent`` of the attempts aggregated (NULL without a finished one)."""
    return Max(percent_sql(prefix), filter=finished_sql(prefix) & (filter or Q()), output_field=BigIntegerField())


def quiz_passed(attempts: Iterable[Graded]) -> bool:
    """Whether any finished attempt passed."""
    return any(is_finished(a) and passed(a.score, a.max_score, a.pass_mark) for a in attempts)


def quiz_passed_sql(prefix: str = "", *, filter: Q | None = None) -> Coalesce:
    """``quiz_passed`` of the attempts aggregated, as 1 or 0 (PostgreSQL has no MAX of booleans)."""
    one_if_passed = Case(When(passed_sql(prefix), then=Value(1)), default=Value(0), output_field=IntegerField())
    return Coalesce(Max(one_if_passed, filter=filter), Value(0), output_field=IntegerField())


def attempts_used_sql(prefix: str = "", *, filter: Q | None = None) -> Count:
    return Count(f"{prefix}pk" if prefix else "pk", filter=filter)


def quiz_progress(attempts: Iterable[Graded]) -> QuizProgress:
    """A student's progress at a quiz from all their attempts at it (in any order)."""
    attempts = list(attempts)
    in_progress = [attempt.id for attempt in attempts if attempt.state == IN_PROGRESS]
    return QuizProgress(
        attempts_used=len(attempts),
        best_percent=best_percent(attempts),
        passed=quiz_passed(attempts),
        in_progress_id=in_progress[-1] if in_progress else None,  # at most one (a constraint)
    )


# One course: a student's progress at its quizzes ------------------------------------------


def course_progress(quizzes: Iterable) -> CourseProgress:
    """Quizzes passed of quizzes, from each quiz's ``passed`` (as ``quiz_progress`` sets it)."""
    quizzes = list(quizzes)
    return CourseProgress(passed=sum(bool(quiz.passed) for quiz in quizzes), total=len(quizzes))
