"""Reads from a read replica (``DATABASE_REPLICA_URL``: the ``replica`` alias) where they may lag.

Only code wrapped in ``reads_from_replica`` (the staff reports) reads from the replica, and only
until its first write (a later read must see it), never inside a transaction on the default
database (a read in ``atomic`` sees that transaction's writes), and only when the replica
answered its first use in the request: if it did not, the reads go to the default database and
``status()`` says so. A report whose replica failed while it read, or lacked what it looked for
(a 404: the copy is behind), is made again from the default database, and says so. Every other
read and every write goes to the default database. Without the alias nothing is routed.
"""

import math
from contextvars import ContextVar
from dataclasses import dataclass
from functools import wraps

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connections
from django.http import Http404

ALIAS = "replica"
# 0 when the replica has applied all it received (a replica just restarted may report receiving
# less than it applied); else the time since the last change it applied, an upper bound.
LAG_SQL = (
    "SELECT CASE WHEN NOT pg_is_in_recovery() OR pg_last_wal_receive_lsn() <= pg_last_wal_replay_lsn() THEN 0"
    " ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0) END"
)


@dataclass
class Status:
    """How the reads of a report went: from the replica ``lag_seconds`` behind, or from the
    default database because the replica could not be reached or failed (``unavailable``), or
    did not have yet what the report looked for (``missing``)."""

    unavailable: bool = False
    missing: bool = False
    lag_seconds: float | None = None  # None: the replica was not used (yet)
    wrote: bool = False

    @property
    def from_replica(self) -> bool:
        return self.lag_seconds is not None and not (self.unavailable or self.missing)

    @property
    def seconds_behind(self) -> int:
        """Whole seconds, rounded up: a replica behind at all is never said to be up to date."""
        return math.ceil(self.lag_seconds or 0)


_status: ContextVar[Status | None] = ContextVar("replica_status", default=None)


def configured() -> bool:
    return ALIAS in settings.DATABASES


def lag_seconds() -> float:
    """How far behind the default database the replica is, in seconds (0: up to date)."""
    db = connections[ALIAS]
    if db.vendor != "postgresql":
        db.ensure_connection()
        return 0.0
    with db.cursor() as cursor:
        cursor.execute(LAG_SQL)
        return float(cursor.fetchone()[0])


def status() -> Status | None:
    """The replica's part in this report (None outside a report, or when none is configured),
    the replica asked how far behind it is if no read has asked yet."""
    state = _status.get()
    if state is not None:
        _reachable(state)
    return state


def _reachable(state: Status) -> bool:
    """Whether the replica answers: asked once per report (its lag), remembered in ``state``."""
    if state.lag_seconds is None and not state.unavailable:
        try:
            state.lag_seconds = lag_seconds()
        except OperationalError:
            state.unavailable = True
    return not (state.unavailable or state.missing)


class _Within:
    """An iterator run with ``state`` as the replica status: a streamed response reads as it is sent."""

    def __init__(self, iterator, state: Status):
        self.iterator = iter(iterator)
        self.state = state

    def __iter__(self):
        return self

    def __next__(self):
        token = _status.set(self.state)
        try:
            return next(self.iterator)
        finally:
            _status.reset(token)


def reads_from_replica(view):
    """Let the reads of ``view`` (and of its template and streamed body) go to the replica."""

    @wraps(view)
    def reading(request, *args, **kwargs):
        if not configured():
            return view(request, *args, **kwargs)
        state = Status()
        token = _status.set(state)
        try:
            try:
                return _report(view, state, request, *args, **kwargs)
            except (Http404, OperationalError, InterfaceError) as error:
                missing = isinstance(error, Http404)
                # The copy was behind (a 404 there), or broke off while read (not the default
                # database): the report again, from the default database.
                if state.wrote or not state.from_replica or not (missing or connections[ALIAS].errors_occurred):
                    raise
                if not missing:
                    connections[ALIAS].close()
                state.unavailable, state.missing = not missing, missing
                return _report(view, state, request, *args, **kwargs)
        finally:
            _status.reset(token)

    return reading


def _report(view, state: Status, request, *args, **kwargs):
    response = view(request, *args, **kwargs)
    if getattr(response, "is_rendered", True) is False:
        response.render()  # its template's reads belong to the report
    if getattr(response, "streaming", False):
        response.streaming_content = _Within(response.streaming_content, state)
    return response


class ReplicaRouter:
    """``DATABASE_ROUTERS``: the reads of a report to the replica, all else to the default database."""

    def db_for_read(self, model, **hints):
        state = _status.get()
        if state is None or state.wrote:
            return None
        if connections[DEFAULT_DB_ALIAS].in_atomic_block:
            return None
        return ALIAS if _reachable(state) else None

    def db_for_write(self, model, **hints):
        state = _status.get()
        if state is not None:
            state.wrote = True
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints):
        return True  # the same rows, read from either copy

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return False if db == ALIAS else None
