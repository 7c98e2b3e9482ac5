"""Messages to other systems, written in the transaction they report on."""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class OutboxMessage(models.Model):
    """A message to another system (an xAPI statement, a grade for an LTI platform), written in
    the transaction that records what it reports and sent by ``manage.py send_outbox``
    (quizzes/outbox). ``(kind, key)`` names it once: enqueued twice it is one row. It is sent
    until it is delivered, with a growing wait after each failure, and never after."""

    class Kind(models.TextChoices):
        XAPI_STARTED = "xapi.started", _("xAPI: attempt started")
        XAPI_ANSWERED = "xapi.answered", _("xAPI: question answered")
        XAPI_FINISHED = "xapi.finished", _("xAPI: attempt finished")
        LTI_SCORE = "lti.score", _("LTI: grade")

    class State(models.TextChoices):
        PENDING = "pending", _("pending")
        DELIVERED = "delivered", _("delivered")
        FAILED = "failed", _("failed")  # refused by its receiver: sent again only by a staff action

    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    key = models.CharField(_("key"), max_length=64)
    # What it reports: the attempt, or for an answer the answer.
    subject_id = models.PositiveBigIntegerField(_("subject"))
    # What the message says that its subject's rows may stop saying (an attempt's score, which
    # a regrade may change): its receiver reads the rest from records that never change.
    payload = models.JSONField(_("payload"), default=dict, blank=True)
    state = models.CharField(_("state"), max_length=10, choices=State.choices, default=State.PENDING)
    tries = models.PositiveIntegerField(_("tries"), default=0)
    created_at = models.DateTimeField(_("created at"))
    due_at = models.DateTimeField(_("due at"))
    delivered_at = models.DateTimeField(_("delivered at"), null=True, blank=True)
    last_error = models.TextField(_("last error"), blank=True, default="")

    class Meta:
        ordering = ["-id"]
        verbose_name = _("outbox message")
        verbose_name_plural = _("outbox messages")
        constraints = [
            models.UniqueConstraint(fields=["kind", "key"], name="outbox_message_once"),
            models.CheckConstraint(
                condition=Q(state__in=["pending", "delivered", "failed"]), name="outbox_message_state_valid"
            ),
            models.CheckConstraint(
                condition=Q(state="delivered", delivered_at__isnull=False)
                | (~Q(state="delivered") & Q(delivered_at__isnull=True)),
                name="outbox_message_delivered_when_delivered",
            ),
        ]
        indexes = [
            # What ``send_outbox`` reads: the pending messages that are due, oldest first.
            models.Index(fields=["due_at", "id"], condition=Q(state="pending"), name="outbox_message_due"),
        ]

    def __str__(self):
        return f"{self.kind} {self.key}"
