"""Translation files: XLIFF and PO export, and their import back, all or nothing."""

import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from lxml import etree
from translate.storage.po import pofile
from translate.storage.xliff import xlifffile

from quizzes.content.selectors import quiz_content_get
from quizzes.content.translation_files.export import translations_export
from quizzes.content.translation_files.imports import TranslationFileError, translations_import
from quizzes.content.translation_status import Status, translation_status, translations_stamp
from quizzes.models import Choice, Question, QuestionVersion, Quiz

BIN = Path(sys.executable).parent
XLIFF_NS = "{urn:oasis:names:tc:xliff:document:1.2}"


def snapshot():
    rows = []
    for model in (Quiz, Question, Choice):
        # Every column by name: modeltranslation's values() gives only the active language's.
        rows.extend(model.objects.order_by("pk").values(*[f.attname for f in model._meta.concrete_fields]))
    return rows, QuestionVersion.objects.count()


def export(slug, language, fmt):
    return translations_export(quiz_content_get(slug=slug), language=language, fmt=fmt)


@pytest.fixture
def first_question(gc_quiz):
    return gc_quiz.questions.order_by("position").first()


def make_stale(question):
    question.text_en = question.text_en + " (edited)"
    question.save()


def make_machine(question):
    question.text_ur = "مشینی ترجمہ"
    translations_stamp(question, columns=["text_ur"], state=Status.MACHINE)
    question.save()


@pytest.mark.parametrize("fmt", ["xliff", "po"])
def test_toolkit_tools_read_the_exports(gc_quiz, first_question, tmp_path, fmt):
    make_stale(first_question)
    exported = tmp_path / f"quiz.{fmt}"
    exported.write_bytes(export(gc_quiz.slug, "ur", fmt))
    if fmt == "po":
        converted = subprocess.run(
            [BIN / "po2xliff", exported, tmp_path / "out.xlf"], capture_output=True, text=True, check=False
        )
        assert converted.returncode == 0, converted.stderr
        assert "Error" not in converted.stderr
        checked = subprocess.run(
            [BIN / "pofilter", exported, tmp_path / "filtered.po"], capture_output=True, text=True, check=False
        )
        assert checked.returncode == 0, checked.stderr
        assert "Error" not in checked.stderr
        assert (tmp_path / "out.xlf").read_text().count("<trans-unit") > 10
    else:
        tree = etree.fromstring(exported.read_bytes())
        assert tree.get("version") == "1.2"
        groups = tree.findall(f".//{XLIFF_NS}group")
        assert len(groups) == gc_quiz.questions.filter(is_archived=False).count()


