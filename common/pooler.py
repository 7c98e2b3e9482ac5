"""Whether a PostgreSQL connection goes to its server directly or through a pooler, found once
per new connection, and what Django then must not leave on it.

A pooler in transaction mode (PgBouncer's ``pool_mode = transaction``) gives each
transaction whichever server connection is free: what one transaction leaves in its
session (a prepared statement, a cursor declared WITH HOLD, a ``SET``) is not there for
the next. Direct connections keep it all, and the fixed SQL (``common.sql``) prepares its
statements on them: only on them.

The test: the process id in the key PostgreSQL sends when a session starts
(BackendKeyData, ``info.backend_pid``) against ``pg_backend_pid()``, the process that
actually runs our statements. They are the same on a connection to PostgreSQL (through
any TCP proxy, NAT or tunnel too, which keep one session); a pooler cannot pass a
server's key on, since its client has no server of its own, and sends a key it made up
(PgBouncer: random bytes). One ``SELECT`` when Django opens a connection (the
``connection_created`` signal); connections are persistent (``CONN_MAX_AGE``).

Through a pooler:

- ``common.sql`` sends its statements as text (``common.sql.prepares``);
- psycopg's own prepared statements (protocol-level, which PgBouncer 1.18 does not
  follow; off in Django unless OPTIONS sets ``prepare_threshold``, used with
  ``"server_side_binding": True``) are turned off on the connection;
- server-side cursors (``QuerySet.iterator()``) are turned off for the alias, as
  Django's documentation requires behind transaction pooling
  (``DISABLE_SERVER_SIDE_CURSORS``): a cursor declared in autocommit mode outlives its
  transaction, and its next FETCH may reach another server connection.

Django's other per-connection setting, ``SET TIME ZONE`` (USE_TZ, when the server's
default is not TIME_ZONE), is kept by PgBouncer itself: it tracks TimeZone (with
client_encoding, DateStyle, standard_conforming_strings, application_name) per client
and sets it again on each server connection the client's transactions get. Nothing
else here sets anything on a session: no advisory locks, no LISTEN, and no ``assume_role``
(OPTIONS), whose ``SET ROLE`` PgBouncer does not track.
"""

import weakref

# Per psycopg connection: True through a pooler, False when direct.
_pooled: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def behind_pooler(db) -> bool:
    """Whether the (open) PostgreSQL connection of ``db`` goes through a pooler: found when it
    was opened (``connection_created``), or now if it was opened before the signal was connected."""
    raw = db.connection
    found = _pooled.get(raw)
    if found is None:
        found = _probe(db)
    return found


def connection_created(sender, connection, **kwargs) -> None:
    """Receiver of Django's ``connection_created``: probe each new PostgreSQL connection (once:
    with Django's ``"pool"`` option a psycopg connection comes back for many requests)."""
    if connection.vendor == "postgresql" and connection.connection not in _pooled:
        _probe(connection)


def _probe(db) -> bool:
    raw = db.connection
    with raw.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (server_pid,) = cursor.fetchone()
    if not raw.autocommit:
        raw.rollback()  # the probe's transaction, when the connection does not autocommit
    pooled = server_pid != raw.info.backend_pid
    _pooled[raw] = pooled
    if pooled:
        if hasattr(raw, "prepare_threshold"):  # psycopg 3
            raw.prepare_threshold = None
        # The alias's settings, shared by its connections in every thread: they all go the same way.
        db.settings_dict["DISABLE_SERVER_SIDE_CURSORS"] = True
    return pooled
