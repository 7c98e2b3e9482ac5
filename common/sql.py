"""Fixed SQL for hot paths: statements built once from the models' names, rows turned into
model instances exactly as the ORM builds them.

Domain modules (``quizzes/*/statements.py``) write their statements with ``table``,
``column`` and ``select_list`` and run them with ``fetchall``, ``fetch_each`` or
``one_message_transaction``; ``instance`` turns a row into what the equivalent queryset
returns. Why a read is fixed SQL, and what it saves, is in docs/performance.md.
"""

import hashlib
import weakref
from datetime import datetime
from functools import cache

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, Error, connection, connections
from django.db.models.expressions import Col


def table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _field(model, attname: str):
    return next(field for field in model._meta.concrete_fields if field.attname == attname)


def column(model, attname: str) -> str:
    """The quoted column of a field, by its attribute name (``quiz_id``, ``state``)."""
    return connection.ops.quote_name(_field(model, attname).column)


def attnames(model) -> tuple[str, ...]:
    return tuple(field.attname for field in model._meta.concrete_fields)


def select_list(model, alias: str, names: tuple[str, ...]) -> str:
    return ", ".join(f"{alias}.{column(model, name)}" for name in names)


@cache
def _converters(model, names: tuple[str, ...], vendor: str):
    """For each column needing one, the converters the ORM would apply (SQLite datetimes, booleans)."""
    found = []
    for index, name in enumerate(names):
        field = _field(model, name)
        expression = Col(model._meta.db_table, field)
        converters = connection.ops.get_db_converters(expression) + field.get_db_converters(connection)
        if converters:
            found.append((index, converters, expression))
    return tuple(found)