def convert(tool: str, source: Path, target: Path) -> bytes:
    done = subprocess.run([BIN / tool, source, target], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "Error" not in done.stderr, done.stderr
    return target.read_bytes()


def test_a_po_through_po2xliff_imports_back(gc_quiz, first_question, tmp_path):
    """A translator's tool that works in XLIFF: po2xliff numbers the units and keeps each one's
    location, where the export writes its id too."""
    (tmp_path / "quiz.po").write_bytes(export(gc_quiz.slug, "ur", "po"))
    converted = convert("po2xliff", tmp_path / "quiz.po", tmp_path / "quiz.xlf")
    before = snapshot()
    assert translations_import(None, converted, language="ur").changed == []  # the same texts
    assert snapshot() == before

    store = xlifffile.parsestring(converted)
    unit = next(unit for unit in store.units if unit.source == first_question.text_en)
    unit.target = "ایک نیا ترجمہ"
    result = translations_import(None, bytes(store), language="ur")
    assert result.ok and [change.unit_id for change in result.changed] == [f"question.{first_question.pk}.text"]
    first_question.refresh_from_db()
    assert first_question.text_ur == "ایک نیا ترجمہ"


def test_an_xliff_through_xliff2po_imports_back_with_its_language_given(gc_quiz, first_question, tmp_path):
    """xliff2po keeps no id and names no language: the units are found by the location the
    export writes, and the language is the one the importer gives."""
    (tmp_path / "quiz.xlf").write_bytes(export(gc_quiz.slug, "ur", "xliff"))
    converted = convert("xliff2po", tmp_path / "quiz.xlf", tmp_path / "quiz.po")
    before = snapshot()
    assert translations_import(None, converted, language="ur").changed == []
    assert snapshot() == before

    store = pofile.parsestring(converted)
    unit = next(unit for unit in store.units if unit.source == first_question.text_en)
    unit.target = "ایک نیا ترجمہ"
    unit.markfuzzy(False)
    path = tmp_path / "edited.po"
    path.write_bytes(bytes(store))
    call_command("import_translations", str(path), "--language", "ur")
    first_question.refresh_from_db()
    assert first_question.text_ur == "ایک نیا ترجمہ"
    # A file that names another language is still refused.
    with pytest.raises(TranslationFileError, match="not in 'sn'"):
        translations_import(None, export(gc_quiz.slug, "ur", "po"), language="sn")


@pytest.mark.parametrize("fmt", ["po", "xliff"])
def test_a_nul_character_is_refused_and_nothing_written(gc_quiz, fmt):
    """No text holds one, and PostgreSQL's text cannot."""
    data = export(gc_quiz.slug, "ur", fmt)
    title = gc_quiz.title_ur.encode()
    before = snapshot()
    # XML forbids the character itself: the XLIFF reader refuses it first.
    with pytest.raises(TranslationFileError, match="NUL character" if fmt == "po" else "not a readable XLIFF"):
        translations_import(None, data.replace(title, b"bad\x00" + title, 1), language="ur")
    assert snapshot() == before


def test_xliff_states_and_notes(gc_quiz, first_question):
    make_stale(first_question)
    old_english = first_question.text_en.removesuffix(" (edited)")
    second = gc_quiz.questions.order_by("position")[1]
    make_machine(second)
    tree = etree.fromstring(export(gc_quiz.slug, "ur", "xliff"))
    units = {unit.get("id"): unit for unit in tree.iter(f"{XLIFF_NS}trans-unit")}
    stale = units[f"question.{first_question.pk}.text"]
    assert stale.find(f"{XLIFF_NS}target").get("state") == "needs-review-translation"
    assert stale.find(f"{XLIFF_NS}alt-trans/{XLIFF_NS}source").text == old_english
    machine = units[f"question.{second.pk}.text"].find(f"{XLIFF_NS}target")
    assert (machine.get("state"), machine.get("state-qualifier")) == ("needs-review-translation", "mt-suggestion")
    right = first_question.choices.get(is_correct=True)
    note = units[f"choice.{right.pk}.text"].find(f"{XLIFF_NS}note").text
    assert note == f"Question {first_question.position}, choice {right.position} — the right answer"
    missing = [u for u in units.values() if not (u.find(f"{XLIFF_NS}target").text or "")]
    assert missing and all(u.find(f"{XLIFF_NS}target").get("state") == "needs-translation" for u in missing)


def test_po_states(gc_quiz, first_question):
    make_stale(first_question)
    second = gc_quiz.questions.order_by("position")[1]
    make_machine(second)
    store = pofile.parsestring(export(gc_quiz.slug, "ur", "po"))
    units = {unit.getcontext(): unit for unit in store.units if not unit.isheader()}
    stale = units[f"question.{first_question.pk}.text"]
    assert stale.isfuzzy() and stale.prev_source == first_question.text_en.removesuffix(" (edited)")
    machine = units[f"question.{second.pk}.text"]
    assert machine.isfuzzy() and "machine translation" in machine.getnotes("translator")
    assert store.parseheader()["Language"] == "ur"


def test_po_header_says_what_the_file_is_and_who_exported_it(gc_quiz, editor):
    editor.first_name, editor.last_name, editor.email = "Amna", "Riaz", "amna@example.org"
    data = translations_export(quiz_content_get(slug=gc_quiz.slug), language="sn", fmt="po", exported_by=editor)
    header = pofile.parsestring(data).parseheader()
    assert header["Project-Id-Version"] == gc_quiz.slug
    assert header["Language"] == "sn" and header["Language-Team"] == "Shona"
    assert header["Last-Translator"] == "Amna Riaz <amna@example.org>"
    assert header["PO-Revision-Date"][:4].isdigit()
    # None of gettext's template values are left.
    for placeholder in (b"PACKAGE VERSION", b"FULL NAME", b"EMAIL@ADDRESS", b"LL@li.org", b"YEAR-MO-DA"):
        assert placeholder not in data
    # From the command line, nobody is named.
    assert pofile.parsestring(export(gc_quiz.slug, "ur", "po")).parseheader()["Last-Translator"] == ""


@pytest.mark.parametrize("language", ["ur", "sn", "id"])
@pytest.mark.parametrize("fmt", ["xliff", "po"])
def test_untouched_export_changes_nothing(gc_quiz, first_question, fmt, language):
    make_stale(first_question)
    make_machine(gc_quiz.questions.order_by("position")[1])
    data = export(gc_quiz.slug, language, fmt)
    before = snapshot()
    result = translations_import(None, data, language=language)
    assert result.ok and result.changed == [] and result.unchanged > 0
    assert snapshot() == before


def edit_xliff(data, unit_id, text, state="translated"):
    store = xlifffile.parsestring(data)
    for unit in store.units:
        if unit.xmlelement.get("id") == unit_id:
            target = unit.xmlelement.find(store.namespaced("target"))
            target.text = text
            target.set("state", state)
    return bytes(store)


def test_edited_xliff_changes_exactly_that_unit(gc_quiz, first_question):
    data = edit_xliff(export(gc_quiz.slug, "ur", "xliff"), f"question.{first_question.pk}.explanation", "نئی وضاحت")
    rows, _versions = snapshot()
    result = translations_import(gc_quiz, data, language="ur")
    assert [change.unit_id for change in result.changed] == [f"question.{first_question.pk}.explanation"]
    new_rows, _versions = snapshot()
    differences = [
        (row["id"], key) for row, new in zip(rows, new_rows, strict=True) for key in row if row[key] != new[key]
    ]
    # The record stays as it was: written against the same English, translated.
    assert differences == [(first_question.pk, "explanation_ur")]
    first_question.refresh_from_db()
    assert first_question.explanation_ur == "نئی وضاحت"
    assert translation_status(first_question, "explanation", "ur") == Status.TRANSLATED


def test_signed_off_unit_becomes_reviewed(gc_quiz, first_question):
    unit_id = f"question.{first_question.pk}.text"
    data = edit_xliff(export(gc_quiz.slug, "ur", "xliff"), unit_id, first_question.text_ur, "signed-off")
    result = translations_import(gc_quiz, data, language="ur")
    assert [change.unit_id for change in result.changed] == [unit_id]
    first_question.refresh_from_db()
    assert translation_status(first_question, "text", "ur") == Status.REVIEWED


def test_po_edit_and_reviewed_import(gc_quiz, first_question):
    store = pofile.parsestring(export(gc_quiz.slug, "ur", "po"))
    unit_id = f"question.{first_question.pk}.text"
    for unit in store.units:
        if unit.getcontext() == unit_id:
            unit.target = "نیا سوال"
    result = translations_import(gc_quiz, bytes(store), language="ur", reviewed=True)
    # A reviewer's file signs off every translation it holds unflagged, the edited one too.
    assert unit_id in [change.unit_id for change in result.changed]
    assert {change.state for change in result.changed} == {Status.REVIEWED}
    first_question.refresh_from_db()
    assert first_question.text_ur == "نیا سوال"
    assert translation_status(first_question, "text", "ur") == Status.REVIEWED


def test_machine_state_round_trip(gc_quiz, first_question):
    store = pofile.parsestring(export(gc_quiz.slug, "ur", "po"))
    unit_id = f"question.{first_question.pk}.text"
    for unit in store.units:
        if unit.getcontext() == unit_id:
            unit.target = "مشینی"
            unit.markfuzzy(True)
            unit.addnote("machine translation", origin="translator")
    translations_import(gc_quiz, bytes(store), language="ur")
    first_question.refresh_from_db()
    assert translation_status(first_question, "text", "ur") == Status.MACHINE
    data = export(gc_quiz.slug, "ur", "xliff")
    before = snapshot()
    assert translations_import(gc_quiz, data, language="ur").changed == []
    assert snapshot() == before


def test_emptied_target_clears_the_translation(gc_quiz, first_question):
    unit_id = f"question.{first_question.pk}.text"
    data = edit_xliff(export(gc_quiz.slug, "ur", "xliff"), unit_id, "", "needs-translation")
    translations_import(gc_quiz, data, language="ur")
    first_question.refresh_from_db()
    assert first_question.text_ur in ("", None)
    assert "text_ur" not in first_question.translation_sources


def test_stale_unit_refused_and_skip_stale(gc_quiz, first_question):
    second = gc_quiz.questions.order_by("position")[1]
    data = edit_xliff(export(gc_quiz.slug, "ur", "xliff"), f"question.{second.pk}.explanation", "نئی")
    make_stale(first_question)
    before = snapshot()
    result = translations_import(gc_quiz, data, language="ur")
    assert not result.ok
    assert len(result.refused) == 1 and "(edited)" in result.refused[0].message
    assert gc_quiz.slug in result.refused[0].message
    assert snapshot() == before
    result = translations_import(gc_quiz, data, language="ur", skip_stale=True)
    assert result.ok and len(result.skipped) == 1
    assert [change.unit_id for change in result.changed] == [f"question.{second.pk}.explanation"]


def test_wrong_language_and_malformed_files_refused(gc_quiz):
    before = snapshot()
    with pytest.raises(TranslationFileError, match="not in 'sn'"):
        translations_import(gc_quiz, export(gc_quiz.slug, "ur", "po"), language="sn")
    with pytest.raises(TranslationFileError, match="not in 'sn'"):
        translations_import(gc_quiz, export(gc_quiz.slug, "ur", "xliff"), language="sn")
    with pytest.raises(TranslationFileError):
        translations_import(gc_quiz, b"<xliff><broken", language="ur")
    assert snapshot() == before


def test_unit_of_another_quiz_refused(content, gc_quiz):
    other = content["activation-recomputation-tradeoffs"]
    data = export(other.slug, "ur", "xliff")
    result = translations_import(gc_quiz, data, language="ur")
    assert not result.ok and "is not a text of quiz" in result.refused[0].message


def test_commands(gc_quiz, first_question, tmp_path):
    out = tmp_path / "q.xlf"
    call_command("export_translations", gc_quiz.slug, "--language", "ur", "--format", "xliff", "-o", str(out))
    assert out.read_bytes().startswith(b"<?xml")
    call_command("import_translations", str(out), "--language", "ur")
    make_stale(first_question)
    with pytest.raises(CommandError, match="English changed"):
        call_command("import_translations", str(out), "--language", "ur")
    call_command("import_translations", str(out), "--language", "ur", "--skip-stale")


def test_command_refuses_another_language(gc_quiz, tmp_path):
    out = tmp_path / "q.po"
    call_command("export_translations", gc_quiz.slug, "--language", "ur", "--format", "po", "-o", str(out))
    # A CommandError is manage.py's exit status 1.
    with pytest.raises(CommandError, match="not in 'sn'"):
        call_command("import_translations", str(out), "--language", "sn")
