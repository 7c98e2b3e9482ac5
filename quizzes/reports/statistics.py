"""Item statistics of a quiz, as Moodle's quiz statistics report: per question,
how many answered, how many got it right (facility), how well it separates
strong from weak students (discrimination), which choices were picked, and
the facility in each language the question was answered in; all of it for the
question (every version together) and for each version of it students answered
(its choices as that version showed them). The translation-problem flag counts
answers per translation revision (``translation_flags``).

Every count and sum is computed by the database: one pass over the answers,
grouped by (question, version, choice, language), with ``filter=`` aggregates.
Python only adds up those groups (at most questions x versions x choices x
languages rows) and divides. ``quiz_statistics`` runs the same six queries
whatever the number of attempts and answers.

Population: finished attempts (their scores are final), never practice ones (they ask
only the questions a student missed, and count in no grade). ``include_in_progress`` adds
the answers of attempts still in progress to the counts, facility and language split;
discrimination always ranks finished attempts only, since an unfinished attempt has no
score to rank by.
"""

from dataclasses import dataclass, field

from django.db.models import (
    BigIntegerField,
    Case,
    Count,
    F,
    IntegerField,
    OuterRef,
    Q,
    Subquery,
    Sum,
    Value,
    When,
    Window,
)
from django.db.models.functions import Cast, Coalesce, RowNumber

from quizzes.attempts.regrade import version_graded_keys
from quizzes.content.languages import SOURCE_LANGUAGE, LocalizedText, column
from quizzes.content.shown import localized
from quizzes.managers import graded_q
from quizzes.models import Answer, Attempt, AttemptQuestion, Choice, Question, QuestionVersion, Quiz
from quizzes.reports.item_measures import (
    MIN_ATTEMPTS_FOR_DISCRIMINATION,
    Discrimination,
    kelley_group_size,
    percent,
    point_biserial,
)
from quizzes.reports.translation_flags import LanguageStatistics, language_statistics


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
class VersionStatistics:
    """One version's figures: its answers only, its choices as it showed them (the correct
    one as its answers are graded now, after any regrade that chose it)."""

    number: int
    is_current: bool
    answers: int
    correct: int
    facility: float | None
    # Within the upper and lower groups' attempts that were shown this version.
    discrimination: Discrimination | None
    point_biserial: float | None
    choices: list[ChoiceStatistics]
    languages: list[LanguageStatistics]


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
    # The versions answered, by number.
    versions: list[VersionStatistics] = field(default_factory=list)

    @property
    def flagged_languages(self) -> list[LanguageStatistics]:
        return [language for language in self.languages if language.flagged]

    @property
    def shows_versions(self) -> bool:
        return len(self.versions) > 1


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


# The per-group figures that add up to a question's (and to a version's).
_SUMMED = ("answers", "correct", "n", "sum_x", "sum_y", "sum_xy", "sum_yy", "upper_correct", "lower_correct")


class _Tally:
    """The groups of one question, or of one version of it, added up."""

    def __init__(self):
        self.sums = dict.fromkeys(_SUMMED, 0)
        self.picked: dict[int, int] = {}
        self.languages: dict[str, list[int]] = {}

    def add(self, row: dict) -> None:
        for name in _SUMMED:
            self.sums[name] += row[name] or 0
        self.picked[row["choice_id"]] = self.picked.get(row["choice_id"], 0) + row["answers"]
        language = self.languages.setdefault(row["language"], [0, 0])
        language[0] += row["answers"]
        language[1] += row["correct"]

    def discrimination(self, upper_size: int, lower_size: int) -> Discrimination | None:
        if not (self.sums["n"] and upper_size and lower_size):
            return None
        return Discrimination(upper_size, lower_size, self.sums["upper_correct"], self.sums["lower_correct"])

    def point_biserial(self) -> float | None:
        sums = self.sums
        return point_biserial(sums["n"], sums["sum_x"], sums["sum_y"], sums["sum_xy"], sums["sum_yy"])

    def choice(self, *, id, position, text, is_correct, is_archived=False) -> ChoiceStatistics:
        count = self.picked.get(id, 0)
        return ChoiceStatistics(
            id, position, text, is_correct, is_archived, count, percent(count, self.sums["answers"])
        )


