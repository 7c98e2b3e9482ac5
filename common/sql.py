"""Fixed SQL for hot paths: statements built once from the models' names, rows turned into
model instances exactly as the ORM builds them.

Domain modules (``quizzes/*/statements.py``) write their statements with ``table``,
``column`` and ``select_list`` and run them with ``fetchall``, ``fetch_each`` or
``one_message_transaction``; ``instance`` turns a row into what the equivalent queryset
returns. Why a read is fixed SQL, and what it saves, is in docs/performance.md.

Every function takes the database alias to use (``using``, the default one unless told):
its connection sends the statement, quotes its names, converts its values, and is the
``db`` of the instances built (``_state.db``), as a queryset's ``.using()`` would.
"""

import hashlib
import weakref
from datetime import datetime
from functools import cache

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models.expressions import Col
from django.utils import timezone

from common import pooler


def database(using: str = DEFAULT_DB_ALIAS):
    """The connection of this thread to ``using``. ``django.db.connection`` is a proxy that finds
    it again on each attribute read (a thread- and task-local lookup): the hot functions below
    read it once."""
    return connections[using]


def table(model, using: str = DEFAULT_DB_ALIAS) -> str:
    return connections[using].ops.quote_name(model._meta.db_table)


def _field(model, attname: str):
    return next(field for field in model._meta.concrete_fields if field.attname == attname)


def column(model, attname: str, using: str = DEFAULT_DB_ALIAS) -> str:
    """The quoted column of a field, by its attribute name (``quiz_id``, ``state``)."""
    return connections[using].ops.quote_name(_field(model, attname).column)


def attnames(model) -> tuple[str, ...]:
    return tuple(field.attname for field in model._meta.concrete_fields)


def select_list(model, alias: str, names: tuple[str, ...], using: str = DEFAULT_DB_ALIAS) -> str:
    return ", ".join(f"{alias}.{column(model, name, using)}" for name in names)


@cache
def _converters(model, names: tuple[str, ...], using: str):
    """For each column needing one, the converters the ORM would apply (SQLite datetimes, booleans)."""
    db = connections[using]
    found = []
    for index, name in enumerate(names):
        field = _field(model, name)
        expression = Col(model._meta.db_table, field)
        converters = db.ops.get_db_converters(expression) + field.get_db_converters(db)
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


def instance(model, names: tuple[str, ...], values, *, using: str = DEFAULT_DB_ALIAS):
    """A model instance from one row of ``names`` columns read from ``using``, as the ORM would build it."""
    converters = _converters(model, names, using)
    if converters:
        db = connections[using]
        values = list(values)
        for index, functions, expression in converters:
            for function in functions:
                values[index] = function(values[index], expression, db)
    return _build(model, names, values, using)


def _build(model, names: tuple[str, ...], values, using: str):
    """``Model.from_db`` for Python values (already converted) named by ``names``."""
    order = _concrete_order(model, names)
    if order is not None:
        names, positions = order
        values = [values[position] for position in positions]
    return model.from_db(using, list(names), list(values))


def fetchall(sql: str, params, *, using: str = DEFAULT_DB_ALIAS) -> list[tuple]:
    return _send(connections[using], [(sql, params)])[0]


def fetch_each(statements: list[tuple[str, list]], *, using: str = DEFAULT_DB_ALIAS) -> list[list[tuple]]:
    """Each statement's rows: in one message (one round trip) where the connection takes several
    statements in one (``_many_per_message``), else one by one. In order: each one reads what
    the ones before it did, and, in a transaction, after the locks they took."""
    db = connections[using]
    if _many_per_message(db):
        return _send(db, statements)
    return [_send(db, [statement])[0] for statement in statements]


def _many_per_message(db) -> bool:
    """Whether one message may hold several statements: PostgreSQL with client-side binding
    (Django's default). Not SQLite (its driver runs one statement per call), nor server-side
    binding (a prepared statement holds one command)."""
    return db.vendor == "postgresql" and not db.settings_dict["OPTIONS"].get("server_side_binding")


# Sending statements ----------------------------------------------------------------------------

