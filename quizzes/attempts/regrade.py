"""Changing which choice of a question is correct after students answered it.

The key of a version never changes (``QuestionVersion.correct_choice_id``): saving the
new key makes a new current version (``quizzes.content.versions``), which new attempts
are shown. The editor chooses the versions whose recorded answers take the new key
(``versions``: their numbers; None = every version students were shown, the default of
the confirmation page; an empty list = new attempts only). For each chosen version:

- every answer to it is graded again against the new key, in attempts in progress too
  (as Moodle's regrade does: an attempt finished tomorrow must not keep a grade the
  editors withdrew today), and the score of every finished attempt whose answer changed
  is recomputed (score = correct answers); each attempt keeps the pass mark and maximum
  score copied when it started;
- every attempt in progress that holds it in its layout and has not answered the
  question yet is moved to the new current version (its choices in the order it showed
  them, a choice the new version adds at the end), so it is asked, and graded, with
  the new key; an answer already given keeps the version it was shown.

What each student was shown when answering (the version, its key, whether that said
right) is kept in the ``Regrade`` row, with the numbers of the versions chosen.

One transaction: the quiz row is locked first (``FOR UPDATE`` conflicts with the
key-share lock that inserting an attempt takes on its quiz, so no attempt can start
until the regrade commits), then the question (two editors' regrades of one question
run one after the other), then every attempt whose grade or layout can move (those that
answered the question, and every attempt of the quiz still in progress, which may
answer it meanwhile) with ``select_for_update``, in primary-key order;
``attempt_answer_submit`` and ``attempt_finish`` lock the attempt too, so they wait, and
then read the committed layout and key from the database.
"""

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Exists, OuterRef, Q
from django.utils.translation import gettext_lazy as _

from quizzes.attempts import grading
from quizzes.content.versions import question_current_version
from quizzes.models import Answer, Attempt, AttemptQuestion, Choice, Question, QuestionVersion, Quiz, Regrade

CHOICE_NOT_IN_QUESTION = _("That choice is not one of this question's choices.")
ARCHIVED_CHOICE = _("An archived choice can't be the correct one.")
UNKNOWN_VERSION = _("Version %(number)s is not a version of this question.")


class RegradeError(Exception):
    """A refused regrade; nothing was changed."""


@dataclass(frozen=True)
class ScoreChange:
    attempt_id: int
    user: str
    number: int
    old_score: int
    new_score: int
    max_score: int
    pass_mark: int
    # A practice attempt is regraded too, and counts in no grade: the page says which is which.
    is_practice: bool = False

    @property
    def passed_before(self) -> bool:
        return grading.passed(self.old_score, self.max_score, self.pass_mark)

    @property
    def passed_after(self) -> bool:
        return grading.passed(self.new_score, self.max_score, self.pass_mark)


@dataclass(frozen=True)
class VersionPlan:
    """What choosing one version would do."""

    number: int
    answers_total: int
    answers_changed: int
    attempts_changed: int
    in_progress_changed: int
    # Attempts in progress holding this version that have not answered the question: moved.
    attempts_moved: int
    scores: tuple[ScoreChange, ...]

    @property
    def students_affected(self) -> int:
        return len({change.user for change in self.scores})


@dataclass(frozen=True)
class RegradePlan:
    """What changing the key would do, computed without writing anything: per version
    students were shown (``versions``, by number), and in total over those ``chosen``."""

    versions: tuple[VersionPlan, ...]
    chosen: tuple[int, ...]

    def _chosen(self):
        return [version for version in self.versions if version.number in self.chosen]

    @property
    def answers_total(self) -> int:
        return sum(version.answers_total for version in self._chosen())

    @property
    def answers_changed(self) -> int:
        return sum(version.answers_changed for version in self._chosen())

    @property
    def attempts_changed(self) -> int:
        return sum(version.attempts_changed for version in self._chosen())

    @property
    def in_progress_changed(self) -> int:
        return sum(version.in_progress_changed for version in self._chosen())

    @property
    def attempts_moved(self) -> int:
        return sum(version.attempts_moved for version in self._chosen())

    @property
    def scores(self) -> tuple[ScoreChange, ...]:
        return tuple(change for version in self._chosen() for change in version.scores)

    @property
    def students_affected(self) -> int:
        return len({change.user for change in self.scores})

    @property
    def pass_changes(self) -> int:
        return sum(change.passed_before != change.passed_after for change in self.scores)


def _new_flags(answers, new_correct_id) -> list[tuple[Answer, bool]]:
    return [
        (answer, answer.choice_id == new_correct_id)
        for answer in answers
        if answer.is_correct != (answer.choice_id == new_correct_id)
    ]


