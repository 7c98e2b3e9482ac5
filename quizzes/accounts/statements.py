"""The user of a session or of an API token, in one fixed statement each (``common.sql``)."""

from functools import cache

from django.contrib.auth import get_user_model
from django.db import connection

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
def _user_sql(vendor: str) -> tuple[str, tuple[str, ...]]:
    User = get_user_model()
    names = attnames(User)
    return f"SELECT {select_list(User, 't', names)} FROM {table(User)} t WHERE t.{column(User, 'id')} = %s", names


def user_get(user_id):
    """The user with this primary key, or None (what ModelBackend.get_user reads)."""
    sql, names = _user_sql(connection.vendor)
    rows = fetchall(sql, [user_id])
    return instance(get_user_model(), names, rows[0]) if rows else None


@cache
def _token_sql(vendor: str) -> tuple[str, tuple[str, ...]]:
    from rest_framework.authtoken.models import Token

    User = get_user_model()
    names = attnames(User)
    sql = (
        f"SELECT {select_list(User, 'u', names)} FROM {table(Token)} t "
        f"JOIN {table(User)} u ON u.{column(User, 'id')} = t.{column(Token, 'user_id')} "
        f"WHERE t.{column(Token, 'key')} = %s"
    )
    return sql, names


def token_user_get(key: str):
    """The user an API token belongs to, or None."""
    sql, names = _token_sql(connection.vendor)
    rows = fetchall(sql, [key])
    return instance(get_user_model(), names, rows[0]) if rows else None
