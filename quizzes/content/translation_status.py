"""Whether each translation is up to date with the English it was written from.

Every translated row (Course, Quiz, Question, Choice) keeps, in its
``translation_sources`` JSON field, the hash of the English text each of its
translations was written against: ``{"text_ur": "<sha256(English)[:16]>",
"text_ind": ...}`` (keys are the translation columns). The status of one
(object, field, language) is then:

- ``translated``: the translation is present and was written against the
  current English;
- ``stale``: present, but the English changed since it was written (or it
  carries no record at all: it was written by a path that does not stamp,
  such as ``QuerySet.update`` in a shell, so nobody can say it matches);
- ``missing``: empty, so learners see the English (the per-field fallback).

A field whose English is empty (an optional description) has nothing to
translate and is not counted; nor are archived questions and choices, which
learners no longer see.

Why a JSON field on the row and not a table of its own: the record travels
with the text it describes. It is written by the same ``save()`` as the
translation (no second table to keep in step, nothing to forget when a row
is copied), fixtures carry it under the rows' natural keys without a model
of their own, a quiz's status is computed from the rows the admin already
loads, and SQLite and PostgreSQL both filter on JSON keys (the admin's
"Stale in" filters are plain SQL). Hashes instead of a version counter: the
same English text always gives the same hash, so undoing an edit of the
English makes its translations current again, and a fixture or an import
can compute the stamp with nothing but the text.

Writes stamp: the admin forms (``quizzes.content.forms.TranslationStampMixin``) stamp
each translation an editor changed, and only those (a change of the English
alone leaves its translations stale); ``import_quiz`` stamps the language it
imports; the fixtures ship with their stamps; ``translations_confirm`` marks
reviewed translations current. Migration 0004 stamped every translation that
existed before this record did as current: they had been checked when they
were imported.
"""

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from django.conf import settings
from django.db import models
from django.db.models import CharField, Exists, F, Func, OuterRef, Q, Value
from django.db.models.fields.json import KT
from django.db.models.functions import Coalesce, Left
from django.db.models.lookups import Exact, IsNull
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from quizzes.content.languages import SOURCE_LANGUAGE, TRANSLATION_LANGUAGES, column
from quizzes.models import Choice, Course, Question, Quiz

SOURCES_FIELD = "translation_sources"
HASH_LENGTH = 16

TRANSLATED_FIELDS: dict[type[models.Model], tuple[str, ...]] = {
    Course: ("title", "description"),
    Quiz: ("title", "description"),
    Question: ("text", "explanation"),
    Choice: ("text",),
}


class Status(models.TextChoices):
    TRANSLATED = "translated", _("up to date")
    STALE = "stale", _("stale: the English changed since")
    MISSING = "missing", _("missing: shown in English")