def _answers(question: Question) -> list[Answer]:
    return list(Answer.objects.filter(question=question).select_related("attempt__user", "version").order_by("pk"))


def _waiting_slots(question: Question):
    """The places of ``question`` in layouts of attempts in progress that have not answered it."""
    answered = Answer.objects.filter(attempt_id=OuterRef("attempt_id"), question_id=question.pk)
    return AttemptQuestion.objects.filter(question=question, attempt__state=Attempt.State.IN_PROGRESS).filter(
        ~Exists(answered)
    )


def _shown_numbers(answers: list[Answer], waiting: dict[int, int]) -> list[int]:
    """The versions students were shown: answered ones and those attempts in progress still hold."""
    return sorted({answer.version.number for answer in answers} | set(waiting))


def _waiting_counts(question: Question) -> dict[int, int]:
    return dict(
        _waiting_slots(question)
        .order_by()
        .values("version__number")
        .annotate(count=Count("pk"))
        .values_list("version__number", "count")
    )


def _version_plan(number: int, answers: list[Answer], new_correct_id, waiting: int) -> VersionPlan:
    mine = [answer for answer in answers if answer.version.number == number]
    changed = _new_flags(mine, new_correct_id)
    scores = []
    for answer, now_correct in changed:
        attempt = answer.attempt
        if attempt.state != Attempt.State.FINISHED:
            continue
        delta = 1 if now_correct else -1
        scores.append(
            ScoreChange(
                attempt.pk,
                attempt.user.get_username(),
                attempt.number,
                attempt.score,
                attempt.score + delta,
                attempt.max_score,
                attempt.pass_mark,
                attempt.is_practice,
            )
        )
    return VersionPlan(
        number=number,
        answers_total=len(mine),
        answers_changed=len(changed),
        attempts_changed=len({answer.attempt_id for answer, _flag in changed}),
        in_progress_changed=len(changed) - len(scores),
        attempts_moved=waiting,
        scores=tuple(scores),
    )


def _chosen_numbers(question: Question, versions, shown: list[int]) -> tuple[int, ...]:
    if versions is None:
        return tuple(shown)
    chosen = sorted({int(number) for number in versions})
    known = set(QuestionVersion.objects.filter(question=question).values_list("number", flat=True))
    for number in chosen:
        if number not in known:
            raise RegradeError(UNKNOWN_VERSION % {"number": number})
    return tuple(chosen)


def question_regrade_plan(*, question: Question, new_correct: Choice, versions=None) -> RegradePlan:
    """What making ``new_correct`` the key would do, per version students were shown, and in
    total over ``versions`` (their numbers; None: all of them)."""
    answers = _answers(question)
    waiting = _waiting_counts(question)
    shown = _shown_numbers(answers, waiting)
    return RegradePlan(
        versions=tuple(_version_plan(number, answers, new_correct.pk, waiting.get(number, 0)) for number in shown),
        chosen=_chosen_numbers(question, versions, shown),
    )


def moved_choice_order(shown: list[int], version: QuestionVersion) -> list[int]:
    """The choice order of a place moved to ``version``: the choices it showed that ``version``
    still offers, in the order shown, then those ``version`` adds, in position order."""
    offered = [choice["id"] for choice in version.choices]
    kept = [choice_id for choice_id in shown if choice_id in offered]
    return kept + [choice_id for choice_id in offered if choice_id not in kept]


