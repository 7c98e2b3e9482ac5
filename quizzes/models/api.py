"""The API's idempotency keys: a retried write answered as the first time."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class IdempotencyKey(models.Model):
    """An API write made with an ``Idempotency-Key`` header, and its response.

    A client that retries (after a timeout, a dropped connection) with the
    same key gets the recorded response instead of a second write.
    """

    # The lead of the unique (user, key).
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    key = models.CharField(max_length=255)
    # What the key was first used for: method, path and a hash of the body.
    fingerprint = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    response_body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("idempotency key")
        verbose_name_plural = _("idempotency keys")
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="idempotency_key_unique_per_user"),
        ]

    def __str__(self):
        return f"{self.user} · {self.key}"
