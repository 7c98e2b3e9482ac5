"""Item statistics of a quiz, as Moodle's quiz statistics report: per question,
how many answered, how many got it right (facility), how well it separates
strong from weak students (discrimination), which choices were picked, and
the facility in each language the question was answered in.

Every count and sum is computed by the database: one pass over the answers,
grouped by (question, choice, language), with ``filter=`` aggregates. Python
only adds up those groups (at most questions x choices x languages rows) and
divides. ``quiz_statistics`` runs the same four queries whatever the number of
attempts and answers.

Population: finished attempts (their scores are final). ``include_in_progress``
adds the answers of attempts still in progress to the counts, facility and
language split; discrimination always ranks finished attempts only, since an
unfinished attempt has no score to rank by.
"""

import math
from dataclasses import dataclass, field, replace

from django.conf import settings
from django.db.models import BigIntegerField, Case, Count, F, IntegerField, Q, Sum, Value, When, Window
from django.db.models.functions import Cast, RowNumber
from django.utils.translation import get_language_info

from quizzes.content.languages import SOURCE_LANGUAGE, LocalizedText, localized
from quizzes.models import Answer, Attempt, Choice, Question, Quiz

# Kelley's upper and lower groups: the top and bottom 27% of attempts by score.
GROUP_PERCENT = 27
# Below this many finished attempts the groups hold fewer than 6 attempts
# each, and a single attempt moves the index by more than 0.15: shown as n/a.
MIN_ATTEMPTS_FOR_DISCRIMINATION = 20

# A language is flagged as a probable translation problem when all hold:
FLAG_MIN_ANSWERS = 20  # at least this many answers in English and in the language,
FLAG_MIN_POINTS = 20  # its facility at least this many percentage points below English's,
FLAG_MAX_P_VALUE = 0.05  # and a two-sided two-proportion z-test gives p below this.


def kelley_group_size(attempts: int) -> int:
    """ceil(27% of ``attempts``), in integers (0.27 * 100 is 27.000000000000004 in floats)."""
    return (GROUP_PERCENT * attempts + 99) // 100


def percent(part: int, whole: int) -> float | None:
    return 100 * part / whole if whole else None


def two_proportion_p_value(correct_a: int, n_a: int, correct_b: int, n_b: int) -> float | None:
    """Two-sided p-value of the pooled two-proportion z-test; None when undefined."""
    if not n_a or not n_b:
        return None
    pooled = (correct_a + correct_b) / (n_a + n_b)
    variance = pooled * (1 - pooled) * (1 / n_a + 1 / n_b)
    if variance == 0:
        # Everyone right (or everyone wrong) in both languages: no difference to test.
        return 1.0
    z = (correct_a / n_a - correct_b / n_b) / math.sqrt(variance)
    return math.erfc(abs(z) / math.sqrt(2))


def point_biserial(n: int, sum_x: int, sum_y: int, sum_xy: int, sum_yy: int) -> float | None:
    """Pearson's r of a 0/1 item score x and the rest of the score y, from their sums."""
    # x is 0 or 1, so the sum of x squared is the sum of x.
    spread_x = n * sum_x - sum_x * sum_x
    spread_y = n * sum_yy - sum_y * sum_y
    if n < 2 or spread_x <= 0 or spread_y <= 0:
        return None
    return (n * sum_xy - sum_x * sum_y) / math.sqrt(spread_x * spread_y)


@dataclass(frozen=True)
class ChoiceStatistics:
    id: int
    position: int
    text: LocalizedText
    is_correct: bool
    is_archived: bool
    count: int
    percent: float | None


@dataclass(frozen=True)
class LanguageStatistics:
    language: str
    name: str
    answers: int
    correct: int
    facility: float | None
    # Percentage points below English (positive: harder than in English).
    points_below_english: float | None = None
    p_value: float | None = None
    flagged: bool = False


@dataclass(frozen=True)
class Discrimination:
    group_size: int
    upper_correct: int
    lower_correct: int

    @property
    def index(self) -> float:
        return (self.upper_correct - self.lower_correct) / self.group_size


@dataclass(frozen=True)
class QuestionStatistics:
    id: int
    position: int
    text: LocalizedText
    is_archived: bool
    answers: int
    correct: int
    facility: float | None
    discrimination: Discrimination | None
    # Corrected item-total correlation (Moodle's "discrimination index"), finished attempts only.
    point_biserial: float | None
    choices: list[ChoiceStatistics]
    languages: list[LanguageStatistics]

    @property
    def flagged_languages(self) -> list[LanguageStatistics]:
        return [language for language in self.languages if language.flagged]


