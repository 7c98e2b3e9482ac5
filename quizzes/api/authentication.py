"""API token authentication."""

from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

from quizzes.accounts import statements as account_statements


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's ``Authorization: Token <key>``, the token and its user read in one fixed statement.

    Every API request runs this lookup (``quizzes/attempts/statements.py``); the messages are DRF's own.
    ``request.auth`` is the token's key.
    """

    def authenticate_credentials(self, key):
        user = account_statements.token_user_get(key)
        if user is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return user, key
