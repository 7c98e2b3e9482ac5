"""API token authentication."""

import re

from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

from quizzes.accounts import queries as account_queries

# What Token.generate_key makes (secrets.token_hex(20)). Anything else is refused before the
# lookup: PostgreSQL refuses a NUL in a text parameter (a DataError, a 500 for every request).
_TOKEN_KEY = re.compile(r"[0-9a-f]{40}")
INVALID_TOKEN = _("Invalid token.")  # DRF's message, for a malformed key as for an unknown one


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's ``Authorization: Token <key>``, the token and its user read in one fixed statement.

    Every API request runs this lookup (``quizzes/attempts/queries.py``); the messages are DRF's own.
    ``request.auth`` is the token's key.
    """

    def authenticate_credentials(self, key):
        if not _TOKEN_KEY.fullmatch(key):
            raise exceptions.AuthenticationFailed(INVALID_TOKEN)
        user = account_queries.token_user_get(key)
        if user is None:
            raise exceptions.AuthenticationFailed(INVALID_TOKEN)
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return user, key