def revision_of(version: QuestionVersion, language: str) -> int:
    """The translation revision a reader of ``language`` was shown in ``version``."""
    return version.revisions.get(language, {}).get("question", version.number)


def _counted_attempts(quiz: Quiz, **lookups):
    return Attempt.objects.graded().filter(quiz=quiz, **lookups)


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
        _counted_attempts(quiz, state=Attempt.State.FINISHED)
        .annotate(rank=Window(RowNumber(), order_by=order))
        .filter(rank__lte=size)
    )
    return ranked.values("pk")


def _versions(*, quiz: Quiz, groups: dict | None) -> dict[int, QuestionVersion]:
    """The versions of the quiz's questions, with ``upper_shown``/``lower_shown``: how many
    attempts of each group hold the version in their layout."""

    def shown_in(ids):
        if groups is None:
            return Value(0)
        slots = AttemptQuestion.objects.filter(version_id=OuterRef("pk"), attempt_id__in=ids).order_by()
        return Coalesce(Subquery(slots.values("version_id").annotate(count=Count("pk")).values("count")), 0)

    versions = QuestionVersion.objects.filter(question__quiz=quiz).only(
        "id", "question_id", "number", "choices", "correct_choice_id", "revisions"
    )
    upper, lower = (groups["upper"], groups["lower"]) if groups else (None, None)
    versions = versions.annotate(upper_shown=shown_in(upper), lower_shown=shown_in(lower)).order_by()
    return {version.pk: version for version in versions}


def _version_choice_text(choice: dict, language: str) -> LocalizedText:
    text = choice.get(column("text", language))
    if text:
        return LocalizedText(text, language, language)
    return LocalizedText(choice.get(column("text", SOURCE_LANGUAGE)) or "", SOURCE_LANGUAGE, language)


