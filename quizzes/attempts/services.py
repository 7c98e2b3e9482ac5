"""Attempts: start, answer, finish. The only way attempts and answers are written.

An attempt moves from ``in_progress`` to ``finished`` and never back. Each
write runs in a transaction that first locks the row it depends on
(``select_for_update``: the student's enrollment for a start, the attempt for
an answer or a finish), so that two tabs or a double click are served one
after the other. The database constraints (one in-progress attempt per
student and quiz, one answer per question and attempt) hold even where the
lock does nothing (SQLite); a racer that loses gets the winner's row.
"""

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from quizzes.attempts import start_statements, statements
from quizzes.attempts.layout import DrawSettings, layout_draw
from quizzes.content.cache import ContentQuestion, version_question
from quizzes.content.layout_cache import layout_versions
from quizzes.models import Answer, Attempt, AttemptQuestion, Question, Quiz

QUIZ_UNAVAILABLE = _("This quiz is not available.")
NOT_ENROLLED = _("You are not enrolled in the course of this quiz.")
NO_ATTEMPTS_LEFT = _("You have used all your attempts at this quiz.")
ATTEMPT_FINISHED = _("This attempt is finished; its answers can no longer change.")
QUESTION_NOT_IN_QUIZ = _("That question is not part of this quiz.")
QUESTION_NOT_IN_ATTEMPT = _("That question is not one of the questions of this attempt.")
OTHER_QUESTION = _("This answer was sent for another question; please answer the question shown.")
CHOICE_NOT_IN_QUESTION = _("That choice is not one of this question's choices.")
START_RACED = _("Another request changed your attempts at this quiz at the same moment; please try again.")
ALREADY_ANSWERED = _("You have already answered this question; the first answer is final.")


class AttemptError(Exception):
    """A refused attempt write; nothing was changed.

    ``status`` is the HTTP status a view should answer with; ``answer`` is the
    recorded answer when the question was answered already.
    """

    def __init__(self, message, *, code: str, status: int, answer: Answer | None = None):
        super().__init__(str(message))
        self.message = message
        self.code = code
        self.status = status
        self.answer = answer


def attempt_start(*, user, quiz: Quiz) -> tuple[Attempt, bool]:
    """Start an attempt, or resume the one in progress.

    Returns the attempt and whether it is new; a new one comes with its ``drawn_layout`` (the
    ``quizzes.attempts.layout.Slot``s stored), so that it can be shown without reading it back.
    """
    with transaction.atomic():
        # Locking the enrollment serialises one student's starts of one course. Only
        # that row: locking the course too would serialise every student's start in
        # it. The lock and what is read after it travel in one message of fixed SQL
        # (quizzes/attempts/statements.py): a class arrives at once.
        enrolled, attempts, questions, pool_draws = start_statements.start_reads(
            user_id=user.pk, course_id=quiz.course_id, quiz_id=quiz.pk
        )
        if not quiz.is_published:
            raise AttemptError(QUIZ_UNAVAILABLE, code="quiz_unavailable", status=404)
        if not enrolled:
            raise AttemptError(NOT_ENROLLED, code="not_enrolled", status=403)
        current = next((attempt for attempt in attempts if attempt.state == Attempt.State.IN_PROGRESS), None)
        if current is not None:
            return current, False
        used = attempts[0].number if attempts else 0
        if quiz.max_attempts and used >= quiz.max_attempts:
            raise AttemptError(NO_ATTEMPTS_LEFT, code="no_attempts_left", status=409)
        # The layout is drawn and stored once: every page, the API and the answer check read it.
        slots = layout_draw(questions, DrawSettings.of(quiz, pool_draws))
        attempt = start_statements.attempt_insert(
            user_id=user.pk, quiz_id=quiz.pk, number=used + 1, max_score=len(slots), pass_mark=quiz.pass_mark
        )
        if attempt is None:
            # Another request started one first (only possible where the lock is a no-op).
            current = Attempt.objects.filter(user=user, quiz=quiz, state=Attempt.State.IN_PROGRESS).first()
            if current is None:  # it took this attempt's number and finished already
                raise AttemptError(START_RACED, code="start_conflict", status=409)
            return current, False
        start_statements.layout_insert(attempt_id=attempt.pk, slots=slots)
    attempt.quiz = quiz
    attempt.drawn_layout = slots
    return attempt, True


