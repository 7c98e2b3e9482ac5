import hashlib

from django.db import migrations

# Frozen copies (a migration must not follow later code changes).
_FIELDS = {
    "course": ("title", "description"),
    "quiz": ("title", "description"),
    "question": ("text", "explanation"),
    "choice": ("text",),
}


def _hash(text):
    return hashlib.sha256((text or "").encode("utf-8")).hexdigest()[:16]


def records_from_hashes(apps, schema_editor):
    """Each hash stamp becomes a record of the English it was written against: the current
    English when the hash matches it; none (so still stale) when it does not, since a hash
    cannot give the text back. Every earlier translation was written by a person."""
    for model_name, fields in _FIELDS.items():
        model = apps.get_model("quizzes", model_name)
        changed = []
        for row in model.objects.exclude(translation_sources={}):
            records = {}
            for column, value in (row.translation_sources or {}).items():
                if isinstance(value, dict):
                    records[column] = value
                    continue
                name = column.rsplit("_", 1)[0]
                english = getattr(row, f"{name}_en") or ""
                if name in fields and value == _hash(english):
                    records[column] = {"english": english, "state": "translated"}
                else:
                    records[column] = {"state": "translated"}
            row.translation_sources = records
            changed.append(row)
        model.objects.bulk_update(changed, ["translation_sources"], batch_size=500)


def hashes_from_records(apps, schema_editor):
    for model_name in _FIELDS:
        model = apps.get_model("quizzes", model_name)
        changed = []
        for row in model.objects.exclude(translation_sources={}):
            row.translation_sources = {
                column: _hash(value["english"]) if isinstance(value, dict) and "english" in value else ""
                for column, value in (row.translation_sources or {}).items()
            }
            changed.append(row)
        model.objects.bulk_update(changed, ["translation_sources"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [("quizzes", "0011_lti_course_links_and_nonces")]

    operations = [migrations.RunPython(records_from_hashes, hashes_from_records)]
