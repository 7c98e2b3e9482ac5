"""The UI catalogues: complete, compiled from their sources, Shona included."""

import ast
import gettext
import os
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest
from django.utils import translation

pytestmark = pytest.mark.database_independent

PROJECT_DIR = Path(__file__).resolve().parent.parent
LOCALE_DIR = PROJECT_DIR / "locale"
LANGUAGES = ("ur", "sn", "id")


def catalogue(language):
    return polib.pofile(str(LOCALE_DIR / language / "LC_MESSAGES" / "django.po"))


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_entry_is_translated(language):
    po = catalogue(language)

    assert [entry.msgid for entry in po.untranslated_entries()] == []
    assert [entry.msgid for entry in po.fuzzy_entries()] == []
    assert len(po.translated_entries()) > 50


@pytest.mark.parametrize("language", LANGUAGES)
def test_compiled_catalogue_matches_its_source(language):
    po = catalogue(language)
    with open(LOCALE_DIR / language / "LC_MESSAGES" / "django.mo", "rb") as handle:
        mo = gettext.GNUTranslations(handle)

    for entry in po.translated_entries():
        if entry.msgid_plural and entry.msgctxt:
            assert mo.npgettext(entry.msgctxt, entry.msgid, entry.msgid_plural, 1) == entry.msgstr_plural[0]
        elif entry.msgid_plural:
            assert mo.ngettext(entry.msgid, entry.msgid_plural, 1) == entry.msgstr_plural[0]
        elif entry.msgctxt:
            assert mo.pgettext(entry.msgctxt, entry.msgid) == entry.msgstr, (entry.msgctxt, entry.msgid)
        else:
            assert mo.gettext(entry.msgid) == entry.msgstr, entry.msgid


@pytest.mark.parametrize(
    ("language", "plural_forms"),
    [("ur", "nplurals=2; plural=(n != 1);"), ("sn", "nplurals=2; plural=(n != 1);"), ("id", "nplurals=1; plural=0;")],
)
def test_headers_name_language_and_plural_forms(language, plural_forms):
    po = catalogue(language)

    assert po.metadata["Language"] == language
    assert po.metadata["Plural-Forms"] == plural_forms


@pytest.mark.parametrize("language", LANGUAGES)
def test_django_uses_the_catalogue(language):
    with translation.override(language):
        assert translation.gettext("No content problems.") == catalogue(language).find("No content problems.").msgstr
        assert translation.get_language() == language


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="needs GNU gettext (xgettext), as make messages does")
def test_every_text_of_the_code_is_in_the_catalogues(tmp_path):
    """makemessages on a copy of the code finds nothing the catalogues lack.

    A text marked in a way xgettext does not read (an alias of gettext, a
    template form the lexer misses) would otherwise reach pages in English
    with every test green.
    """
    for name in ("lms", "common", "quizzes", "locale"):
        shutil.copytree(PROJECT_DIR / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(PROJECT_DIR / "manage.py", tmp_path)
    env = dict(os.environ, DJANGO_DEBUG="1", DJANGO_SETTINGS_MODULE="lms.settings", DATABASE_URL="")
    subprocess.run(
        [sys.executable, "manage.py", "makemessages", "--no-location", "--no-obsolete"]
        + [f"--locale={language}" for language in LANGUAGES],
        cwd=tmp_path,
        env=env,
        check=True,
        capture_output=True,
    )
    for language in LANGUAGES:
        fresh = polib.pofile(str(tmp_path / "locale" / language / "LC_MESSAGES" / "django.po"))
        assert [entry.msgid for entry in fresh if not entry.translated()] == [], language


GETTEXT_FUNCTIONS = {
    "gettext",
    "gettext_lazy",
    "ngettext",
    "ngettext_lazy",
    "pgettext",
    "pgettext_lazy",
    "gettext_noop",
}


def test_gettext_is_only_imported_under_names_xgettext_reads():
    """``gettext as gettext_now`` hides every text it marks from makemessages (it happened)."""
    hidden = []
    for path in sorted(path for name in ("quizzes", "lms", "common") for path in (PROJECT_DIR / name).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "django.utils.translation":
                for alias in node.names:
                    if alias.name in GETTEXT_FUNCTIONS and alias.asname not in (None, "_"):
                        hidden.append(f"{path.relative_to(PROJECT_DIR)}: {alias.name} as {alias.asname}")
    assert hidden == []