def quiz_statistics(*, quiz: Quiz, language: str, include_in_progress: bool = False) -> QuizStatistics:
    """The item statistics of ``quiz``, texts in ``language`` (English where untranslated).

    Questions: every question not archived, and archived ones that were
    answered (in the population), in order of position.
    """
    summary = _counted_attempts(quiz).aggregate(
        finished=Count("pk", filter=Q(state=Attempt.State.FINISHED)),
        in_progress=Count("pk", filter=Q(state=Attempt.State.IN_PROGRESS)),
        # Cast first: PostgreSQL multiplies smallint columns as smallint, which overflows.
        points=Sum(Cast("score", BigIntegerField()), filter=Q(state=Attempt.State.FINISHED)),
        max_points=Sum(Cast("max_score", BigIntegerField()), filter=Q(state=Attempt.State.FINISHED)),
    )
    finished = summary["finished"]
    group_size = kelley_group_size(finished)
    groups = None
    if finished >= MIN_ATTEMPTS_FOR_DISCRIMINATION:
        groups = {
            "upper": _kelley_group_ids(quiz=quiz, size=group_size, upper=True),
            "lower": _kelley_group_ids(quiz=quiz, size=group_size, upper=False),
        }

    questions = list(Question.objects.filter(quiz=quiz).order_by("position"))
    choices = list(Choice.objects.filter(question__quiz=quiz).order_by("question_id", "position"))
    versions = _versions(quiz=quiz, groups=groups)
    graded_keys = version_graded_keys(question_ids=[question.pk for question in questions])
    rows = _answer_groups(quiz=quiz, include_in_progress=include_in_progress, groups=groups)

    current: dict[int, QuestionVersion] = {}
    for version in versions.values():
        if version.question_id not in current or version.number > current[version.question_id].number:
            current[version.question_id] = version
    tallies: dict[int, _Tally] = {}
    version_tallies: dict[int, dict[int, _Tally]] = {}
    judged: dict[int, dict[str, list[int]]] = {}
    for row in rows:
        question_id, version = row["question_id"], versions[row["version_id"]]
        tallies.setdefault(question_id, _Tally()).add(row)
        version_tallies.setdefault(question_id, {}).setdefault(version.number, _Tally()).add(row)
        latest = current[question_id]
        if revision_of(version, row["language"]) == revision_of(latest, row["language"]):
            counts = judged.setdefault(question_id, {}).setdefault(row["language"], [0, 0])
            counts[0] += row["answers"]
            counts[1] += row["correct"]

    choices_by_question: dict[int, list[Choice]] = {}
    for choice in choices:
        choices_by_question.setdefault(choice.question_id, []).append(choice)
    by_number = {(version.question_id, version.number): version for version in versions.values()}

    result = []
    for question in questions:
        tally = tallies.get(question.pk, _Tally())
        if question.is_archived and not tally.sums["answers"]:
            continue
        latest = current.get(question.pk)
        revisions = {code: revision_of(latest, code) for code in tally.languages} if latest else {}
        result.append(
            QuestionStatistics(
                id=question.pk,
                position=question.position,
                text=localized(question, "text", language),
                is_archived=question.is_archived,
                answers=tally.sums["answers"],
                correct=tally.sums["correct"],
                facility=percent(tally.sums["correct"], tally.sums["answers"]),
                discrimination=tally.discrimination(group_size, group_size) if groups else None,
                point_biserial=tally.point_biserial(),
                choices=[
                    tally.choice(
                        id=choice.pk,
                        position=choice.position,
                        text=localized(choice, "text", language),
                        is_correct=choice.is_correct,
                        is_archived=choice.is_archived,
                    )
                    for choice in choices_by_question.get(question.pk, [])
                    if not choice.is_archived or tally.picked.get(choice.pk)
                ],
                languages=language_statistics(tally.languages, judged.get(question.pk, {}), revisions),
                versions=[
                    _version_statistics(
                        by_number[(question.pk, number)],
                        version_tallies[question.pk][number],
                        latest,
                        graded_keys,
                        language,
                        groups is not None,
                    )
                    for number in sorted(version_tallies.get(question.pk, {}))
                ],
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


def _version_statistics(version, tally: _Tally, latest, graded_keys, language: str, grouped: bool):
    key = graded_keys.get((version.question_id, version.number), version.correct_choice_id)
    return VersionStatistics(
        number=version.number,
        is_current=version.pk == latest.pk,
        answers=tally.sums["answers"],
        correct=tally.sums["correct"],
        facility=percent(tally.sums["correct"], tally.sums["answers"]),
        discrimination=tally.discrimination(version.upper_shown, version.lower_shown) if grouped else None,
        point_biserial=tally.point_biserial(),
        choices=[
            tally.choice(
                id=choice["id"],
                position=choice["position"],
                text=_version_choice_text(choice, language),
                is_correct=choice["id"] == key,
            )
            for choice in version.choices
        ],
        languages=language_statistics(tally.languages),
    )


def _answer_groups(*, quiz: Quiz, include_in_progress: bool, groups: dict | None) -> list[dict]:
    """One pass over the quiz's answers, grouped by (question, version, choice, language).

    At most questions x versions x choices x languages rows, whatever the number of
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
    if groups is not None:
        annotations["upper_correct"] = Count("pk", filter=right & Q(attempt_id__in=groups["upper"]))
        annotations["lower_correct"] = Count("pk", filter=right & Q(attempt_id__in=groups["lower"]))
    return list(
        Answer.objects.filter(graded_q("attempt__"), attempt__quiz=quiz)
        .filter(counted)
        .values("question_id", "version_id", "choice_id", "language")
        .annotate(**annotations)
        .order_by()
    )


def quizzes_with_attempt_counts():
    """Every quiz with its course, and ``finished_attempts``/``in_progress_attempts`` (not practice)."""
    counted = graded_q("attempts__")
    return (
        Quiz.objects.select_related("course")
        .annotate(
            finished_attempts=Count("attempts", filter=Q(attempts__state=Attempt.State.FINISHED) & counted),
            in_progress_attempts=Count("attempts", filter=Q(attempts__state=Attempt.State.IN_PROGRESS) & counted),
        )
        .order_by("course__slug", "position", "slug")
    )
