"""The Jinja2 student pages and the catalogues (quizzes/web/jinja_env.py).

``makemessages`` reads the Jinja2 templates with Django's template lexer: it
finds ``{{ _("...") }}`` and nothing else. These tests check that every text
the templates translate is one makemessages extracts, and that it is
translated in every catalogue, so that a text written in a form the lexer
does not see fails here instead of showing English on an Urdu page.
"""

import re
from pathlib import Path

import polib
import pytest
from django.template import engines
from django.utils.translation.template import templatize
from jinja2.ext import extract_from_ast

from quizzes.content.languages import TRANSLATION_LANGUAGES

pytestmark = pytest.mark.database_independent

PROJECT_DIR = Path(__file__).resolve().parents[2]
TEMPLATES = sorted((PROJECT_DIR / "quizzes" / "jinja2").rglob("*.html"))
CATALOGUE = PROJECT_DIR / "locale" / "{language}" / "LC_MESSAGES" / "django.po"
# What templatize writes for a text it found: _('...') or gettext('...') (either quote).
EXTRACTED = re.compile(r"""\b(?:_|gettext)\((?P<quote>['"])(?P<text>.*?)(?P=quote)\)""")


def template_texts(path: Path) -> set[str]:
    """The texts Jinja2 translates when it renders the template."""
    env = engines["jinja2"].env
    texts = set()
    for _line, function, message in extract_from_ast(env.parse(path.read_text(encoding="utf-8"))):
        assert function == "_", f"{path.name}: {function}() in a template is not extracted; use _() or Python"
        texts.add(message)
    return texts


def makemessages_texts(path: Path) -> set[str]:
    """The texts makemessages extracts from the template."""
    source = templatize(path.read_text(encoding="utf-8"), origin=str(path))
    return {match["text"].replace("\\'", "'") for match in EXTRACTED.finditer(source)}


def test_templates_are_found():
    names = {str(path.relative_to(PROJECT_DIR / "quizzes" / "jinja2")) for path in TEMPLATES}
    assert {"quizzes/base.html", "quizzes/attempt_question.html", "quizzes/dashboard.html", "404.html"} <= names


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda path: path.name)
def test_makemessages_extracts_every_text(path):
    assert template_texts(path) == makemessages_texts(path)


@pytest.mark.parametrize("language", TRANSLATION_LANGUAGES)
def test_every_template_text_is_translated(language):
    catalogue = polib.pofile(str(CATALOGUE).format(language=language))
    translated = {entry.msgid for entry in catalogue if entry.translated()}
    missing = {text for path in TEMPLATES for text in template_texts(path)} - translated
    assert not missing, f"{language}: not translated: {sorted(missing)}"


def test_a_page_with_two_forms_masks_the_csrf_token_once(student_client, gc_quiz):
    """The logout form and the answer form share one masked token (quizzes.web.jinja_env.csrf_once)."""
    attempt = student_client.post(f"/en/quizzes/{gc_quiz.slug}/start/")
    response = student_client.get(attempt["Location"], follow=True)
    tokens = re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', response.text)
    assert len(tokens) == 2 and tokens[0] == tokens[1]
