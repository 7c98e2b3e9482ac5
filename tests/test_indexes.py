"""The schema's indexes, as the migrations leave them (on SQLite and on PostgreSQL).

Every foreign key is found through an index that leads with its column (a join, a cascade,
a student's rows), and no plain index repeats the lead of another: each INSERT updates
every index of its table, so one that a composite index already serves is only cost
(migration 0005 dropped seven).
"""

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection, models

pytestmark = pytest.mark.django_db


def _models():
    return list(apps.get_app_config("quizzes").get_models())


def _indexes(model) -> dict[str, dict]:
    """The table's indexes and index-backed constraints, by name: columns, unique, partial."""
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, model._meta.db_table)
    partial = {
        item.name
        for item in [*model._meta.constraints, *model._meta.indexes]
        if getattr(item, "condition", None) is not None
    }
    return {
        name: {
            "columns": list(entry["columns"]),
            "unique": bool(entry["unique"] or entry["primary_key"]),
            "partial": name in partial,
        }
        for name, entry in found.items()
        if (entry["index"] or entry["unique"] or entry["primary_key"]) and entry["columns"] and not entry["foreign_key"]
    }


# With a database router set, makemigrations checks the migration history of every alias.
@pytest.mark.django_db(databases="__all__")
def test_the_models_and_the_migrations_agree():
    call_command("makemigrations", "quizzes", "--check", "--dry-run", verbosity=0)


@pytest.mark.parametrize("model", _models(), ids=lambda model: model.__name__)
def test_every_foreign_key_is_the_lead_of_an_index(model):
    indexes = _indexes(model)
    for field in model._meta.concrete_fields:
        if isinstance(field, models.ForeignKey):
            leading = [
                name for name, index in indexes.items() if index["columns"][0] == field.column and not index["partial"]
            ]
            assert leading, f"{model.__name__}.{field.name}: no index leads with {field.column}"


@pytest.mark.parametrize("model", _models(), ids=lambda model: model.__name__)
def test_no_plain_index_repeats_the_lead_of_another(model):
    indexes = _indexes(model)
    for name, index in indexes.items():
        if index["unique"] or name.endswith("_like"):
            # A constraint, not only a way in; or Django's twin of a text column's index on
            # PostgreSQL, in the pattern operator class (LIKE 'prefix%'), which the other can't serve.
            continue
        width = len(index["columns"])
        covering = [
            other
            for other, entry in indexes.items()
            if other != name and not entry["partial"] and entry["columns"][:width] == index["columns"]
        ]
        assert not covering, f"{model._meta.db_table}: {name} {index['columns']} is the lead of {covering}"


def test_the_check_finds_a_redundant_index():
    """The test above can fail: an index on the answer's attempt (the lead of the unique
    (attempt, question)) is reported."""
    from quizzes.models import Answer

    with connection.cursor() as cursor:
        cursor.execute("CREATE INDEX answer_attempt_again ON quizzes_answer (attempt_id)")
        try:
            with pytest.raises(AssertionError, match="answer_attempt_again"):
                test_no_plain_index_repeats_the_lead_of_another(Answer)
        finally:
            cursor.execute("DROP INDEX answer_attempt_again")
