"""The Urdu font subset (scripts/font_subset.py): up to date, declared as built, and covering the texts."""

import re
import runpy
from pathlib import Path

import pytest
from fontTools.ttLib import TTFont

pytestmark = pytest.mark.database_independent

PROJECT_DIR = Path(__file__).resolve().parent.parent
font_subset = runpy.run_path(str(PROJECT_DIR / "scripts" / "font_subset.py"), run_name="font_subset")
FONTS_CSS = PROJECT_DIR / "quizzes" / "static" / "quizzes" / "fonts.css"
ARABIC_SCRIPT = re.compile(r"[\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff]")


def test_the_committed_subset_is_what_the_script_builds():
    assert font_subset["TARGET"].read_bytes() == font_subset["build"]()


def test_fonts_css_declares_the_subset_s_ranges():
    (declared,) = re.findall(r"unicode-range:\s*([^;]+);", FONTS_CSS.read_text(encoding="utf-8"))
    assert [value.strip() for value in declared.split(",")] == font_subset["URDU_RANGES"]


def test_the_subset_has_every_urdu_letter_of_the_catalogue_and_the_content():
    texts = [
        PROJECT_DIR / "locale" / "ur" / "LC_MESSAGES" / "django.po",
        *sorted((PROJECT_DIR / "fixtures").glob("*.json")),
    ]
    used = {character for path in texts for character in ARABIC_SCRIPT.findall(path.read_text(encoding="utf-8"))}
    covered = set(TTFont(font_subset["TARGET"]).getBestCmap())

    assert used
    assert not sorted(f"U+{ord(character):04X}" for character in used if ord(character) not in covered)