# Per PostgreSQL connection (psycopg's), the statements prepared on it; None when that is not
# known (after an error), and the next message starts with DEALLOCATE ALL.
_prepared_on: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def prepares(db) -> bool:
    """Whether statements are prepared on this (open) connection: where a message may hold
    several statements (``_many_per_message``: the PREPARE travels with the first EXECUTE), and
    the connection goes straight to PostgreSQL (``common.pooler``: a pooler in transaction mode
    does not keep a connection's prepared statements from one transaction to the next).
    ``QUIZZES_PREPARED_STATEMENTS`` (``DJANGO_DB_PREPARED_STATEMENTS``) is "auto" for that, or
    True or False: on every connection, or on none."""
    if not _many_per_message(db):
        return False
    setting = settings.QUIZZES_PREPARED_STATEMENTS
    if setting == "auto":
        return not pooler.behind_pooler(db)
    return bool(setting)


@cache
def _prepared_form(sql: str) -> tuple[str, str, str]:
    """``sql`` as a prepared statement: its name, its PREPARE (parameters numbered $1, $2...),
    and the EXECUTE that runs it with the same %s parameters."""
    name = "quizzes_" + hashlib.sha1(sql.encode()).hexdigest()[:16]
    parts = sql.split("%s")
    numbered = parts[0] + "".join(f"${index}{part}" for index, part in enumerate(parts[1:], 1))
    arguments = f"({', '.join(['%s'] * (len(parts) - 1))})" if len(parts) > 1 else ""
    return name, f"PREPARE {name} AS {numbered}", f"EXECUTE {name}{arguments}"


def _send(db, statements: list[tuple[str, list]], *, in_transaction: bool = False) -> list[list[tuple]]:
    """Send ``statements`` to the database in one message and return each one's rows;
    ``in_transaction``: as one transaction, ``BEGIN; ...; COMMIT`` (PostgreSQL only, outside
    any transaction: ``one_message_transaction``).

    On a direct PostgreSQL connection (``prepares``) each statement travels as the EXECUTE of
    a statement prepared on this connection, its PREPARE sent in the same message the first
    time: PostgreSQL then parses and plans it once per connection instead of once per request
    (pgbench: the answer's transaction at twice the rate). Prepared statements outlive a
    rolled-back transaction; after any error this connection's are dropped (DEALLOCATE ALL)
    and prepared again, so that what is known of them is never wrong. Through a pooler the
    statements travel as text.

    Django's connection check (``CONN_HEALTH_CHECKS``) runs before, as before any statement.
    """
    with db.cursor() as cursor:
        raw = db.connection if prepares(db) else None
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


def for_update(using: str = DEFAULT_DB_ALIAS) -> str:
    """Row locks where the database has them (not SQLite, where a write locks the whole file)."""
    return " FOR UPDATE" if connections[using].features.has_select_for_update else ""


def for_key_share(alias: str, using: str = DEFAULT_DB_ALIAS) -> str:
    """A key-share lock on the rows read from ``alias`` (a table or its alias; PostgreSQL): the
    lock a foreign key's check takes on the row it names, which only a ``FOR UPDATE`` or a
    DELETE conflicts with."""
    return f" FOR KEY SHARE OF {alias}" if connections[using].vendor == "postgresql" else ""


def json_array_has(array: str, value: str, using: str = DEFAULT_DB_ALIAS) -> str:
    """A condition: the JSON array column ``array`` holds the number ``value`` (SQL expressions)."""
    if connections[using].vendor == "postgresql":
        # jsonb containment: an array contains a scalar it holds.
        return f"{array} @> to_jsonb({value})"
    return f"EXISTS (SELECT 1 FROM json_each({array}) WHERE json_each.value = {value})"


def in_one_message(db) -> bool:
    """Whether a transaction can travel as one message (``_many_per_message``), outside any
    transaction."""
    return _many_per_message(db) and not db.in_atomic_block


