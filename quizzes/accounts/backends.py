"""The authentication backend after axes' (settings.AUTHENTICATION_BACKENDS).

``axes.backends.AxesStandaloneBackend`` comes first: it refuses a locked-out
username and address before any password is checked (quizzes/accounts/lockout.py).
Then ``StatementModelBackend`` checks the password, as Django's ModelBackend does.
"""

from django.contrib.auth.backends import ModelBackend

from quizzes.accounts import queries as account_queries


class StatementModelBackend(ModelBackend):
    """Django's ModelBackend, reading the session's user with one fixed statement."""

    def get_user(self, user_id):
        # Every authenticated page reads its user: one fixed statement (quizzes/accounts/queries.py).
        user = account_queries.user_get(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None
