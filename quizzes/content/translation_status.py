"""The state of each translation: missing, machine-made, translated, reviewed or stale.

Every translated row (Course, Quiz, Question, Choice) keeps, in its
``translation_sources`` JSON field, a record per translation column
(``text_ur``, ``text_ind``...): the English text the translation was written
against and how it was made::

    {"text_ur": {"english": "What does checkpointing trade?", "state": "translated"}}

``state`` is ``machine`` (imported as a machine translation), ``translated``
(written or edited by a person) or ``reviewed`` (checked by a reviewer, or
imported from a file that marks it final). The status of one (object, field,
language) is then:

- ``missing``: empty, so learners see the English (the per-field fallback);
- ``stale``: present, but the English changed since it was written (or it
  carries no record at all: it was written by a path that does not stamp,
  such as ``QuerySet.update`` in a shell, so nobody can say it matches); the
  record's ``english`` is what it was written against, so a translator sees
  what changed;
- otherwise the record's state: ``machine``, ``translated`` or ``reviewed``.

A field whose English is empty (an optional description) has nothing to
translate and is not counted; nor are archived questions and choices, which
learners no longer see.

Why a JSON field on the row and not a table of its own: the record travels
with the text it describes. It is written by the same ``save()`` as the
translation (no second table to keep in step, nothing to forget when a row
is copied), fixtures carry it under the rows' natural keys without a model
of their own, a quiz's status is computed from the rows the admin already
loads, and SQLite and PostgreSQL both filter on JSON keys (the admin's
filters are plain SQL). The English itself rather than a version counter or a
hash: the same English text always matches, so undoing an edit of the English
makes its translations current again, and an export can show the translator
the English a stale translation was written against.

Writes stamp, all through ``translations_stamp``: the admin forms
(``quizzes.admin.content_forms.TranslationStampMixin``) stamp each translation an
editor changed, and only those (a change of the English alone leaves its
translations stale), as ``translated``; ``import_quiz`` stamps the language it
imports; ``import_translations`` stamps each unit with the state its file
gives; the fixtures ship with their records; ``translations_confirm`` marks a
reviewer's languages ``reviewed``. Migration 0012 turned the hashes of the
earlier records into this form.
"""

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from django.conf import settings
from django.db import models
from django.db.models import Exists, F, OuterRef, Q
from django.db.models.fields.json import KT
from django.db.models.lookups import Exact, IsNull
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from quizzes.content.languages import SOURCE_LANGUAGE, TRANSLATION_LANGUAGES, column, translated_fields
from quizzes.models import Choice, Course, Question, Quiz

SOURCES_FIELD = "translation_sources"

# The translated models; their fields: ``languages.translated_fields``.
TRANSLATED_MODELS = (Course, Quiz, Question, Choice)


class Status(models.TextChoices):
    MISSING = "missing", _("missing: shown in English")
    MACHINE = "machine", _("machine translation")
    TRANSLATED = "translated", _("translated")
    REVIEWED = "reviewed", _("reviewed")
    STALE = "stale", _("stale: the English changed since")


# The states a record holds; missing and stale follow from the texts.
RECORDED_STATES = (Status.MACHINE, Status.TRANSLATED, Status.REVIEWED)
# Written by a person against the current English: nothing left to do.
HUMAN_STATES = (Status.TRANSLATED, Status.REVIEWED)


def translation_record(obj, translated_column: str) -> dict:
    """The record of one translation column: ``{"english": ..., "state": ...}``, {} when none."""
    record = (getattr(obj, SOURCES_FIELD) or {}).get(translated_column)
    return record if isinstance(record, dict) else {}


def written_against(obj, name: str, language: str) -> str | None:
    """The English the ``language`` translation of ``name`` was written against; None when unknown."""
    return translation_record(obj, column(name, language)).get("english")


def translation_columns(model: type[models.Model]) -> list[tuple[str, str, str]]:
    """(field, language, column) of every translation of ``model``; English excluded."""
    return [
        (name, language, column(name, language))
        for name in translated_fields(model)
        for language in TRANSLATION_LANGUAGES
    ]


def translation_status(obj, name: str, language: str) -> Status | None:
    """The status of one translation; None when the English is empty (nothing to translate)."""
    english = getattr(obj, column(name, SOURCE_LANGUAGE)) or ""
    if not english:
        return None
    if not (getattr(obj, column(name, language)) or ""):
        return Status.MISSING
    record = translation_record(obj, column(name, language))
    if record.get("english") != english:
        return Status.STALE
    state = record.get("state")
    return Status(state) if state in RECORDED_STATES else Status.TRANSLATED


# Writing the stamps ------------------------------------------------------------


def translations_stamp(obj, *, columns: Iterable[str] | None = None, state: Status = Status.TRANSLATED) -> list[str]:
    """Record that these translation columns of ``obj`` match its current English, made
    as ``state`` (machine, translated or reviewed).

    ``columns`` defaults to every translation column. An empty translation
    loses its record. Sets the attribute only: the caller saves the row.
    Returns the columns whose record changed.
    """
    if state not in RECORDED_STATES:
        raise ValueError(f"a translation is stamped machine, translated or reviewed, not {state!r}")
    wanted = None if columns is None else set(columns)
    sources = dict(getattr(obj, SOURCES_FIELD) or {})
    changed = []
    for name, _language, translated in translation_columns(type(obj)):
        if wanted is not None and translated not in wanted:
            continue
        if getattr(obj, translated) or "":
            record = {"english": getattr(obj, column(name, SOURCE_LANGUAGE)) or "", "state": str(state)}
            if sources.get(translated) != record:
                sources[translated] = record
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