def one_message_transaction(statements: list[tuple[str, list]], *, using: str = DEFAULT_DB_ALIAS) -> list[list[tuple]]:
    """Run ``statements`` as one transaction sent in one message (``BEGIN; ...; COMMIT``): one
    round trip instead of one per statement and two for BEGIN and COMMIT. Returns each one's rows.

    Each statement still reads what was committed when it started (READ COMMITTED takes a
    snapshot per statement, in one message too). When one fails, PostgreSQL skips the rest,
    COMMIT included: the transaction is rolled back here before the error is raised, so the
    connection is always left outside a transaction, as Django expects in autocommit mode.
    """
    return _send(connections[using], statements, in_transaction=True)


def inserted_names(model) -> tuple[str, ...]:
    """The attribute names an INSERT of ``model`` writes: every concrete column but the key, so
    that a column added to the model is written by each fixed INSERT with nothing else to edit."""
    return tuple(field.attname for field in model._meta.concrete_fields if not field.primary_key)


def new_row(model, values: dict) -> dict:
    """Every column of a new ``model`` row (``inserted_names``) by attribute name: ``values``,
    and for the rest what ``Model.save()`` would write: now for ``auto_now``/``auto_now_add``,
    else the field's default, else NULL where the column allows it."""
    row = {}
    for field in model._meta.concrete_fields:
        if field.primary_key:
            continue
        if field.attname in values:
            row[field.attname] = values[field.attname]
        elif getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
            row[field.attname] = timezone.now()
        elif field.has_default():
            row[field.attname] = field.get_default()
        elif field.null:
            row[field.attname] = None
        else:
            raise ValueError(f"A new {model.__name__} row needs a value for {field.attname}.")
    return row


def adapted(values, using: str = DEFAULT_DB_ALIAS) -> list:
    """Parameters as the ORM adapts them: datetimes for the database (SQLite stores them as text)."""
    ops = connections[using].ops
    return [ops.adapt_datetimefield_value(value) if isinstance(value, datetime) else value for value in values]


@cache
def _insert_sql(model, using: str, conflict: str) -> str:
    names = inserted_names(model)
    columns = ", ".join(column(model, name, using) for name in names)
    placeholders = ", ".join(["%s"] * len(names))
    on_conflict = " ON CONFLICT DO NOTHING" if conflict == "ignore" else ""
    returning = column(model, "id", using)
    return f"INSERT INTO {table(model, using)} ({columns}) VALUES ({placeholders}){on_conflict} RETURNING {returning}"


def _prepared(model, row: dict, db) -> list:
    """A new row's values (``new_row``, in ``inserted_names`` order) as parameters, each
    adapted by its field as the ORM's save adapts it (datetimes for SQLite, JSON, UUIDs...)."""
    return [_field(model, name).get_db_prep_save(value, db) for name, value in row.items()]


def insert(model, values: dict, *, conflict: str = "raise", using: str = DEFAULT_DB_ALIAS):
    """INSERT one row (``values`` by attribute name, as Python values; the other columns as
    ``new_row`` fills them) and return it as an instance.

    A row a unique constraint refuses raises IntegrityError, or, with ``conflict="ignore"``,
    is not written and None is returned.
    """
    db = connections[using]
    row = new_row(model, values)
    found = _send(db, [(_insert_sql(model, using, conflict), _prepared(model, row, db))])[0]
    if not found:
        return None
    return _build(model, ("id", *row), (found[0][0], *row.values()), using)


def insert_rows(model, rows: list[dict], *, using: str = DEFAULT_DB_ALIAS) -> None:
    """INSERT ``rows`` (each by attribute name, the other columns as ``new_row`` fills them) in
    one statement, each value adapted as ``insert`` adapts it; nothing for no row."""
    if not rows:
        return
    db = connections[using]
    names = inserted_names(model)
    placeholders = "(" + ", ".join(["%s"] * len(names)) + ")"
    params = []
    for row in rows:
        params += _prepared(model, new_row(model, row), db)
    columns = ", ".join(column(model, name, using) for name in names)
    sql = f"INSERT INTO {table(model, using)} ({columns}) VALUES {', '.join([placeholders] * len(rows))}"
    with db.cursor() as cursor:  # no rows to read back: the driver's plain execute
        cursor.execute(sql, params)
