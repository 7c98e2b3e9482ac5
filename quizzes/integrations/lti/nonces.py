"""The nonces of OIDC logins, each used up by the one launch that carries it.

pylti1p3 keeps a nonce in its launch storage and only checks that it is there, so an id_token
posted twice is accepted twice; here the login records (nonce, state) in the database and the
launch deletes that row: of two posts of one id_token, one deletes it and the other finds
nothing. A row is good for ``LOGIN_LIFETIME`` (the state cookie lives as long).
"""

from datetime import timedelta

from django.utils import timezone

from quizzes.models import LtiNonce

LOGIN_LIFETIME = timedelta(minutes=5)


def nonce_issue(*, nonce: str, state: str) -> None:
    now = timezone.now()
    # Logins never launched leave rows behind; each login clears the stale ones.
    LtiNonce.objects.filter(issued_at__lt=now - LOGIN_LIFETIME).delete()
    LtiNonce.objects.create(nonce=nonce, state=state, issued_at=now)


def nonce_consume(*, nonce: str, state: str) -> bool:
    """True once for a nonce issued with this state less than ``LOGIN_LIFETIME`` ago."""
    deleted, _ = LtiNonce.objects.filter(
        nonce=nonce, state=state, issued_at__gte=timezone.now() - LOGIN_LIFETIME
    ).delete()
    return deleted == 1
