"""Attempts: start, answer, finish. The only way attempts and answers are written.

An attempt moves from ``in_progress`` to ``finished`` and never back. Each
write runs in a transaction that first locks the row it depends on
(``select_for_update``: the student's enrollment for a start, the attempt for
an answer or a finish), so that two tabs or a double click are served one
after the other. The database constraints (one in-progress attempt per
student and quiz, one answer per question and attempt) hold even where the
lock does nothing (SQLite); a racer that loses gets the winner's row.
"""

from functools import wraps

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from common.dates import local_datetime
from quizzes.attempts import grading, metrics, queries, rules, start_queries
from quizzes.attempts.layout import DrawSettings, layout_draw
from quizzes.attempts.selectors import (
    attempts_missed_questions,
)
from quizzes.managers import GRADED_IS_PRACTICE
from quizzes.models import Answer, Attempt, AttemptQuestion, Question, Quiz
from quizzes.outbox import services as outbox

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
QUIZ_NOT_OPEN = _("This quiz opens on %(date)s.")
QUIZ_CLOSED = _("This quiz closed on %(date)s; no attempt can start.")
DEADLINE_PASSED = _(
    "The time for this attempt ran out at %(time)s: answers sent after it are not recorded, "
    "and the attempt was finished with the answers you gave before."
)
PRACTICE_UNFINISHED = _("Finish this attempt first; then you can practise the questions you missed.")
PRACTICE_NOT_YET = _("You can practise these questions once their answers are shown to you.")
NOTHING_MISSED = _("You answered every question of this attempt right: there is nothing to practise.")


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


def _refusals_counted(service):
    """Count each refusal of ``service`` by its code (the operator's figure): at the service's
    edge, so that a page that only asks whether a start would be refused counts nothing."""

    @wraps(service)
    def counted(*args, **kwargs):
        try:
            return service(*args, **kwargs)
        except AttemptError as error:
            metrics.REFUSALS.labels(error.code).inc()
            raise

    return counted


@_refusals_counted
def attempt_start(*, user, quiz: Quiz) -> tuple[Attempt, bool]:
    """Start an attempt, or resume the one in progress.

    Returns the attempt and whether it is new; a new one comes with its ``drawn_layout`` (the
    ``quizzes.attempts.layout.Slot``s stored), so that it can be shown without reading it back.
    The quiz's settings for this student (``rules.quiz_rules``, with their overrides, read under
    the quiz's lock: ``quizzes.attempts.deadlines``) decide whether one may start and its
    deadline. An attempt in progress past its deadline is finished first
    (``attempt_finish_if_overdue``).
    """
    now = timezone.now()
    with transaction.atomic():
        # Locking the enrollment serialises one student's starts of one course. Only
        # that row: locking the course too would serialise every student's start in
        # it. The lock and what is read after it travel in one message of fixed SQL
        # (quizzes/attempts/queries.py): a class arrives at once.
        reads = start_queries.start_reads(user_id=user.pk, course_id=quiz.course_id, quiz_id=quiz.pk)
        _enrolled_check(quiz, reads)
        graded = [attempt for attempt in reads.attempts if attempt.counts_for_grade]
        current = next((attempt for attempt in graded if attempt.state == Attempt.State.IN_PROGRESS), None)
        if current is not None and not rules.is_overdue(current, now):
            return current, False
        if current is not None:
            _finish(current.pk)
        # The settings as read under the quiz's lock: a change committed since ``quiz`` was read counts.
        quiz_rules = rules.quiz_rules(reads.settings or quiz, reads.overrides)
        used = graded[0].number if graded else 0
        refusal = _start_refusal(quiz_rules, used, now)
        if refusal is None:
            # The layout is drawn and stored once: every page, the API and the answer check read it.
            slots = layout_draw(reads.questions, DrawSettings.of(quiz, reads.pool_draws))
            return _attempt_create(
                user,
                quiz,
                slots,
                number=used + 1,
                is_practice=GRADED_IS_PRACTICE,
                started_at=now,
                deadline=quiz_rules.deadline(now),
            )
    # Raised after the commit: an overdue attempt finished above stays finished (its deadline is
    # often the close date that refuses this start).
    raise refusal


