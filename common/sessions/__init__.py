"""Django's database sessions, with the session key checked before any lookup.

The session cookie is whatever the client sends. Django only requires a key of at least 8
characters, so a cookie such as ``"\\x00aaaaaaa"`` reached the session query, and PostgreSQL
refuses a NUL in any text parameter: a ``DataError``, a 500 on every page. A key that Django
could not have made (``get_random_string(32, VALID_KEY_CHARS)``; the column holds at most
40 characters) is no session, as an unknown one is: no query, no cache lookup, a new key
if the request saves a session.

``SESSION_ENGINE`` names ``common.sessions.db`` or ``common.sessions.cached_db``.
"""

from django.contrib.sessions.backends.base import VALID_KEY_CHARS

MAX_KEY_LENGTH = 40  # django.contrib.sessions.models.Session.session_key's max_length
_KEY_CHARS = frozenset(VALID_KEY_CHARS)


class ValidKeyMixin:
    """Any key but one of Django's own shape is None, as Django's check does with short keys."""

    def _validate_session_key(self, key):
        return (
            bool(super()._validate_session_key(key))
            and isinstance(key, str)
            and len(key) <= MAX_KEY_LENGTH
            and _KEY_CHARS.issuperset(key)
        )