def question_correct_choice_change(
    *, question: Question, new_correct: Choice, changed_by=None, versions=None
) -> Regrade | None:
    """Make ``new_correct`` the only correct choice of ``question``; regrade the answers of
    ``versions`` (numbers; None: every version students were shown) and move the attempts
    in progress that hold them (see the module's docstring).

    ``new_correct`` may be unsaved (a choice added in the same admin form); it is saved
    here. Returns the ``Regrade`` record, or None when nothing changes (``new_correct`` was
    the key already, and the chosen versions' answers and layouts agree with it). Raises
    RegradeError before writing anything if the choice can't be the key or a version is
    not one of the question's.
    """
    if new_correct.question_id != question.pk:
        raise RegradeError(CHOICE_NOT_IN_QUESTION)
    if new_correct.is_archived:
        raise RegradeError(ARCHIVED_CHOICE)
    with transaction.atomic():
        # of=self and no ordering: lock exactly the rows named (Meta orderings join other tables).
        list(Quiz.objects.select_for_update(of=("self",)).filter(pk=question.quiz_id).order_by().values_list("pk"))
        question = Question.objects.select_for_update().get(pk=question.pk)
        answered = Answer.objects.filter(question=question).values("attempt_id")
        list(
            Attempt.objects.select_for_update(of=("self",))
            .filter(Q(pk__in=answered) | Q(quiz_id=question.quiz_id, state=Attempt.State.IN_PROGRESS))
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        old_correct = list(
            Choice.objects.select_for_update(of=("self",)).filter(question=question, is_correct=True).order_by("pk")
        )
        answers = _answers(question)
        shown = _shown_numbers(answers, _waiting_counts(question))
        chosen = _chosen_numbers(question, versions, shown)
        same_key = new_correct.pk is not None and [choice.pk for choice in old_correct] == [new_correct.pk]
        changed = _new_flags([answer for answer in answers if answer.version.number in chosen], new_correct.pk)
        current = question_current_version(question.pk)
        if (
            same_key
            and not changed
            and not _waiting_slots(question).filter(version__number__in=chosen).exclude(version=current).exists()
        ):
            return None
        if not same_key:
            # Model saves, not QuerySet.update: the version sync and the content cache follow post_save.
            for choice in old_correct:
                if choice.pk != new_correct.pk:
                    choice.is_correct = False
                    choice.save(update_fields=["is_correct"])
            new_correct.is_correct = True
            if new_correct.pk is None:
                new_correct.save()
            else:
                new_correct.save(update_fields=["is_correct"])
            current = question_current_version(question.pk)

        for flag in (True, False):
            Answer.objects.filter(pk__in=[answer.pk for answer, now in changed if now is flag]).update(is_correct=flag)
        _move_waiting(question, chosen, current)
        score_rows = _rescore({answer.attempt_id for answer, _flag in changed})

        return Regrade.objects.create(
            question=question,
            old_correct_choice=old_correct[0] if len(old_correct) == 1 else None,
            new_correct_choice=new_correct,
            changed_by=changed_by,
            answers_changed=len(changed),
            attempts_regraded=len(score_rows),
            students_affected=len({row["user"] for row in score_rows if row["old_score"] != row["new_score"]}),
            answers=[
                {
                    "answer": answer.pk,
                    "attempt": answer.attempt_id,
                    "user": answer.attempt.user.get_username(),
                    "choice": answer.choice_id,
                    "version": answer.version.number,
                    # As the version's key graded it when it was given: what the student was shown.
                    "shown_correct_choice": answer.version.correct_choice_id,
                    "shown_correct": answer.choice_id == answer.version.correct_choice_id,
                    "now_correct": now_correct,
                }
                for answer, now_correct in changed
            ],
            attempts=score_rows,
            versions=list(chosen),
        )


def _move_waiting(question: Question, chosen, current: QuestionVersion) -> int:
    """Move the attempts in progress holding a chosen version, not answered yet, to ``current``."""
    slots = list(_waiting_slots(question).filter(version__number__in=chosen).exclude(version=current).order_by("pk"))
    for slot in slots:
        slot.version = current
        slot.choice_order = moved_choice_order(slot.choice_order, current)
    AttemptQuestion.objects.bulk_update(slots, ["version", "choice_order"])
    return len(slots)


def _rescore(affected: set[int]) -> list[dict]:
    """Recompute the score of each finished attempt in ``affected``; their rows before and after."""
    correct_counts = dict(
        Answer.objects.filter(grading.scored_answers_q(), attempt_id__in=affected)
        .order_by()
        .values("attempt_id")
        .annotate(count=Count("pk"))
        .values_list("attempt_id", "count")
    )
    score_rows = []
    for attempt in (
        Attempt.objects.filter(pk__in=affected, state=Attempt.State.FINISHED).select_related("user").order_by("pk")
    ):
        new_score = correct_counts.get(attempt.pk, 0)
        score_rows.append(
            {
                "attempt": attempt.pk,
                "user": attempt.user.get_username(),
                "number": attempt.number,
                "old_score": attempt.score,
                "new_score": new_score,
                "max_score": attempt.max_score,
            }
        )
        if new_score != attempt.score:
            attempt.score = new_score
            attempt.save(update_fields=["score"])
    return score_rows


def version_graded_keys(*, question_ids) -> dict[tuple[int, int], int | None]:
    """The key each regraded version's answers are graded by now, by (question id, version
    number): the new key of the latest regrade that chose it. A version no regrade chose is
    graded by its own key (``QuestionVersion.correct_choice_id``)."""
    keys = {}
    for question_id, key, numbers in (
        Regrade.objects.filter(question_id__in=question_ids)
        .order_by("pk")
        .values_list("question_id", "new_correct_choice_id", "versions")
    ):
        for number in numbers:
            keys[(question_id, number)] = key
    return keys