def _enrolled_check(quiz: Quiz, reads) -> None:
    if not quiz.is_published:
        raise AttemptError(QUIZ_UNAVAILABLE, code="quiz_unavailable", status=404)
    if not reads.enrolled:
        raise AttemptError(NOT_ENROLLED, code="not_enrolled", status=403)


def _start_refusal(quiz_rules: rules.QuizRules, used: int, now) -> AttemptError | None:
    try:
        start_refusal_check(quiz_rules, now)
    except AttemptError as error:
        return error
    if quiz_rules.attempts_left(used) == 0:
        return AttemptError(NO_ATTEMPTS_LEFT, code="no_attempts_left", status=409)
    return None


def start_refusal_check(quiz_rules: rules.QuizRules, now) -> None:
    """Refuse a start outside the quiz's dates for this student (``quiz_not_open``,
    ``quiz_closed``), saying when it opens or closed, in the active language and time zone."""
    if quiz_rules.has_not_opened(now):
        message = QUIZ_NOT_OPEN % {"date": local_datetime(quiz_rules.opens_at)}
        raise AttemptError(message, code="quiz_not_open", status=403)
    if quiz_rules.has_closed(now):
        message = QUIZ_CLOSED % {"date": local_datetime(quiz_rules.closes_at)}
        raise AttemptError(message, code="quiz_closed", status=403)


def _attempt_create(user, quiz: Quiz, slots, *, number: int, **values) -> tuple[Attempt, bool]:
    """INSERT the attempt and its layout (in the caller's transaction, after ``start_reads``)."""
    attempt = start_queries.attempt_insert(
        user_id=user.pk, quiz_id=quiz.pk, number=number, max_score=len(slots), pass_mark=quiz.pass_mark, **values
    )
    if attempt is None:
        # Another request started one first (only possible where the lock is a no-op).
        current = Attempt.objects.filter(
            user=user, quiz=quiz, state=Attempt.State.IN_PROGRESS, is_practice=values["is_practice"]
        ).first()
        if current is None:  # it took this attempt's number and finished already
            raise AttemptError(START_RACED, code="start_conflict", status=409)
        return current, False
    start_queries.layout_insert(attempt_id=attempt.pk, slots=slots)
    outbox.attempt_started(attempt)
    metrics.ATTEMPTS_STARTED.labels("true" if values["is_practice"] else "false").inc()
    attempt.quiz = quiz
    attempt.drawn_layout = slots
    return attempt, True


@_refusals_counted
def practice_start(*, user, attempt_id: int) -> tuple[Attempt, bool]:
    """Start a practice of the questions ``user``'s finished attempt missed (wrong or not
    answered), each as its current version (archived ones left out), shuffled as the quiz
    shuffles; or resume the practice in progress at that quiz. A practice counts in no grade,
    has no deadline or limit and shows feedback at once: so it starts only for an enrolled
    student once the review of the attempt it practises shows which answers were right.
    Raises Attempt.DoesNotExist for an attempt that is not ``user``'s."""
    now = timezone.now()
    source = Attempt.objects.select_related("quiz").get(pk=attempt_id, user=user)
    quiz = source.quiz
    if not source.is_finished:
        raise AttemptError(PRACTICE_UNFINISHED, code="attempt_not_finished", status=409)
    with transaction.atomic():
        reads = start_queries.start_reads(user_id=user.pk, course_id=quiz.course_id, quiz_id=quiz.pk)
        _enrolled_check(quiz, reads)
        closes_at = rules.quiz_rules(reads.settings or quiz, reads.overrides).closes_at
        if not rules.attempt_review(quiz=quiz, attempt=source, closes_at=lambda: closes_at, now=now).correctness:
            raise AttemptError(PRACTICE_NOT_YET, code="review_not_available", status=409)
        practices = [attempt for attempt in reads.attempts if not attempt.counts_for_grade]
        current = next((attempt for attempt in practices if attempt.state == Attempt.State.IN_PROGRESS), None)
        if current is not None:
            return current, False
        missed = attempts_missed_questions([source.pk])[source.pk]
        questions = [question for question in reads.questions if question.id in missed]
        if not questions:
            raise AttemptError(NOTHING_MISSED, code="nothing_to_practise", status=409)
        slots = layout_draw(questions, DrawSettings(quiz.shuffle_questions, quiz.shuffle_choices, 0, {}))
        number = max((attempt.number for attempt in practices), default=0) + 1
        return _attempt_create(user, quiz, slots, number=number, is_practice=True, started_at=now, deadline=None)