@cache
def _concrete_order(model, names: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
    """``Model.from_db`` takes values in the order of the model's fields: the names in that
    order and where each one's value is in ``names``, or None when ``names`` are in order."""
    ordered = tuple(field.attname for field in model._meta.concrete_fields if field.attname in names)
    if ordered == names:
        return None
    return ordered, tuple(names.index(name) for name in ordered)


def database():
    """The database connection of this thread. ``connection`` is a proxy that finds it again on
    each attribute read (a thread- and task-local lookup): the hot functions below read it once."""
    return connections[DEFAULT_DB_ALIAS]


def instance(model, names: tuple[str, ...], values):
    """A model instance from one row of ``names`` columns, as the ORM would build it."""
    db = database()
    converters = _converters(model, names, db.vendor)
    if converters:
        values = list(values)
        for index, functions, expression in converters:
            for function in functions:
                values[index] = function(values[index], expression, db)
    return _build(model, names, values)


def _build(model, names: tuple[str, ...], values):
    """``Model.from_db`` for Python values (already converted) named by ``names``."""
    order = _concrete_order(model, names)
    if order is not None:
        names, positions = order
        values = [values[position] for position in positions]
    return model.from_db(DEFAULT_DB_ALIAS, list(names), list(values))


def fetchall(sql: str, params) -> list[tuple]:
    return _send([(sql, params)])[0]


def fetch_each(statements: list[tuple[str, list]]) -> list[list[tuple]]:
    """Each statement's rows: in one message (one round trip) where the connection takes several
    statements in one (``_many_per_message``), else one by one. In order: each one reads what
    the ones before it did, and, in a transaction, after the locks they took."""
    if _many_per_message(database()):
        return _send(statements)
    return [fetchall(sql, params) for sql, params in statements]


def _many_per_message(db) -> bool:
    """Whether one message may hold several statements: PostgreSQL with client-side binding
    (Django's default). Not SQLite (its driver runs one statement per call), nor server-side
    binding (a prepared statement holds one command)."""
    return db.vendor == "postgresql" and not db.settings_dict["OPTIONS"].get("server_side_binding")


# Sending statements ----------------------------------------------------------------------------

# Per PostgreSQL connection (psycopg's), the statements prepared on it; None when that is not
# known (after an error), and the next message starts with DEALLOCATE ALL.
_prepared_on: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _prepares(db) -> bool:
    """Whether statements are prepared: where a message may hold several statements
    (``_many_per_message``: the PREPARE travels with the first EXECUTE; with server-side
    binding psycopg prepares by itself), unless turned off in the settings
    (``QUIZZES_PREPARED_STATEMENTS``: off behind a pooler in transaction mode)."""
    return _many_per_message(db) and settings.QUIZZES_PREPARED_STATEMENTS


@cache
def _prepared_form(sql: str) -> tuple[str, str, str]:
    """``sql`` as a prepared statement: its name, its PREPARE (parameters numbered $1, $2...),
    and the EXECUTE that runs it with the same %s parameters."""
    name = "quizzes_" + hashlib.sha1(sql.encode()).hexdigest()[:16]
    parts = sql.split("%s")
    numbered = parts[0] + "".join(f"${index}{part}" for index, part in enumerate(parts[1:], 1))
    arguments = f"({', '.join(['%s'] * (len(parts) - 1))})" if len(parts) > 1 else ""
    return name, f"PREPARE {name} AS {numbered}", f"EXECUTE {name}{arguments}"


def _send(statements: list[tuple[str, list]], *, in_transaction: bool = False) -> list[list[tuple]]:
    """Send ``statements`` to the database in one message and return each one's rows
    (``_send_once``); the first reads of a request are their own connection check.

    With ``conn_health_checks``, Django checks a persistent connection before a request's
    first statement with a ``SELECT 1``: a round trip of its own, as much as a statement.
    Here a request's first statements, when they only read, are sent at once instead: if
    the connection turns out to be lost (the server restarted, the backend was killed while
    idle), it is closed and they are sent again on a new one, as the check would have done.
    Reading twice changes nothing; a transaction (an answer) is never sent twice, so a
    request whose first statement writes gets Django's check before it.
    """
    db = database()
    if in_transaction or not _checks_itself(db):
        return _send_once(db, statements, in_transaction=in_transaction)
    db.health_check_done = True  # the statements below are the check
    try:
        return _send_once(db, statements)
    except Error:
        if db.is_usable():
            raise  # the statements failed, not the connection
    db.close()
    return _send_once(db, statements)


def _checks_itself(db) -> bool:
    """Whether the next statement would come after Django's health check of a persistent
    connection (outside a transaction: a connection lost in one cannot be replaced)."""
    return db.connection is not None and db.health_check_enabled and not db.health_check_done and not db.in_atomic_block


def _send_once(db, statements: list[tuple[str, list]], *, in_transaction: bool = False) -> list[list[tuple]]:
    """Send ``statements`` to the database in one message and return each one's rows;
    ``in_transaction``: as one transaction, ``BEGIN; ...; COMMIT`` (PostgreSQL only, outside
    any transaction: ``one_message_transaction``).

    On PostgreSQL each statement travels as the EXECUTE of a statement prepared on this
    connection, its PREPARE sent in the same message the first time: PostgreSQL then parses
    and plans it once per connection instead of once per request (pgbench: the answer's
    transaction at twice the rate). Prepared statements outlive a rolled-back transaction;
    after any error this connection's are dropped (DEALLOCATE ALL) and prepared again, so
    that what is known of them is never wrong.
    """
    with db.cursor() as cursor:
        raw = db.connection if _prepares(db) else None
        setup, new = _preparations(raw, statements) if raw is not None else ([], set())
        head = ["BEGIN", *setup] if in_transaction else setup
        body = [_prepared_form(sql)[2] if raw is not None else sql for sql, _params in statements]
        tail = ["COMMIT"] if in_transaction else []
        params = [param for _sql, statement_params in statements for param in statement_params]
        try:
            cursor.execute("; ".join([*head, *body, *tail]), params)
        except Exception:
            if raw is not None:
                _prepared_on[raw] = None  # not known any more: DEALLOCATE ALL in the next message
            if in_transaction and _in_transaction_block(db):
                cursor.execute("ROLLBACK")
            raise
        if raw is not None:
            _prepared_on[raw] |= new
        for _result in head:  # past BEGIN, DEALLOCATE and the PREPAREs
            cursor.nextset()
        found = []
        for index in range(len(statements)):
            if index:
                cursor.nextset()
            found.append(cursor.fetchall())
    return found


def _preparations(raw, statements: list[tuple[str, list]]) -> tuple[list[str], set[str]]:
    """What must come before ``statements`` on this (psycopg) connection: DEALLOCATE ALL when
    what is prepared on it is not known, and the PREPARE of each statement not prepared yet.
    Returns those texts and the names they prepare (known once the message has run)."""
    texts = []
    if _prepared_on.get(raw) is None:
        if raw in _prepared_on:
            texts.append("DEALLOCATE ALL")
        _prepared_on[raw] = set()
    prepares = {}  # name -> PREPARE, once each, in order
    for sql, _params in statements:
        name, prepare, _execute = _prepared_form(sql)
        if name not in _prepared_on[raw]:
            prepares.setdefault(name, prepare)
    return [*texts, *prepares.values()], set(prepares)


def _in_transaction_block(db) -> bool:
    from psycopg.pq import TransactionStatus

    return db.connection.info.transaction_status in (TransactionStatus.INTRANS, TransactionStatus.INERROR)


def for_update() -> str:
    """Row locks where the database has them (not SQLite, where a write locks the whole file)."""
    return " FOR UPDATE" if connection.features.has_select_for_update else ""


def in_one_message(db) -> bool:
    """Whether a transaction can travel as one message (``_many_per_message``), outside any
    transaction."""
    return _many_per_message(db) and not db.in_atomic_block


def one_message_transaction(statements: list[tuple[str, list]]) -> list[list[tuple]]:
    """Run ``statements`` as one transaction sent in one message (``BEGIN; ...; COMMIT``): one
    round trip instead of one per statement and two for BEGIN and COMMIT. Returns each one's rows.

    Each statement still reads what was committed when it started (READ COMMITTED takes a
    snapshot per statement, in one message too). When one fails, PostgreSQL skips the rest,
    COMMIT included: the transaction is rolled back here before the error is raised, so the
    connection is always left outside a transaction, as Django expects in autocommit mode.
    """
    return _send(statements, in_transaction=True)


@cache
def _insert_sql(model, names: tuple[str, ...], vendor: str, conflict: str) -> str:
    columns = ", ".join(column(model, name) for name in names)
    placeholders = ", ".join(["%s"] * len(names))
    on_conflict = " ON CONFLICT DO NOTHING" if conflict == "ignore" else ""
    return (
        f"INSERT INTO {table(model)} ({columns}) VALUES ({placeholders}){on_conflict} RETURNING {column(model, 'id')}"
    )


def insert(model, values: dict, *, conflict: str = "raise"):
    """INSERT one row of ``values`` (by attribute name) and return it as an instance.

    Datetimes are adapted as the ORM adapts them (SQLite stores them as text). A row a unique
    constraint refuses raises IntegrityError, or, with ``conflict="ignore"``, is not written
    and None is returned.
    """
    names = tuple(values)
    params = [
        connection.ops.adapt_datetimefield_value(value) if isinstance(value, datetime) else value
        for value in values.values()
    ]
    found = fetchall(_insert_sql(model, names, database().vendor, conflict), params)
    if not found:
        return None
    return _build(model, ("id", *names), (found[0][0], *values.values()))