def _present(col: str, prefix: str = "") -> Q:
    return Q(**{f"{prefix}{col}__isnull": False}) & ~Q(**{f"{prefix}{col}": ""})


def missing_q(name: str, language: str, *, prefix: str = "") -> Q:
    """Rows whose ``name`` has English but no ``language`` translation."""
    return _present(column(name, SOURCE_LANGUAGE), prefix) & ~_present(column(name, language), prefix)


def stale_q(name: str, language: str, *, prefix: str = "") -> Q:
    """Rows whose ``name`` translation was not written against the current English."""
    recorded = KT(f"{prefix}{SOURCES_FIELD}__{column(name, language)}__english")
    current = F(f"{prefix}{column(name, SOURCE_LANGUAGE)}")
    return (
        _present(column(name, SOURCE_LANGUAGE), prefix)
        & _present(column(name, language), prefix)
        & (Q(IsNull(recorded, True)) | ~Q(Exact(recorded, current)))
    )


def recorded_q(name: str, language: str, state: Status, *, prefix: str = "") -> Q:
    """Rows whose ``name`` translation is there and recorded as ``state`` (machine, translated
    or reviewed), current or stale. A record written before states existed counts as translated."""
    recorded = KT(f"{prefix}{SOURCES_FIELD}__{column(name, language)}__state")
    made = Q(Exact(recorded, str(state)))
    if state == Status.TRANSLATED:
        made |= Q(IsNull(recorded, True))
    return _present(column(name, SOURCE_LANGUAGE), prefix) & _present(column(name, language), prefix) & made


def state_q(name: str, language: str, state: Status, *, prefix: str = "") -> Q:
    """Rows whose ``name`` translation is current and recorded as ``state``."""
    return recorded_q(name, language, state, prefix=prefix) & ~stale_q(name, language, prefix=prefix)


def status_q(name: str, language: str, status: Status, *, prefix: str = "") -> Q:
    """Rows whose ``name`` translation in ``language`` has ``status``."""
    if status == Status.MISSING:
        return missing_q(name, language, prefix=prefix)
    if status == Status.STALE:
        return stale_q(name, language, prefix=prefix)
    return state_q(name, language, status, prefix=prefix)


def _any_field(model, field_q: Callable[[str], Q]) -> Q:
    result = Q()
    for name in translated_fields(model):
        result |= field_q(name)
    return result


def question_with_q(field_q: Callable[[str], Q]) -> Q:
    """Questions with a text for which ``field_q(field name)`` holds, in their own fields or in
    one of their choices (archived choices aside)."""
    choices = Choice.objects.filter(question=OuterRef("pk"), is_archived=False).filter(_any_field(Choice, field_q))
    return _any_field(Question, field_q) | Q(Exists(choices))


def quiz_with_q(field_q: Callable[[str], Q]) -> Q:
    """Quizzes with such a text in their own fields or in a question or choice (archived ones aside)."""
    questions = Question.objects.filter(quiz=OuterRef("pk"), is_archived=False).filter(question_with_q(field_q))
    return _any_field(Quiz, field_q) | Q(Exists(questions))


def question_needs_q(kind: str, language: str) -> Q:
    """Questions with a ``kind`` (a ``Status``) translation in ``language``."""
    return question_with_q(lambda name: status_q(name, language, Status(kind)))


def quiz_needs_q(kind: str, language: str) -> Q:
    """Quizzes with a ``kind`` translation in ``language``."""
    return quiz_with_q(lambda name: status_q(name, language, Status(kind)))


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
    missing: int = 0
    machine: int = 0
    translated: int = 0
    reviewed: int = 0
    stale: int = 0
    items: list[TranslationItem] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.missing + self.machine + self.translated + self.reviewed + self.stale

    @property
    def percent(self) -> int:
        """The share written by a person against the current English (translated or reviewed)."""
        done = self.translated + self.reviewed
        return done * 100 // self.total if self.total else 100

    @property
    def machine_items(self) -> list[TranslationItem]:
        return [item for item in self.items if item.status == Status.MACHINE]

    @property
    def stale_items(self) -> list[TranslationItem]:
        return [item for item in self.items if item.status == Status.STALE]

    @property
    def missing_items(self) -> list[TranslationItem]:
        return [item for item in self.items if item.status == Status.MISSING]


def quiz_translation_report(quiz: Quiz) -> list[LanguageReport]:
    """Per language: how many of the quiz's texts (its own, its questions' and
    their choices') have each status, and which need work (missing, stale, machine-made).

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
            if status not in HUMAN_STATES:
                label = str(obj._meta.get_field(name).verbose_name)
                report.items.append(TranslationItem(str(where), label, status, url))
    return list(reports.values())


def object_translation_problems(obj) -> dict[str, list[tuple[str, Status]]]:
    """language code -> [(field, status)] of the translations of ``obj`` that need work:
    missing, stale or machine-made."""
    found: dict[str, list[tuple[str, Status]]] = {}
    for name, language, _translated in translation_columns(type(obj)):
        status = translation_status(obj, name, language)
        if status is not None and status not in HUMAN_STATES:
            found.setdefault(language, []).append((name, status))
    return found