@_refusals_counted
def attempt_answer_submit(
    *, user, attempt_id: int, question_id: int, choice_id: int, language: str, position: int | None = None
) -> tuple[Answer, bool]:
    """Record the answer to one question of ``user``'s attempt; the first answer is final.

    Returns the answer and whether it is new: submitting the recorded choice
    again (a double click, a retry) returns the recorded answer; another choice
    is refused with ``already_answered``. The answer comes with its ``attempt``
    (its feedback: ``selectors.answer_feedback``). An attempt that is not ``user``'s (or no
    attempt) raises Attempt.DoesNotExist. ``position``, for a form shown on a
    question's page, refuses an answer to any other question
    (``question_not_shown``): never record what the student did not see.

    The database decides, in one transaction (``queries.answer_write``): the
    attempt's row lock, which checks its owner, then the INSERT, which checks
    the attempt is in progress and not past its deadline (``rules.deadline_cutoff``: past it,
    the refusal is ``deadline_passed`` and the attempt is finished, unless a teacher's change
    moved the deadline meanwhile: then the answer is judged again), the question in its
    layout and the choice one the layout shows with it, records the layout's version of the question and
    reads that version's key. That is a statement after the lock: a regrade
    (``quizzes.attempts.regrade``) holds the quiz and every attempt in progress
    until it commits, so an answer waiting on that lock is graded with the key
    committed since, not with a copy of the old one. A refusal is explained
    afterwards from the attempt's layout; a second answer to a question is
    caught by the unique constraint.
    """
    for _try in range(3):
        now = timezone.now()
        try:
            return _answer_record(
                user=user,
                attempt_id=attempt_id,
                question_id=question_id,
                choice_id=choice_id,
                language=language,
                position=position,
                now=now,
            )
        except _DeadlineMoved:
            continue  # a teacher gave more time since the refusal was decided: judged again
    raise AttemptError(START_RACED, code="answer_conflict", status=409)


class _DeadlineMoved(Exception):
    """An answer refused as overdue whose attempt, once locked to be finished, is no longer
    overdue: a teacher's change committed between the two (quizzes.attempts.deadlines)."""


def _answer_record(*, user, attempt_id, question_id, choice_id, language, position, now) -> tuple[Answer, bool]:
    try:
        attempt, answer = queries.answer_write(
            attempt_id=attempt_id,
            user_id=user.pk,
            question_id=question_id,
            choice_id=choice_id,
            language=language,
            position=position,
            now=now,
        )
    except IntegrityError:
        # Answered already (by this request's twin, or before); nothing was written.
        existing = queries.recorded_answer(attempt_id=attempt_id, user_id=user.pk, question_id=question_id)
        if existing is None:
            raise
        if existing.choice_id == choice_id:
            return existing, False
        raise AttemptError(ALREADY_ANSWERED, code="already_answered", status=409, answer=existing) from None
    if attempt is None:
        raise Attempt.DoesNotExist
    if answer is None:
        raise _answer_refusal(attempt, question_id=question_id, choice_id=choice_id, position=position, now=now)
    answer.attempt = attempt
    metrics.ANSWERS_RECORDED.inc()
    return answer, True


