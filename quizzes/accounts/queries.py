"""The user of a session or of an API token, in one fixed statement each (``common.sql``), on
the database alias given (``using``, the default one unless told)."""

from functools import cache

from django.contrib.auth import get_user_model
from django.db import DEFAULT_DB_ALIAS

from common.sql import (
    attnames,
    column,
    fetchall,
    instance,
    select_list,
    table,
)

# Users -----------------------------------------------------------------------------------------


@cache
def _user_sql(using: str) -> tuple[str, tuple[str, ...]]:
    User = get_user_model()
    names = attnames(User)
    where = f"t.{column(User, 'id', using)} = %s"
    return f"SELECT {select_list(User, 't', names, using)} FROM {table(User, using)} t WHERE {where}", names


def user_get(user_id, *, using: str = DEFAULT_DB_ALIAS):
    """The user with this primary key, or None (what ModelBackend.get_user reads)."""
    sql, names = _user_sql(using)
    rows = fetchall(sql, [user_id], using=using)
    return instance(get_user_model(), names, rows[0], using=using) if rows else None


@cache
def _token_sql(using: str) -> tuple[str, tuple[str, ...]]:
    from rest_framework.authtoken.models import Token

    User = get_user_model()
    names = attnames(User)
    sql = (
        f"SELECT {select_list(User, 'u', names, using)} FROM {table(Token, using)} t "
        f"JOIN {table(User, using)} u ON u.{column(User, 'id', using)} = t.{column(Token, 'user_id', using)} "
        f"WHERE t.{column(Token, 'key', using)} = %s"
    )
    return sql, names


def token_user_get(key: str, *, using: str = DEFAULT_DB_ALIAS):
    """The user an API token belongs to, or None."""
    sql, names = _token_sql(using)
    rows = fetchall(sql, [key], using=using)
    return instance(get_user_model(), names, rows[0], using=using) if rows else None