def source_hash(text: str | None) -> str:
    """The stamp of an English text: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256((text or "").encode("utf-8")).hexdigest()[:HASH_LENGTH]


def translation_columns(model: type[models.Model]) -> list[tuple[str, str, str]]:
    """(field, language, column) of every translation of ``model``; English excluded."""
    return [
        (name, language, column(name, language))
        for name in TRANSLATED_FIELDS[model]
        for language in TRANSLATION_LANGUAGES
    ]


def translation_status(obj, name: str, language: str) -> Status | None:
    """The status of one translation; None when the English is empty (nothing to translate)."""
    english = getattr(obj, column(name, SOURCE_LANGUAGE)) or ""
    if not english:
        return None
    if not (getattr(obj, column(name, language)) or ""):
        return Status.MISSING
    recorded = (getattr(obj, SOURCES_FIELD) or {}).get(column(name, language))
    return Status.TRANSLATED if recorded == source_hash(english) else Status.STALE


# Writing the stamps ------------------------------------------------------------


def translations_stamp(obj, *, columns: Iterable[str] | None = None) -> list[str]:
    """Record that these translation columns of ``obj`` match its current English.

    ``columns`` defaults to every translation column. An empty translation
    loses its stamp. Sets the attribute only: the caller saves the row.
    Returns the columns whose stamp changed.
    """
    wanted = None if columns is None else set(columns)
    sources = dict(getattr(obj, SOURCES_FIELD) or {})
    changed = []
    for name, _language, translated in translation_columns(type(obj)):
        if wanted is not None and translated not in wanted:
            continue
        if getattr(obj, translated) or "":
            stamp = source_hash(getattr(obj, column(name, SOURCE_LANGUAGE)))
            if sources.get(translated) != stamp:
                sources[translated] = stamp
                changed.append(translated)
        elif sources.pop(translated, None) is not None:
            changed.append(translated)
    setattr(obj, SOURCES_FIELD, sources)
    return changed


def translations_stamp_changed(obj, *, before: Mapping[str, object]) -> list[str]:
    """Stamp each translation of ``obj`` whose text differs from ``before`` (the stored values).

    A translation left as it was keeps its old stamp, so a change of the
    English alone makes it stale. A new row passes ``before={}``: all its
    translations are new.
    """
    edited = [
        translated
        for _name, _language, translated in translation_columns(type(obj))
        if (getattr(obj, translated) or "") != (before.get(translated) or "")
    ]
    # Clearing a translation drops its stamp too.
    return translations_stamp(obj, columns=edited) if edited else []


# Reading them in the database ---------------------------------------------------


class _Sha256Hex(Func):
    """Hex SHA-256 of a text: Django's SQLite backend registers SHA256();
    PostgreSQL has sha256(bytea) built in (no pgcrypto needed)."""

    function = "SHA256"
    output_field = CharField()

    def as_postgresql(self, compiler, connection, **extra_context):
        return self.as_sql(
            compiler, connection, template="ENCODE(SHA256(CONVERT_TO(%(expressions)s, 'UTF8')), 'hex')", **extra_context
        )


def _present(col: str, prefix: str = "") -> Q:
    return Q(**{f"{prefix}{col}__isnull": False}) & ~Q(**{f"{prefix}{col}": ""})


def missing_q(name: str, language: str, *, prefix: str = "") -> Q:
    """Rows whose ``name`` has English but no ``language`` translation."""
    return _present(column(name, SOURCE_LANGUAGE), prefix) & ~_present(column(name, language), prefix)


def stale_q(name: str, language: str, *, prefix: str = "") -> Q:
    """Rows whose ``name`` translation was not written against the current English."""
    recorded = KT(f"{prefix}{SOURCES_FIELD}__{column(name, language)}")
    current = Left(_Sha256Hex(Coalesce(F(f"{prefix}{column(name, SOURCE_LANGUAGE)}"), Value(""))), HASH_LENGTH)
    return (
        _present(column(name, SOURCE_LANGUAGE), prefix)
        & _present(column(name, language), prefix)
        & (Q(IsNull(recorded, True)) | ~Q(Exact(recorded, current)))
    )


def _any_field(model, kind: str, language: str) -> Q:
    build = stale_q if kind == Status.STALE else missing_q
    result = Q()
    for name in TRANSLATED_FIELDS[model]:
        result |= build(name, language)
    return result


def question_needs_q(kind: str, language: str) -> Q:
    """Questions with a ``kind`` (stale or missing) translation in ``language``,
    in their own fields or in one of their choices (archived choices aside)."""
    choices = Choice.objects.filter(question=OuterRef("pk"), is_archived=False).filter(
        _any_field(Choice, kind, language)
    )
    return _any_field(Question, kind, language) | Q(Exists(choices))


def quiz_needs_q(kind: str, language: str) -> Q:
    """Quizzes with a ``kind`` translation in ``language``, in their own fields
    or in a question or choice (archived ones aside)."""
    questions = Question.objects.filter(quiz=OuterRef("pk"), is_archived=False).filter(question_needs_q(kind, language))
    return _any_field(Quiz, kind, language) | Q(Exists(questions))


# One quiz's report ----------------------------------------------------------------


@dataclass(frozen=True)
class TranslationItem:
    """One translation that needs work: where it is, and the admin page to fix it."""

    where: str
    field: str
    status: Status
    url: str


@dataclass
class LanguageReport:
    code: str
    name: str
    translated: int = 0
    stale: int = 0
    missing: int = 0
    items: list[TranslationItem] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.translated + self.stale + self.missing

    @property
    def percent(self) -> int:
        return self.translated * 100 // self.total if self.total else 100

    @property
    def stale_items(self) -> list[TranslationItem]:
        return [item for item in self.items if item.status == Status.STALE]

    @property
    def missing_items(self) -> list[TranslationItem]:
        return [item for item in self.items if item.status == Status.MISSING]


def quiz_translation_report(quiz: Quiz) -> list[LanguageReport]:
    """Per language: how many of the quiz's texts (its own, its questions' and
    their choices') are up to date, stale or missing, and which.

    Pass a quiz from ``selectors.quiz_content_get`` (questions and choices
    prefetched, archived ones left out).
    """
    reports = {code: LanguageReport(code, str(name)) for code, name in settings.LANGUAGES if code != SOURCE_LANGUAGE}
    quiz_url = reverse("admin:quizzes_quiz_change", args=[quiz.pk])
    rows = [(quiz, str(_("Quiz")), quiz_url)]
    for question in quiz.questions.all():
        url = reverse("admin:quizzes_question_change", args=[question.pk])
        rows.append((question, _("Question %(position)s") % {"position": question.position}, url))
        for choice in question.choices.all():
            where = _("Question %(question)s, choice %(choice)s") % {
                "question": question.position,
                "choice": choice.position,
            }
            rows.append((choice, where, url))
    for obj, where, url in rows:
        for name, language, _translated in translation_columns(type(obj)):
            status = translation_status(obj, name, language)
            if status is None:
                continue
            report = reports[language]
            setattr(report, status.value, getattr(report, status.value) + 1)
            if status != Status.TRANSLATED:
                label = str(obj._meta.get_field(name).verbose_name)
                report.items.append(TranslationItem(str(where), label, status, url))
    return list(reports.values())


def object_translation_problems(obj) -> dict[str, list[tuple[str, Status]]]:
    """language code -> [(field, status)] of the translations of ``obj`` that are not up to date."""
    found: dict[str, list[tuple[str, Status]]] = {}
    for name, language, _translated in translation_columns(type(obj)):
        status = translation_status(obj, name, language)
        if status not in (None, Status.TRANSLATED):
            found.setdefault(language, []).append((name, status))
    return found
