"""The UI catalogues: complete, compiled from their sources, Shona included."""

import gettext
from pathlib import Path

import polib
import pytest
from django.utils import translation

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
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
        if entry.msgid_plural:
            assert mo.ngettext(entry.msgid, entry.msgid_plural, 1) == entry.msgstr_plural[0]
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
