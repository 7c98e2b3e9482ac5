"""The outbox: messages to other systems, written in the transaction of what they report.

A message is a row (``OutboxMessage``) named once by its kind and key; ``manage.py
send_outbox`` delivers it (``quizzes.outbox.delivery``). Writing it with the record it reports
means it exists exactly when that record does: a rolled-back answer sends nothing, and a
committed one is sent even if the receiver is down for a day.

The events an attempt's services report: its start, each answer (in the answer's own statement:
``quizzes.outbox.queries``) and its finish, which also sends the student's grade to every LTI
line item the quiz is bound to for them (``LtiGradeTarget``).
"""

from django.conf import settings
from django.utils import timezone

from common.sql import insert
from quizzes.models import Attempt, LtiGradeTarget, OutboxMessage

Kind = OutboxMessage.Kind


def xapi_enabled() -> bool:
    """Whether attempts' xAPI statements are written (an LRS is configured)."""
    return bool(settings.XAPI_ENDPOINT)


def outbox_enqueue(*, kind: str, key: str, subject_id: int, payload: dict | None = None, now=None) -> bool:
    """Write one message, due now, in the caller's transaction; a message of this kind and key
    written before stays as it is. Returns whether it was written."""
    now = now or timezone.now()
    values = {"kind": kind, "key": key, "subject_id": subject_id, "payload": payload or {}}
    # One statement: the unique (kind, key) decides, with no read before it.
    row = insert(OutboxMessage, {**values, "created_at": now, "due_at": now}, conflict="ignore")
    return row is not None


def attempt_started(attempt: Attempt) -> None:
    """Report a new attempt (in its start's transaction)."""
    if xapi_enabled():
        outbox_enqueue(kind=Kind.XAPI_STARTED, key=str(attempt.pk), subject_id=attempt.pk, now=attempt.started_at)


def attempt_finished(attempt: Attempt) -> None:
    """Report a finished attempt (in its finish's transaction): its xAPI statement with the score
    it finished with, and for a graded attempt the student's grade for each LTI line item the
    quiz is bound to for them."""
    now = attempt.finished_at
    if xapi_enabled():
        payload = {"score": attempt.score, "max_score": attempt.max_score, "pass_mark": attempt.pass_mark}
        outbox_enqueue(kind=Kind.XAPI_FINISHED, key=str(attempt.pk), subject_id=attempt.pk, payload=payload, now=now)
    if not attempt.counts_for_grade:
        return
    targets = LtiGradeTarget.objects.filter(quiz_id=attempt.quiz_id, lti_user__auth_user_id=attempt.user_id)
    for target_id in targets.values_list("pk", flat=True):
        # The grade sent is the best finished attempt's when it is sent, not this one's score.
        outbox_enqueue(
            kind=Kind.LTI_SCORE,
            key=f"{target_id}:{attempt.pk}",
            subject_id=attempt.pk,
            payload={"target": target_id},
            now=now,
        )
