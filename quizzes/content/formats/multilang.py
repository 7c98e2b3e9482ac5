"""Moodle's texts: HTML, with translations in the forms of its multilang filters, read as
plain text per language, and written back.

Read: ``<span lang="ur" class="multilang">…</span>`` (filter_multilang) and
``{mlang ur}…{mlang}`` (filter_multilang2, ``{mlang other}`` standing for English when the
text has no English of its own); text outside them belongs to every language. HTML is taken
simply: entities unescaped, whitespace collapsed, ``<p>``/``<div>`` as paragraphs (a
wrapping one disappears), ``<br>`` as a line break, inline emphasis (``<b>``, ``<i>``,
``<span>``...) dropped for its text. Anything else (images, links, tables, lists, scripts)
is refused: a text that needs it cannot be shown here as the teacher meant. Languages this
site does not have are left out.

Written: HTML-escaped text in one ``<p>``, line breaks as ``<br>``; a text translated into
other languages as one multilang span per language that has its own text (a language
without one falls back to English in Moodle as it does here).
"""

import re
from html import escape
from html.parser import HTMLParser

from django.conf import settings
from django.utils.translation import gettext as _

from quizzes.content.languages import SOURCE_LANGUAGE

SITE_LANGUAGES = tuple(code for code, _name in settings.LANGUAGES)
INLINE_TAGS = {"b", "strong", "i", "em", "u", "span", "font", "small", "big", "tt", "code", "abbr", "bdi", "bdo"}
BLOCK_TAGS = {"p", "div"}
_MLANG_RE = re.compile(r"\{mlang\s+([\w\s,-]+)\}(.*?)\{mlang\}", re.S | re.I)
_PARAGRAPH = "\0"
_OTHER = "other"


class MarkupError(ValueError):
    """A text whose markup cannot be imported (the message says why)."""


def site_language(code: str) -> str | None:
    """Ours for a Moodle language code (``id``, ``en_us``), or None."""
    code = code.strip().lower().replace("-", "_")
    if code == _OTHER or code in SITE_LANGUAGES:
        return code
    base = code.split("_")[0]
    return base if base in SITE_LANGUAGES else None


def texts_by_language(value: str, *, text_format: str = "html") -> dict[str, str]:
    """The text in each language the value holds, English always among them (maybe "")."""
    if text_format not in ("html", "moodle_auto_format", "plain_text"):
        raise MarkupError(_("text format %(format)s is not supported") % {"format": text_format})
    value = _MLANG_RE.sub(_mlang_as_span, value)
    if text_format == "plain_text":
        segments = _plain_segments(value)
    else:
        if text_format == "moodle_auto_format":
            value = value.replace("\n", "<br>")
        parser = _Reader()
        parser.feed(value)
        parser.close()
        segments = parser.segments
    languages = {language for language, _text in segments if language}
    if _OTHER in languages:
        languages.discard(_OTHER)
        if SOURCE_LANGUAGE not in languages:
            segments = [(SOURCE_LANGUAGE if language == _OTHER else language, text) for language, text in segments]
            languages.add(SOURCE_LANGUAGE)
    if not languages:
        languages = {SOURCE_LANGUAGE}
    elif SOURCE_LANGUAGE not in languages:
        raise MarkupError(_('the text has translations but no English (lang="en")'))
    return {
        language: _tidy("".join(text for segment_language, text in segments if segment_language in (None, language)))
        for language in languages
    }


def multilang_html(texts: dict[str, str], *, paragraph: bool = True) -> str:
    """HTML for Moodle holding each language's text (``texts`` by language, English first)."""
    own = {language: text for language, text in texts.items() if text}
    if set(own) <= {SOURCE_LANGUAGE}:
        html = _html(own.get(SOURCE_LANGUAGE, ""))
    else:
        html = "".join(
            f'<span lang="{language}" class="multilang">{_html(text)}</span>' for language, text in own.items()
        )
    return f"<p>{html}</p>" if paragraph and html else html


def _html(text: str) -> str:
    return escape(text, quote=False).replace("\n", "<br>")


def _mlang_as_span(match: re.Match) -> str:
    codes = [site_language(code) for code in match.group(1).split(",")]
    return "".join(f'<span lang="{code}" class="multilang">{match.group(2)}</span>' for code in codes if code)


_SPAN_RE = re.compile(r'<span lang="([\w-]+)" class="multilang">(.*?)</span>', re.S)


def _plain_segments(value: str) -> list[tuple[str | None, str]]:
    # Plain text is literal: only the multilang2 blocks (turned into spans above) are read.
    segments, end = [], 0
    for match in _SPAN_RE.finditer(value):
        segments.append((None, value[end : match.start()]))
        segments.append((match.group(1), match.group(2)))
        end = match.end()
    segments.append((None, value[end:]))
    return segments


def _tidy(text: str) -> str:
    paragraphs = []
    for paragraph in text.split(_PARAGRAPH):
        lines = (re.sub(r"[ \t\r\f\v]+", " ", line).strip() for line in paragraph.split("\n"))
        paragraphs.append("\n".join(lines).strip())
    return "\n\n".join(paragraph for paragraph in paragraphs if paragraph)


class _Reader(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.segments: list[tuple[str | None, str]] = []
        self._spans: list[str | bool | None] = []  # per open <span>: its language, or False

    @property
    def _language(self):
        return next((span for span in reversed(self._spans) if span is not False), None)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "span":
            classes = (attributes.get("class") or "").split()
            if "multilang" in classes and attributes.get("lang"):
                language = site_language(attributes["lang"])
                self._spans.append(language or "")  # "" : a language this site does not have
            else:
                self._spans.append(False)
        elif tag == "br":
            self._add("\n")
        elif tag in BLOCK_TAGS:
            self._add(_PARAGRAPH)
        elif tag not in INLINE_TAGS:
            raise MarkupError(
                _(
                    "HTML element <%(tag)s> cannot be imported: only text, paragraphs, line breaks "
                    "and emphasis (which is dropped) can"
                )
                % {"tag": tag}
            )

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag == "span":
            self._spans.pop()

    def handle_endtag(self, tag):
        if tag == "span" and self._spans:
            self._spans.pop()
        elif tag in BLOCK_TAGS:
            self._add(_PARAGRAPH)

    def handle_data(self, data):
        self._add(re.sub(r"\s+", " ", data))

    def _add(self, text: str) -> None:
        language = self._language
        if language == "":
            return  # inside a language this site does not have
        self.segments.append((language, text))