def attempt_answer_submit(
    *, user, attempt_id: int, question_id: int, choice_id: int, language: str, position: int | None = None
) -> tuple[Answer, bool]:
    """Record the answer to one question of ``user``'s attempt; the first answer is final.

    Returns the answer and whether it is new: submitting the recorded choice
    again (a double click, a retry) returns the recorded answer; another choice
    is refused with ``already_answered``. The answer comes with its ``attempt``
    and ``content_question``, the question as the version it records showed it
    (the right choice and explanation, for feedback). An attempt that is not ``user``'s (or no
    attempt) raises Attempt.DoesNotExist. ``position``, for a form shown on a
    question's page, refuses an answer to any other question
    (``question_not_shown``): never record what the student did not see.

    The database decides, in one transaction (``statements.answer_write``): the
    attempt's row lock, which checks its owner, then the INSERT, which checks
    the attempt is in progress, the question in its layout and the choice one
    the layout shows with it, records the layout's version of the question and
    reads that version's key. That is a statement after the lock: a regrade
    (``quizzes.attempts.regrade``) holds the quiz and every attempt in progress
    until it commits, so an answer waiting on that lock is graded with the key
    committed since, not with a copy of the old one. A refusal is explained
    afterwards from the attempt's layout; a second answer to a question is
    caught by the unique constraint.
    """
    try:
        attempt, answer = statements.answer_write(
            attempt_id=attempt_id,
            user_id=user.pk,
            question_id=question_id,
            choice_id=choice_id,
            language=language,
            position=position,
        )
    except IntegrityError:
        # Answered already (by this request's twin, or before); nothing was written.
        existing = statements.recorded_answer(attempt_id=attempt_id, user_id=user.pk, question_id=question_id)
        if existing is None:
            raise
        existing.content_question = shown_question(existing)
        if existing.choice_id == choice_id:
            return existing, False
        raise AttemptError(ALREADY_ANSWERED, code="already_answered", status=409, answer=existing) from None
    if attempt is None:
        raise Attempt.DoesNotExist
    if answer is None:
        raise _answer_refusal(attempt, question_id=question_id, choice_id=choice_id, position=position)
    answer.attempt = attempt
    answer.content_question = shown_question(answer)
    return answer, True


def _answer_refusal(attempt: Attempt, *, question_id: int, choice_id: int, position: int | None) -> AttemptError:
    """Why the database recorded nothing, checked in this order."""
    if attempt.state != Attempt.State.IN_PROGRESS:
        return AttemptError(ATTEMPT_FINISHED, code="attempt_finished", status=409)
    slot = AttemptQuestion.objects.filter(attempt_id=attempt.pk, question_id=question_id).first()
    if slot is None:
        if Question.objects.filter(pk=question_id, quiz_id=attempt.quiz_id).exists():
            return AttemptError(QUESTION_NOT_IN_ATTEMPT, code="question_not_in_attempt", status=400)
        return AttemptError(QUESTION_NOT_IN_QUIZ, code="question_not_in_quiz", status=400)
    if position is not None and slot.position != position:
        return AttemptError(OTHER_QUESTION, code="question_not_shown", status=400)
    # Not one of the choices the layout shows with this question.
    return AttemptError(CHOICE_NOT_IN_QUESTION, code="choice_not_in_question", status=400)


def shown_question(answer: Answer) -> ContentQuestion:
    """The question as the version ``answer`` records showed it (its ``version_id`` and
    ``version_token``, from the content cache): its right choice and explanation are the
    answer's feedback."""
    key = (answer.version_id, answer.version_token)
    return version_question(layout_versions([key])[key], position=0)


def attempt_finish(*, attempt: Attempt) -> Attempt:
    """Finish an attempt and grade it; finishing again returns the same result.

    Unanswered questions count as wrong.
    """
    with transaction.atomic():
        locked = Attempt.objects.select_for_update().get(pk=attempt.pk)
        if locked.state == Attempt.State.FINISHED:
            return locked
        locked.score = locked.answers.filter(is_correct=True).count()
        locked.state = Attempt.State.FINISHED
        locked.finished_at = timezone.now()
        locked.save(update_fields=["score", "state", "finished_at"])
    return locked