@dataclass(frozen=True)
class QuizStatistics:
    quiz: Quiz
    include_in_progress: bool
    finished_attempts: int
    in_progress_attempts: int
    mean_score_percent: float | None
    group_size: int
    questions: list[QuestionStatistics] = field(default_factory=list)

    @property
    def attempts(self) -> int:
        """The attempts counted: finished ones, plus those in progress if included."""
        return self.finished_attempts + (self.in_progress_attempts if self.include_in_progress else 0)

    @property
    def discrimination_available(self) -> bool:
        return self.finished_attempts >= MIN_ATTEMPTS_FOR_DISCRIMINATION

    @property
    def flagged_count(self) -> int:
        return sum(len(question.flagged_languages) for question in self.questions)


def _attempt_states(include_in_progress: bool) -> list[str]:
    if include_in_progress:
        return [Attempt.State.FINISHED, Attempt.State.IN_PROGRESS]
    return [Attempt.State.FINISHED]


def _kelley_group_ids(*, quiz: Quiz, size: int, upper: bool):
    """Ids of the ``size`` best (``upper``) or worst finished attempts by score.

    The ranking is score, then attempt id (the earlier attempt ranks higher on
    a tie), so the groups are the same on every run and on every database; the
    lower group is the top of the exact reverse ranking.
    """
    if upper:
        order = [F("score").desc(), F("pk").asc()]
    else:
        order = [F("score").asc(), F("pk").desc()]
    ranked = (
        Attempt.objects.filter(quiz=quiz, state=Attempt.State.FINISHED)
        .annotate(rank=Window(RowNumber(), order_by=order))
        .filter(rank__lte=size)
    )
    return ranked.values("pk")


def _language_statistics(rows: list[dict]) -> list[LanguageStatistics]:
    by_language = {row["language"]: row for row in rows}
    english = by_language.get(SOURCE_LANGUAGE)
    known = [code for code, _name in settings.LANGUAGES]
    # Settings order; a code no longer in the settings still counts, at the end.
    codes = [code for code in known if code in by_language] + sorted(set(by_language) - set(known))
    result = []
    for code in codes:
        answers, correct = by_language[code]["answers"], by_language[code]["correct"]
        language = LanguageStatistics(
            language=code,
            name=get_language_info(code)["name_translated"] if code in known else code,
            answers=answers,
            correct=correct,
            facility=percent(correct, answers),
        )
        if code != SOURCE_LANGUAGE and english is not None and english["answers"]:
            english_answers, english_correct = english["answers"], english["correct"]
            p_value = two_proportion_p_value(english_correct, english_answers, correct, answers)
            # "At least 20 points below", in integers: no float rounding at the boundary.
            far_below = 100 * (english_correct * answers - correct * english_answers) >= (
                FLAG_MIN_POINTS * english_answers * answers
            )
            flagged = (
                answers >= FLAG_MIN_ANSWERS
                and english_answers >= FLAG_MIN_ANSWERS
                and far_below
                and p_value is not None
                and p_value < FLAG_MAX_P_VALUE
            )
            below = percent(english_correct, english_answers) - language.facility
            language = replace(language, points_below_english=below, p_value=p_value, flagged=flagged)
        result.append(language)
    return result


