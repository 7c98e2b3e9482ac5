"""API token authentication.

``TokenAuthentication`` is DRF's ``Authorization: Token <key>``, the token and
its user read in one fixed statement (``quizzes/rows.py``) before the view runs.

Answering a question, the busiest request, checks the token in its own
transaction instead (``AnswerTokenAuthentication``): the attempt's lock and
the INSERT only match the attempt of the token's user if that user is active,
so an answer travels in one message to the database, not two. Until the
write, ``request.user`` is an ``UnverifiedToken``: it holds the key and
nothing else (no ``pk``: nothing may act on a user not yet checked), it passes
``IsAuthenticated``, and the rate throttle counts it by its token, as it counts
every token request (``quizzes.security``). A request refused before the
write, or whose write matched nothing, is checked the usual way
(``verified_user``), so the 401s are the same as on every other endpoint and
come first: before a 400 for the body, the language or the Idempotency-Key,
and before a 404.
"""

from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

from quizzes import rows


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's ``Authorization: Token <key>``; the messages are DRF's own. ``request.auth`` is the key."""

    def authenticate_credentials(self, key):
        user = rows.token_user_get(key)
        if user is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return user, key


class UnverifiedToken:
    """``request.user`` of a token request whose token the database checks in the write itself."""

    is_authenticated = True
    is_anonymous = False

    def __init__(self, key: str):
        self.key = key

    def __repr__(self):
        return "<UnverifiedToken>"


class AnswerTokenAuthentication(TokenAuthentication):
    """Takes a well-formed ``Authorization: Token <key>`` as it is; the view's write checks it."""

    def authenticate_credentials(self, key):
        return UnverifiedToken(key), key


def verified_user(request):
    """``request.user``, with an ``UnverifiedToken`` checked (401 if it fails) and replaced by its user."""
    if isinstance(request.user, UnverifiedToken):
        request.user, _key = TokenAuthentication().authenticate_credentials(request.auth)
    return request.user
