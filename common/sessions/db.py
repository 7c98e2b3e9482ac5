from django.contrib.sessions.backends import db

from common.sessions import ValidKeyMixin


class SessionStore(ValidKeyMixin, db.SessionStore):
    pass
