"""Delivering the outbox: each due message to the sender of its kind, until it is delivered.

A sender takes a batch of messages of one kind and says, for each, ``Delivered``, ``Retry``
(the receiver is down or busy: it is sent again later, after a wait that doubles with each try
up to ``RETRY_MAX``) or ``Refused`` (the receiver will never take it: it is kept, marked failed,
for staff to read and send again). A sender that raises is a ``Retry`` of its whole batch: one
bad receiver never stops the others' messages.

The batch is claimed with ``FOR UPDATE SKIP LOCKED``: two ``send_outbox`` processes never send
the same message, and a message is marked delivered in the transaction that claimed it, so it is
never sent again once its receiver took it. (A crash between the receiver's answer and the
commit sends it again: the receivers are told each message's stable id, so a resend is harmless.)
"""

import logging
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from quizzes.models import OutboxMessage

logger = logging.getLogger(__name__)

RETRY_BASE = timedelta(seconds=30)
RETRY_MAX = timedelta(hours=1)
BATCH_SIZE = 50


@dataclass(frozen=True)
class Delivered:
    pass


@dataclass(frozen=True)
class Retry:
    error: str


@dataclass(frozen=True)
class Refused:
    error: str


Outcome = Delivered | Retry | Refused
# Sends a batch of messages of its kind; returns an outcome per message id (a message it leaves
# out is retried).
Sender = Callable[[list[OutboxMessage]], Mapping[int, Outcome]]


@dataclass
class DeliveryReport:
    delivered: int = 0
    retried: int = 0
    refused: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def sent(self) -> int:
        return self.delivered + self.retried + self.refused


def retry_wait(tries: int) -> timedelta:
    """The wait before a message's next try after ``tries`` failed ones: doubling from
    ``RETRY_BASE`` up to ``RETRY_MAX``, less up to a tenth at random so that messages that failed
    together do not all come back at the same instant."""
    wait = min(RETRY_BASE * 2 ** max(tries - 1, 0), RETRY_MAX)
    return wait * (1 - random.random() / 10)


def deliver_due(senders: Mapping[str, Sender], *, batch_size: int = BATCH_SIZE) -> DeliveryReport:
    """Send every message of a kind in ``senders`` that is due now, a batch at a time; a message
    whose kind has no sender stays pending. Returns what happened."""
    report = DeliveryReport()
    while True:
        sent = _deliver_batch(senders, batch_size, report)
        if sent < batch_size:
            return report


def _deliver_batch(senders: Mapping[str, Sender], batch_size: int, report: DeliveryReport) -> int:
    now = timezone.now()
    with transaction.atomic():
        batch = list(
            OutboxMessage.objects.select_for_update(skip_locked=True)
            .filter(state=OutboxMessage.State.PENDING, due_at__lte=now, kind__in=list(senders))
            .order_by("due_at", "id")[:batch_size]
        )
        by_kind: dict[str, list[OutboxMessage]] = {}
        for message in batch:
            by_kind.setdefault(message.kind, []).append(message)
        for kind, messages in by_kind.items():
            outcomes = _send(senders[kind], kind, messages)
            for message in messages:
                _record(message, outcomes.get(message.pk, Retry("no outcome from its sender")), report)
    return len(batch)


def _send(sender: Sender, kind: str, messages: list[OutboxMessage]) -> Mapping[int, Outcome]:
    try:
        return sender(messages)
    except Exception as error:
        logger.exception("Sending %d %s messages failed", len(messages), kind)
        return {message.pk: Retry(f"{type(error).__name__}: {error}") for message in messages}


def _record(message: OutboxMessage, outcome: Outcome, report: DeliveryReport) -> None:
    now = timezone.now()
    message.tries += 1
    if isinstance(outcome, Delivered):
        message.state, message.delivered_at, message.last_error = OutboxMessage.State.DELIVERED, now, ""
        report.delivered += 1
    elif isinstance(outcome, Refused):
        message.state, message.last_error = OutboxMessage.State.FAILED, outcome.error
        report.refused += 1
        report.errors.append(f"{message}: {outcome.error}")
    else:
        message.due_at, message.last_error = now + retry_wait(message.tries), outcome.error
        report.retried += 1
        report.errors.append(f"{message}: {outcome.error}")
    message.save(update_fields=["state", "tries", "due_at", "delivered_at", "last_error"])


def outbox_retry(*, message_ids) -> int:
    """Make failed or waiting messages due now (a staff action); delivered ones stay delivered.
    Returns how many."""
    return (
        OutboxMessage.objects.filter(pk__in=list(message_ids))
        .exclude(state=OutboxMessage.State.DELIVERED)
        .update(state=OutboxMessage.State.PENDING, due_at=timezone.now())
    )
