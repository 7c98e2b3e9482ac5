from django.contrib.sessions.backends import cached_db

from common.sessions import ValidKeyMixin


class SessionStore(ValidKeyMixin, cached_db.SessionStore):
    pass
