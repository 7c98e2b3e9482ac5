"""Writing a quiz's translations in one language as XLIFF 1.2 or PO."""

from io import BytesIO

from django.utils import timezone, translation
from django.utils.translation import get_language_info
from django.utils.translation import gettext as _
from lxml import etree
from translate.storage.po import pofile, pounit
from translate.storage.xliff import xlifffile, xliffunit

from quizzes.content.languages import SOURCE_LANGUAGE
from quizzes.content.translation_files.units import Unit, question_group_id, quiz_units
from quizzes.content.translation_status import Status
from quizzes.models import Quiz

XLIFF = "xliff"
PO = "po"
FORMATS = (XLIFF, PO)

# The translator comments that carry a state PO has no flag for.
PO_MACHINE_COMMENT = "machine translation"
PO_REVIEWED_COMMENT = "reviewed"
MT_QUALIFIER = "mt-suggestion"

XLIFF_SKELETON = b"""<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
<file original="quiz" source-language="en" datatype="plaintext"><body></body></file>
</xliff>"""


def translations_export(quiz: Quiz, *, language: str, fmt: str, exported_by=None) -> bytes:
    """The texts of ``quiz`` (from ``selectors.quiz_content_get``) with their ``language``
    translations and states, as an XLIFF 1.2 (``fmt="xliff"``) or PO (``"po"``) file.
    ``exported_by``: the editor exporting it (a PO file names them as its last translator)."""
    units = quiz_units(quiz, language)
    if fmt == XLIFF:
        return _xliff(quiz, units, language)
    if fmt == PO:
        return _po(quiz, units, language, exported_by)
    raise ValueError(_("Unknown translation file format %(format)r.") % {"format": fmt})


def _xliff(quiz: Quiz, units: list[Unit], language: str) -> bytes:
    store = xlifffile.parsestring(XLIFF_SKELETON)
    filenode = next(store.document.getroot().iterchildren(store.namespaced("file")))
    filenode.set("original", quiz.slug)
    store.settargetlanguage(language)
    groups = {}
    for unit in units:
        item = xliffunit(unit.english)
        store.addunit(item)
        item.setid(unit.id)
        # The id as a location too: translate-toolkit's xliff2po keeps locations, not ids.
        item.addlocation(unit.id)
        item.addnote(unit.role, origin="developer")
        status = unit.status
        target = item.xmlelement.find(store.namespaced("target"))
        if target is None:
            item.settarget(unit.translation, lang=language)
            target = item.xmlelement.find(store.namespaced("target"))
        if target is None:
            target = item.xmlelement.makeelement(store.namespaced("target"))
            item.xmlelement.insert(1, target)
        target.set("state", _xliff_state(status))
        if status == Status.MACHINE:
            target.set("state-qualifier", MT_QUALIFIER)
        if status == Status.REVIEWED:
            item.xmlelement.set("approved", "yes")
        else:
            item.xmlelement.attrib.pop("approved", None)
        if status == Status.STALE and unit.written_against:
            item.addalttrans(unit.translation, origin="previous", lang=language, sourcetxt=unit.written_against)
        if unit.question is not None:
            key = question_group_id(unit.question)
            if key not in groups:
                groups[key] = store.creategroup(filename=quiz.slug, restype="x-question")
                groups[key].set("id", key)
            groups[key].append(item.xmlelement)
    # The units are built in the toolkit's default (1.1) namespace before they move into the file.
    etree.cleanup_namespaces(store.document)
    return bytes(store)


def _xliff_state(status: Status) -> str:
    return {
        Status.MISSING: "needs-translation",
        Status.STALE: "needs-review-translation",
        Status.MACHINE: "needs-review-translation",
        Status.TRANSLATED: "translated",
        Status.REVIEWED: "signed-off",
    }[status]


def _po_header(quiz: Quiz, language: str, exported_by) -> dict[str, str]:
    """A PO header that says what the file is (in place of gettext's template values): the
    quiz, its language and team, when, and who exported it."""
    now = timezone.now().strftime("%Y-%m-%d %H:%M%z")
    translator = ""
    if exported_by is not None:
        name = exported_by.get_full_name() or exported_by.get_username()
        translator = f"{name} <{exported_by.email}>" if exported_by.email else name
    with translation.override("en"):
        language_name = get_language_info(language)["name"]
    return {
        "Project-Id-Version": quiz.slug,
        "Report-Msgid-Bugs-To": "",
        "POT-Creation-Date": now,
        "PO-Revision-Date": now,
        "Last-Translator": translator,
        "Language-Team": language_name,
        "Language": language,
        "Content-Type": "text/plain; charset=UTF-8",
        "X-Source-Language": SOURCE_LANGUAGE,
    }


def _po(quiz: Quiz, units: list[Unit], language: str, exported_by) -> bytes:
    store = pofile()
    store.updateheader(
        add=True, **{name.replace("-", "_"): value for name, value in _po_header(quiz, language, exported_by).items()}
    )
    for unit in units:
        item = pounit(unit.english)
        item.setcontext(unit.id)
        # The id as a location too: translate-toolkit's po2xliff keeps locations, not contexts.
        item.addlocation(unit.id)
        item.addnote(unit.role, origin="developer")
        status = unit.status
        if status != Status.MISSING:
            item.target = unit.translation
        if status in (Status.STALE, Status.MACHINE):
            item.markfuzzy(True)
        if status == Status.STALE and unit.written_against:
            item.prev_source = unit.written_against
        if status == Status.MACHINE:
            item.addnote(PO_MACHINE_COMMENT, origin="translator")
        if status == Status.REVIEWED:
            item.addnote(PO_REVIEWED_COMMENT, origin="translator")
        store.addunit(item)
    out = BytesIO()
    store.serialize(out)
    return out.getvalue()