def quiz_statistics(*, quiz: Quiz, language: str, include_in_progress: bool = False) -> QuizStatistics:
    """The item statistics of ``quiz``, texts in ``language`` (English where untranslated).

    Questions: every question not archived, and archived ones that were
    answered (in the population), in order of position.
    """
    summary = Attempt.objects.filter(quiz=quiz).aggregate(
        finished=Count("pk", filter=Q(state=Attempt.State.FINISHED)),
        in_progress=Count("pk", filter=Q(state=Attempt.State.IN_PROGRESS)),
        # Cast first: PostgreSQL multiplies smallint columns as smallint, which overflows.
        points=Sum(Cast("score", BigIntegerField()), filter=Q(state=Attempt.State.FINISHED)),
        max_points=Sum(Cast("max_score", BigIntegerField()), filter=Q(state=Attempt.State.FINISHED)),
    )
    finished = summary["finished"]
    group_size = kelley_group_size(finished)
    discriminating = finished >= MIN_ATTEMPTS_FOR_DISCRIMINATION

    questions = list(Question.objects.filter(quiz=quiz).order_by("position"))
    choices = list(Choice.objects.filter(question__quiz=quiz).order_by("question_id", "position"))
    groups = _answer_groups(
        quiz=quiz, include_in_progress=include_in_progress, finished=finished, group_size=group_size
    )

    totals: dict[int, dict[str, int]] = {}
    picked: dict[int, int] = {}
    by_language: dict[int, dict[str, dict[str, int]]] = {}
    for row in groups:
        question_totals = totals.setdefault(row["question_id"], dict.fromkeys(_SUMMED, 0))
        for name in _SUMMED:
            question_totals[name] += row[name] or 0
        picked[row["choice_id"]] = picked.get(row["choice_id"], 0) + row["answers"]
        language_totals = by_language.setdefault(row["question_id"], {}).setdefault(
            row["language"], {"language": row["language"], "answers": 0, "correct": 0}
        )
        language_totals["answers"] += row["answers"]
        language_totals["correct"] += row["correct"]

    choices_by_question: dict[int, list[Choice]] = {}
    for choice in choices:
        choices_by_question.setdefault(choice.question_id, []).append(choice)

    result = []
    empty = dict.fromkeys(_SUMMED, 0)
    for question in questions:
        sums = totals.get(question.pk, empty)
        if question.is_archived and not sums["answers"]:
            continue
        discrimination = None
        if discriminating and sums["n"]:
            discrimination = Discrimination(group_size, sums["upper_correct"], sums["lower_correct"])
        result.append(
            QuestionStatistics(
                id=question.pk,
                position=question.position,
                text=localized(question, "text", language),
                is_archived=question.is_archived,
                answers=sums["answers"],
                correct=sums["correct"],
                facility=percent(sums["correct"], sums["answers"]),
                discrimination=discrimination,
                point_biserial=point_biserial(sums["n"], sums["sum_x"], sums["sum_y"], sums["sum_xy"], sums["sum_yy"]),
                choices=[
                    ChoiceStatistics(
                        id=choice.pk,
                        position=choice.position,
                        text=localized(choice, "text", language),
                        is_correct=choice.is_correct,
                        is_archived=choice.is_archived,
                        count=picked.get(choice.pk, 0),
                        percent=percent(picked.get(choice.pk, 0), sums["answers"]),
                    )
                    for choice in choices_by_question.get(question.pk, [])
                    if not choice.is_archived or picked.get(choice.pk)
                ],
                languages=_language_statistics(list(by_language.get(question.pk, {}).values())),
            )
        )

    return QuizStatistics(
        quiz=quiz,
        include_in_progress=include_in_progress,
        finished_attempts=finished,
        in_progress_attempts=summary["in_progress"],
        mean_score_percent=percent(summary["points"] or 0, summary["max_points"] or 0),
        group_size=group_size,
        questions=result,
    )


# The per-group figures that add up to a question's.
_SUMMED = ("answers", "correct", "n", "sum_x", "sum_y", "sum_xy", "sum_yy", "upper_correct", "lower_correct")


def _answer_groups(*, quiz: Quiz, include_in_progress: bool, finished: int, group_size: int) -> list[dict]:
    """One pass over the quiz's answers, grouped by (question, choice, language).

    At most questions x choices x languages rows, whatever the number of
    answers; each carries counts and sums that add up across groups.
    """
    counted = Q(attempt__state__in=_attempt_states(include_in_progress))
    scored = Q(attempt__state=Attempt.State.FINISHED)
    right = Q(is_correct=True)
    item = Case(When(is_correct=True, then=Value(1)), default=Value(0), output_field=IntegerField())
    rest = Cast("attempt__score", BigIntegerField()) - item
    annotations = {
        "answers": Count("pk", filter=counted),
        "correct": Count("pk", filter=counted & right),
        # Sums for the corrected item-total correlation, over finished attempts:
        # x = this item (0/1), y = the rest of the score.
        "n": Count("pk", filter=scored),
        "sum_x": Count("pk", filter=scored & right),
        "sum_y": Sum(rest, filter=scored),
        "sum_xy": Sum(rest, filter=scored & right),
        "sum_yy": Sum(rest * rest, filter=scored),
        "upper_correct": Value(0),
        "lower_correct": Value(0),
    }
    if finished >= MIN_ATTEMPTS_FOR_DISCRIMINATION:
        upper = _kelley_group_ids(quiz=quiz, size=group_size, upper=True)
        lower = _kelley_group_ids(quiz=quiz, size=group_size, upper=False)
        annotations["upper_correct"] = Count("pk", filter=right & Q(attempt_id__in=upper))
        annotations["lower_correct"] = Count("pk", filter=right & Q(attempt_id__in=lower))
    return list(
        Answer.objects.filter(attempt__quiz=quiz)
        .filter(counted)
        .values("question_id", "choice_id", "language")
        .annotate(**annotations)
        .order_by()
    )


def quizzes_with_attempt_counts():
    """Every quiz with its course, and ``finished_attempts``/``in_progress_attempts``."""
    return (
        Quiz.objects.select_related("course")
        .annotate(
            finished_attempts=Count("attempts", filter=Q(attempts__state=Attempt.State.FINISHED)),
            in_progress_attempts=Count("attempts", filter=Q(attempts__state=Attempt.State.IN_PROGRESS)),
        )
        .order_by("course__slug", "position", "slug")
    )