def _answer_refusal(attempt: Attempt, *, question_id: int, choice_id: int, position: int | None, now) -> AttemptError:
    """Why the database recorded nothing, checked in this order. An attempt past its deadline
    is finished here: the answer touched it."""
    if attempt.state != Attempt.State.IN_PROGRESS:
        return AttemptError(ATTEMPT_FINISHED, code="attempt_finished", status=409)
    if rules.is_overdue(attempt, now):
        if _finish(attempt.pk, overdue_at=now) is None:
            raise _DeadlineMoved
        message = DEADLINE_PASSED % {"time": local_datetime(attempt.deadline)}
        return AttemptError(message, code="deadline_passed", status=409)
    slot = AttemptQuestion.objects.filter(attempt_id=attempt.pk, question_id=question_id).first()
    if slot is None:
        if Question.objects.filter(pk=question_id, quiz_id=attempt.quiz_id).exists():
            return AttemptError(QUESTION_NOT_IN_ATTEMPT, code="question_not_in_attempt", status=400)
        return AttemptError(QUESTION_NOT_IN_QUIZ, code="question_not_in_quiz", status=400)
    if position is not None and slot.position != position:
        return AttemptError(OTHER_QUESTION, code="question_not_shown", status=400)
    # Not one of the choices the layout shows with this question.
    return AttemptError(CHOICE_NOT_IN_QUESTION, code="choice_not_in_question", status=400)


def attempt_finish(*, attempt: Attempt) -> Attempt:
    """Finish an attempt and grade it; finishing again returns the same result.

    Unanswered questions count as wrong.
    """
    return _finish(attempt.pk)


def attempt_finish_if_overdue(*, attempt: Attempt, skip_locked: bool = False) -> Attempt | None:
    """Finish ``attempt`` if it is in progress past its deadline (``rules.is_overdue``), with
    the answers it has, and return it finished; None when it is not overdue. Every page and
    API response of an attempt calls it first, and ``manage.py finish_overdue_attempts`` for
    the attempts nobody touches.

    ``skip_locked`` (the command's): None also when another transaction holds the attempt (an
    answer being taken, another finish: it, or the next run, finishes it) or when it was
    finished since it was read; an attempt returned is then one this call finished.
    """
    now = timezone.now()
    if not rules.is_overdue(attempt, now):
        return None
    if not skip_locked:
        return _finish(attempt.pk, overdue_at=now)
    with transaction.atomic():
        locked = Attempt.objects.select_for_update(skip_locked=True).filter(pk=attempt.pk).first()
        if locked is None or not rules.is_overdue(locked, now):
            return None
        return _finish(locked.pk)


def _finish(attempt_id: int, *, overdue_at=None) -> Attempt | None:
    # The attempt's lock is the one every answer takes first: an answer acknowledged before
    # it is counted, and none is taken after it. Its time is read under the lock, so it is
    # later than every answer it counts (each read its time before taking this lock), not the
    # time the caller read before waiting for it. ``overdue_at``: finish only if the attempt is
    # still overdue then as locked (None otherwise): a teacher may have moved its deadline since
    # the caller read it.
    with transaction.atomic():
        locked = Attempt.objects.select_for_update().get(pk=attempt_id)
        if locked.state == Attempt.State.FINISHED:
            return locked
        if overdue_at is not None and not rules.is_overdue(locked, overdue_at):
            return None
        locked.score = locked.answers.filter(grading.scored_answers_q()).count()
        locked.state = Attempt.State.FINISHED
        locked.finished_at = timezone.now()
        locked.save(update_fields=["score", "state", "finished_at"])
        outbox.attempt_finished(locked)
        metrics.ATTEMPTS_FINISHED.inc()
    return locked
