"""Changing which choice of a question is correct after students answered it.

Every answer to the question is graded again against the new key, in-progress
attempts included (as Moodle's regrade does: an attempt finished tomorrow must
not keep a grade the editors withdrew today), and the score of every finished
attempt whose answer changed is recomputed (score = correct answers). Each
attempt keeps the pass mark and maximum score copied when it started. What
each student was shown when answering is kept in the ``Regrade`` row.

One transaction: the quiz row is locked first (``FOR UPDATE`` conflicts with
the key-share lock that inserting an attempt takes on its quiz, so no attempt
can start until the regrade commits), then the question (two editors'
regrades of one question run one after the other), then every attempt whose
grade can move (those that answered the question, and every attempt of the
quiz still in progress, which may answer it meanwhile) with
``select_for_update``, in primary-key order; ``attempt_answer_submit`` and
``attempt_finish`` lock the attempt too, so they wait, and then read the new
key from the database.
"""

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Q
from django.utils.translation import gettext_lazy as _

from quizzes.attempts import grading
from quizzes.models import Answer, Attempt, Choice, Question, Quiz, Regrade

CHOICE_NOT_IN_QUESTION = _("That choice is not one of this question's choices.")
ARCHIVED_CHOICE = _("An archived choice can't be the correct one.")


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

    @property
    def passed_before(self) -> bool:
        return grading.passed(self.old_score, self.max_score, self.pass_mark)

    @property
    def passed_after(self) -> bool:
        return grading.passed(self.new_score, self.max_score, self.pass_mark)


@dataclass(frozen=True)
class RegradePlan:
    """What changing the key would do, computed without writing anything."""

    answers_total: int
    answers_changed: int
    attempts_changed: int
    in_progress_changed: int
    scores: tuple[ScoreChange, ...]

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


def question_regrade_plan(*, question: Question, new_correct: Choice) -> RegradePlan:
    """The answers, attempts and scores that making ``new_correct`` the key would change."""
    answers = list(Answer.objects.filter(question=question).select_related("attempt__user").order_by("pk"))
    changed = _new_flags(answers, new_correct.pk)
    scores = []
    in_progress = 0
    for answer, now_correct in changed:
        attempt = answer.attempt
        if attempt.state != Attempt.State.FINISHED:
            in_progress += 1
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
            )
        )
    return RegradePlan(
        answers_total=len(answers),
        answers_changed=len(changed),
        attempts_changed=len({answer.attempt_id for answer, _flag in changed}),
        in_progress_changed=in_progress,
        scores=tuple(scores),
    )


def question_has_answers(question: Question) -> bool:
    return Answer.objects.filter(question=question).exists()


def question_correct_choice_change(*, question: Question, new_correct: Choice, changed_by=None) -> Regrade | None:
    """Make ``new_correct`` the only correct choice of ``question`` and regrade every answer.

    ``new_correct`` may be unsaved (a choice added in the same admin form); it
    is saved here. Returns the ``Regrade`` record, or None when ``new_correct``
    was the correct choice already (nothing changes). Raises RegradeError
    before writing anything if the choice can't be the key.
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
        if new_correct.pk is not None and [choice.pk for choice in old_correct] == [new_correct.pk]:
            return None
        # Model saves, not QuerySet.update: the quiz content cache follows post_save.
        for choice in old_correct:
            if choice.pk != new_correct.pk:
                choice.is_correct = False
                choice.save(update_fields=["is_correct"])
        new_correct.is_correct = True
        if new_correct.pk is None:
            new_correct.save()
        else:
            new_correct.save(update_fields=["is_correct"])

        answers = list(Answer.objects.filter(question=question).select_related("attempt__user").order_by("pk"))
        changed = _new_flags(answers, new_correct.pk)
        for flag in (True, False):
            Answer.objects.filter(pk__in=[answer.pk for answer, now in changed if now is flag]).update(is_correct=flag)

        affected = {answer.attempt_id for answer, _flag in changed}
        correct_counts = dict(
            Answer.objects.filter(attempt_id__in=affected, is_correct=True)
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
                    "shown_correct": not now_correct,
                    "now_correct": now_correct,
                }
                for answer, now_correct in changed
            ],
            attempts=score_rows,
        )
