"""Reading a translation file back: a service, all or nothing."""

from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _
from translate.storage.po import pofile
from translate.storage.xliff import xlifffile

from quizzes.content.selectors import quiz_content_get
from quizzes.content.translation_checks import translation_problems
from quizzes.content.translation_files.export import (
    MT_QUALIFIER,
    PO,
    PO_MACHINE_COMMENT,
    PO_REVIEWED_COMMENT,
    XLIFF,
)
from quizzes.content.translation_files.units import KINDS, Unit, quiz_units
from quizzes.content.translation_status import SOURCES_FIELD, Status, translations_stamp
from quizzes.models import Choice, Question, Quiz


class TranslationFileError(ValueError):
    """The file cannot be read at all (malformed, or of another language)."""


@dataclass(frozen=True)
class UnitChange:
    unit_id: str
    where: str
    state: Status | None  # None: the translation was cleared


@dataclass(frozen=True)
class UnitProblem:
    unit_id: str
    message: str


@dataclass
class ImportResult:
    quiz: Quiz | None = None
    changed: list[UnitChange] = field(default_factory=list)
    unchanged: int = 0
    refused: list[UnitProblem] = field(default_factory=list)
    skipped: list[UnitProblem] = field(default_factory=list)
    warnings: list[UnitProblem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.refused


@dataclass(frozen=True)
class _FileUnit:
    id: str
    source: str
    target: str
    # The state the file gives; None means "leave the stored state" (needs-*/fuzzy, unchanged text).
    state: Status | None
    # PO: fuzzy, so an unchanged text is left as it is.
    fuzzy: bool = False
    # PO: the "reviewed" comment, which counts only for an unchanged text.
    marked_reviewed: bool = False


def sniff_format(data: bytes) -> str:
    head = data.lstrip()[:200]
    return XLIFF if head.startswith(b"<") else PO


def _read_xliff(data: bytes, reviewed: bool) -> tuple[str | None, list[_FileUnit]]:
    try:
        store = xlifffile.parsestring(data)
    except Exception as error:  # the toolkit raises lxml's and its own errors alike
        raise TranslationFileError(_("This is not a readable XLIFF file: %(error)s") % {"error": error}) from None
    units = []
    for item in store.units:
        if item.isheader():  # a PO header carried over by po2xliff
            continue
        given = item.xmlelement.get("id") or ""
        unit_id = _unit_id(given, item.getlocations())
        source, text = str(item.source or ""), str(item.target or "")
        approved = item.xmlelement.get("approved") == "yes"
        if unit_id != given:
            # Found by its location: a PO unit converted by po2xliff, which approves every
            # translation that was not fuzzy; read with PO's meaning, its comments included.
            comments = item.getnotes(origin="po-translator").splitlines()
            units.append(_po_unit(unit_id, source, text, fuzzy=not approved, comments=comments, reviewed=reviewed))
            continue
        target = item.xmlelement.find(store.namespaced("target"))
        state_attr = target.get("state", "") if target is not None else ""
        qualifier = target.get("state-qualifier", "") if target is not None else ""
        if approved or state_attr in ("signed-off", "final"):
            state = Status.REVIEWED
        elif qualifier == MT_QUALIFIER:
            state = Status.MACHINE
        elif state_attr == "translated":
            state = Status.TRANSLATED
        else:
            state = None
        units.append(_FileUnit(unit_id, source, text, state))
    return store.gettargetlanguage(), units


def _read_po(data: bytes, reviewed: bool) -> tuple[str | None, list[_FileUnit]]:
    try:
        store = pofile.parsestring(data)
    except Exception as error:  # the toolkit raises several kinds on a broken file
        raise TranslationFileError(_("This is not a readable PO file: %(error)s") % {"error": error}) from None
    units = [
        _po_unit(
            _unit_id(item.getcontext() or "", item.getlocations()),
            str(item.source or ""),
            str(item.target or ""),
            fuzzy=item.isfuzzy(),
            comments=item.getnotes(origin="translator").splitlines(),
            reviewed=reviewed,
        )
        for item in store.units
        if not (item.isheader() or item.isobsolete())
    ]
    return store.gettargetlanguage() or store.parseheader().get("Language"), units


def _po_unit(unit_id: str, source: str, target: str, *, fuzzy: bool, comments: list[str], reviewed: bool):
    """A unit as PO says it: fuzzy (a machine translation where its comment says so) or
    translated (reviewed when the importer says the file is), and its "reviewed" comment."""
    if fuzzy:
        state = Status.MACHINE if PO_MACHINE_COMMENT in comments else None
    else:
        state = Status.REVIEWED if reviewed else Status.TRANSLATED
    marked_reviewed = PO_REVIEWED_COMMENT in comments and not fuzzy
    return _FileUnit(unit_id, source, target, state, fuzzy=fuzzy, marked_reviewed=marked_reviewed)


def _unit_id(given: str, locations: list[str]) -> str:
    """A unit's id: the one the file gives where it is one of ours, else its location, which
    the export writes too (translate-toolkit's po2xliff numbers the units and keeps the
    locations; its xliff2po drops the ids and keeps the locations)."""
    if _parsed_id(given) is not None or not locations:
        return given
    return next((location for location in locations if _parsed_id(location) is not None), given)


def _parsed_id(unit_id: str) -> tuple[type, int] | None:
    """(model, primary key) of an id as ``units.unit_id`` writes it, or None."""
    models = {kind: model for model, kind in KINDS.items()}
    kind, _dot, rest = unit_id.partition(".")
    pk, _dot, name = rest.partition(".")
    if kind not in models or not pk.isdigit() or not name:
        return None
    return models[kind], int(pk)


def _quiz_of(file_units: list[_FileUnit]) -> Quiz | None:
    """The quiz the file's first known unit belongs to."""
    for item in file_units:
        parsed = _parsed_id(item.id)
        if parsed is None:
            continue
        obj = parsed[0].objects.filter(pk=parsed[1]).first()
        if obj is None:
            continue
        if isinstance(obj, Quiz):
            return obj
        if isinstance(obj, Question):
            return obj.quiz
        if isinstance(obj, Choice):
            return obj.question.quiz
    return None


def _where(unit: Unit, language: str, quiz: Quiz) -> str:
    # The role names the question (or the quiz) and the field.
    return _("quiz %(quiz)s, %(role)s, %(language)s") % {
        "quiz": quiz.slug,
        "role": unit.role,
        "language": dict(settings.LANGUAGES)[language],
    }


@transaction.atomic
def translations_import(
    quiz: Quiz | None,
    data: bytes,
    *,
    language: str,
    fmt: str | None = None,
    skip_stale: bool = False,
    reviewed: bool = False,
) -> ImportResult:
    """Write the ``language`` translations of an XLIFF or PO file into ``quiz`` (found from
    the file's unit ids when None).

    All or nothing: when any unit is refused (its English changed since the export,
    an unknown id, another quiz's unit) nothing is written and ``result.refused``
    says why. A unit whose text and state are as stored writes nothing.
    Raises ``TranslationFileError`` for a file that cannot be read or is of another language.
    """
    fmt = fmt or sniff_format(data)
    if fmt == XLIFF:
        file_language, file_units = _read_xliff(data, reviewed)
    elif fmt == PO:
        file_language, file_units = _read_po(data, reviewed)
    else:
        raise TranslationFileError(_("Unknown translation file format %(format)r.") % {"format": fmt})
    holding_nul = next((item for item in file_units if "\x00" in item.source + item.target), None)
    if holding_nul is not None:  # no text holds one, and PostgreSQL's text cannot
        message = _("Unit %(id)s holds a NUL character: the file is not text.")
        raise TranslationFileError(message % {"id": holding_nul.id or "?"})
    if language not in dict(settings.LANGUAGES) or language == settings.MODELTRANSLATION_DEFAULT_LANGUAGE:
        raise TranslationFileError(_("Unknown translation language %(language)r.") % {"language": language})
    # A file that names no language (xliff2po writes none) is in the one the importer says.
    if file_language and file_language != language:
        message = _("The file is in %(file)r, not in %(language)r.")
        raise TranslationFileError(message % {"file": file_language or "", "language": language})
    if quiz is None:
        quiz = _quiz_of(file_units)
        if quiz is None:
            raise TranslationFileError(_("No unit of this file belongs to a quiz here."))
    quiz = quiz_content_get(slug=quiz.slug)
    units = {unit.id: unit for unit in quiz_units(quiz, language)}
    result = ImportResult(quiz=quiz)
    writes: dict[int, tuple[object, list[str]]] = {}
    seen = set()
    for item in file_units:
        unit = units.get(item.id)
        if unit is None or item.id in seen:
            message = _("Unit %(id)s is not a text of quiz %(quiz)s (or is there twice).")
            result.refused.append(UnitProblem(item.id, message % {"id": item.id, "quiz": quiz.slug}))
            continue
        seen.add(item.id)
        where = _where(unit, language, quiz)
        if item.source != unit.english:
            message = _("%(where)s: the English changed since the export, from “%(old)s” to “%(new)s”.")
            problem = UnitProblem(item.id, message % {"where": where, "old": item.source, "new": unit.english})
            (result.skipped if skip_stale else result.refused).append(problem)
            continue
        state = _new_state(unit, item)
        if state is False:
            result.unchanged += 1
            continue
        setattr(unit.obj, unit.column, item.target)
        translations_stamp(unit.obj, columns=[unit.column], state=state or Status.TRANSLATED)
        writes.setdefault(id(unit.obj), (unit.obj, []))[1].append(unit.column)
        result.changed.append(UnitChange(item.id, where, state if item.target else None))
        if item.target:
            for problem in translation_problems(unit.english, item.target, language):
                result.warnings.append(UnitProblem(item.id, f"{where}: {problem.message}"))
    if result.refused:
        # Nothing was saved yet; the objects changed in memory are dropped with the quiz.
        return result
    for obj, columns in writes.values():
        obj.save(update_fields=[*columns, SOURCES_FIELD])
    return result


def _new_state(unit: Unit, item: _FileUnit):
    """The state to stamp (None for a cleared text), or False when nothing changes."""
    stored = unit.translation
    if not item.target:
        return None if stored else False
    unchanged = item.target == stored
    if unchanged and item.fuzzy:
        return False
    state = Status.REVIEWED if unchanged and item.marked_reviewed else item.state
    if state is None:
        return False if unchanged else Status.TRANSLATED
    if unchanged and state == unit.status:
        return False
    return state
