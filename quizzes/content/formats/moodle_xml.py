"""Moodle XML (docs.moodle.org/en/Moodle_XML_format): every language of a quiz in one file.

A ``<quiz>`` of ``<question type="multichoice">`` entries, single-answer: ``<name>``,
``<questiontext>``, ``<generalfeedback>`` (our explanation), ``<shuffleanswers>`` (0: the
question keeps its choice order) and ``<answer fraction="100">`` for the right choice, 0 (or
a penalty below 0) for the others; texts in Moodle's multilang form (``multilang``). The quiz's
title and description travel as a ``<question type="category">`` entry (the last segment of
its path, and its ``<info>``). ``truefalse`` is read as two choices; every other question type
refuses the file, naming the question and its line, or is skipped and reported
(``parse(..., skip_unsupported=True)``), as Moodle's importer imports what it can. Parsed
with defusedxml's SAX reader, which refuses entity bombs and external entities and tells each
element's line.
"""

from dataclasses import dataclass, field
from xml.etree import ElementTree
from xml.sax import SAXParseException
from xml.sax.handler import ContentHandler

from defusedxml import DefusedXmlException
from defusedxml.sax import parseString
from django.utils.translation import gettext as _

from quizzes.content.formats.common import (
    QuestionFileError,
    Skipping,
    UnsupportedQuestion,
    category_path,
    category_path_title,
    question_error,
    question_name,
    right_choice_count_error,
)
from quizzes.content.formats.multilang import SITE_LANGUAGES, MarkupError, multilang_html, texts_by_language
from quizzes.content.languages import SOURCE_LANGUAGE, text_in
from quizzes.content.seedformat import ParsedChoice, ParsedQuestion, ParsedQuiz
from quizzes.content.true_false import TRUE_FALSE_ENGLISH, true_false_value
from quizzes.models import QuestionKind

SUPPORTED_TYPES = ("multichoice", "truefalse")


@dataclass
class _Element:
    tag: str
    attrs: dict[str, str]
    line: int
    children: list["_Element"] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)

    def child(self, tag: str) -> "_Element | None":
        return next((child for child in self.children if child.tag == tag), None)

    def all(self, tag: str) -> list["_Element"]:
        return [child for child in self.children if child.tag == tag]

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def value(self, tag: str, default: str = "") -> str:
        found = self.child(tag)
        return found.text.strip() if found is not None else default


class _TreeBuilder(ContentHandler):
    def __init__(self):
        super().__init__()
        self.locator = None
        self.root: _Element | None = None
        self._stack: list[_Element] = []

    def setDocumentLocator(self, locator):
        self.locator = locator

    def startElement(self, name, attrs):
        element = _Element(name, dict(attrs), self.locator.getLineNumber() if self.locator else 1)
        if self._stack:
            self._stack[-1].children.append(element)
        else:
            self.root = element
        self._stack.append(element)

    def endElement(self, name):
        self._stack.pop()

    def characters(self, content):
        if self._stack:
            self._stack[-1].parts.append(content)


@dataclass
class _Question:
    line: int
    number: int
    name: str
    texts: dict[str, str]
    explanations: dict[str, str] | None  # None: no <generalfeedback> (the quiz's stay)
    choices: list[tuple[int, dict[str, str]]]
    correct: int
    keep_choice_order: bool | None
    kind: str  # a QuestionKind


def parse(data: bytes, *, skip_unsupported: bool = False) -> dict[str, ParsedQuiz]:
    """Every language the file holds (English first), each a quiz of the same questions; a
    question of a kind this site has not refuses the file, or is left out and reported in
    each language's ``skipped`` with ``skip_unsupported``."""
    root = _read(data)
    if root.tag != "quiz":
        message = _("a Moodle XML file holds one <quiz> element, not <%(tag)s>") % {"tag": root.tag}
        raise QuestionFileError(root.line, message)
    title = description = None
    questions = Skipping(skip_unsupported)
    for element in root.all("question"):
        kind = element.attrs.get("type", "")
        name = _name(element)
        if kind == "category":
            if questions.next_number == 1:
                title, description = _category(element) or (title, description)
            continue
        questions.add(lambda element=element, at=questions.next_number, name=name: _question(element, at, name))
    read = questions.questions(root.line, _("the file holds no multiple-choice question"))
    return _by_language(title, description, read, questions.skipped)


def render(quiz) -> str:
    """The quiz (from ``selectors.quiz_content_get``) with every language in multilang form."""
    root = ElementTree.Element("quiz")
    category = _sub(root, "question", type="category")
    _text(_sub(category, "category"), category_path(multilang_html(_all_languages(quiz, "title"), paragraph=False)))
    _text(_sub(category, "info", format="html"), multilang_html(_all_languages(quiz, "description")))
    for question in quiz.questions.all():
        true_false = question.kind == QuestionKind.TRUE_FALSE
        entry = _sub(root, "question", type="truefalse" if true_false else "multichoice")
        _text(_sub(entry, "name"), question_name(question.position, text_in(question, "text", SOURCE_LANGUAGE)))
        _text(_sub(entry, "questiontext", format="html"), multilang_html(_all_languages(question, "text")))
        _text(_sub(entry, "generalfeedback", format="html"), multilang_html(_all_languages(question, "explanation")))
        if true_false:  # as Moodle writes one: its answers "true" and "false", in its own words
            for tag, value in (("defaultgrade", "1"), ("penalty", "1"), ("hidden", "0")):
                _sub(entry, tag).text = value
            for choice in question.choices.all():
                value = true_false_value(text_in(choice, "text", SOURCE_LANGUAGE))
                answer = _sub(
                    entry, "answer", fraction="100" if choice.is_correct else "0", format="moodle_auto_format"
                )
                _text(answer, TRUE_FALSE_ENGLISH[bool(value)].lower())
                _text(_sub(answer, "feedback", format="html"), "")
            continue
        for tag, value in (("defaultgrade", "1"), ("penalty", "0"), ("hidden", "0"), ("single", "true")):
            _sub(entry, tag).text = value
        _sub(entry, "shuffleanswers").text = "0" if question.keep_choice_order else "1"
        _sub(entry, "answernumbering").text = "abc"
        for choice in question.choices.all():
            answer = _sub(entry, "answer", fraction="100" if choice.is_correct else "0", format="html")
            _text(answer, multilang_html(_all_languages(choice, "text")))
            _text(_sub(answer, "feedback", format="html"), "")
    ElementTree.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(root, encoding="unicode") + "\n"


def _read(data: bytes) -> _Element:
    builder = _TreeBuilder()
    try:
        parseString(data, builder)
    except SAXParseException as error:
        message = _("not well-formed XML: %(error)s") % {"error": error.getMessage()}
        raise QuestionFileError(error.getLineNumber(), message) from None
    except DefusedXmlException:
        line = builder.locator.getLineNumber() if builder.locator else 1
        raise QuestionFileError(line, _("entity declarations are refused (they can blow up a file's size)")) from None
    if builder.root is None:
        raise QuestionFileError(1, _("the file holds no XML element"))
    return builder.root


def _name(element: _Element) -> str:
    name = element.child("name")
    return " ".join(name.value("text").split()) if name is not None else ""


def _texts(element: _Element | None, what: str, question: tuple[int, str] | None) -> dict[str, str] | None:
    """The element's text by language; None without the element. ``question``: (number, name)."""
    if element is None:
        return None
    try:
        return texts_by_language(element.value("text"), text_format=element.attrs.get("format", "html"))
    except MarkupError as error:
        if question is None:
            raise QuestionFileError(element.line, f"{what}: {error}") from None
        raise question_error(element.line, *question, f"{what}: {error}") from None


def _category(element: _Element) -> tuple[dict[str, str], dict[str, str] | None] | None:
    category = element.child("category")
    title = category_path_title(category.value("text")) if category is not None else None
    if not title:
        return None
    try:
        titles = texts_by_language(title)
    except MarkupError as error:
        raise QuestionFileError(element.line, str(error)) from None
    return titles, _texts(element.child("info"), _("description"), None)


def _question(element: _Element, number: int, name: str) -> _Question:
    where = (number, name)
    kind = element.attrs.get("type", "")
    if kind not in SUPPORTED_TYPES:
        message = _("questions of type %(type)s cannot be imported; only single-answer multiple choice and true/false")
        raise UnsupportedQuestion(element.line, number, name, kind or "?", message % {"type": kind or "?"})
    if kind == "multichoice" and element.value("single", "true").lower() not in ("true", "1"):
        message = _("multiple-answer questions cannot be imported")
        raise UnsupportedQuestion(element.line, number, name, _("multiple answers"), message)
    choices, right = [], []
    for answer in element.all("answer"):
        try:
            fraction = float(answer.attrs.get("fraction", "0"))
        except ValueError:
            raise question_error(answer.line, number, name, _("the answer's fraction is not a number")) from None
        if 0 < fraction < 100:
            message = _("partial credit (fraction %(fraction)s) cannot be imported")
            message %= {"fraction": answer.attrs["fraction"]}
            raise UnsupportedQuestion(answer.line, number, name, _("partial credit"), message)
        texts = _texts(answer, _("answer"), where)
        if not texts[SOURCE_LANGUAGE]:
            raise question_error(answer.line, number, name, _("an answer has no English text"))
        choices.append((answer.line, texts))
        if fraction >= 100:
            right.append(len(choices))
    if len(choices) < 2:
        raise question_error(element.line, number, name, _("a question needs at least two answers"))
    if len(right) != 1:
        raise right_choice_count_error(element.line, number, name, len(right))
    true_false = kind == "truefalse"
    if true_false:
        choices, right = _true_then_false(choices, right[0], element.line, where)
    texts = _texts(element.child("questiontext"), _("question text"), where) or {}
    if not texts.get(SOURCE_LANGUAGE):
        raise question_error(element.line, number, name, _("the question has no English text"))
    shuffle = element.value("shuffleanswers", "").lower()
    return _Question(
        line=element.line,
        number=number,
        name=name,
        texts=texts,
        explanations=_texts(element.child("generalfeedback"), _("general feedback"), where),
        choices=choices,
        correct=right[0],
        keep_choice_order=True if true_false else {"0": True, "false": True, "1": False, "true": False}.get(shuffle),
        kind=QuestionKind.TRUE_FALSE if true_false else QuestionKind.SINGLE,
    )


def _true_then_false(choices, right: int, line: int, where) -> tuple[list, list[int]]:
    """A true/false question's two answers as this site keeps them: "True" then "False", in
    English only (each language's words are the site's), and which of them is right."""
    values = [true_false_value(texts[SOURCE_LANGUAGE]) for _line, texts in choices]
    if sorted(values, key=str) != [False, True]:
        raise question_error(line, *where, _("a true/false question's answers are “true” and “false”"))
    lines = dict(zip(values, (answer_line for answer_line, _texts in choices), strict=True))
    ordered = [(lines[value], {SOURCE_LANGUAGE: TRUE_FALSE_ENGLISH[value]}) for value in (True, False)]
    return ordered, [1 if values[right - 1] else 2]


def _by_language(title, description, questions: list[_Question], skipped: list) -> dict[str, ParsedQuiz]:
    found = set(title or ()) | set(description or ())
    for question in questions:
        found |= set(question.texts) | set(question.explanations or ())
        found |= {language for _line, texts in question.choices for language in texts}
    languages = [SOURCE_LANGUAGE, *sorted(found - {SOURCE_LANGUAGE})]
    return {
        language: ParsedQuiz(
            title=None if title is None else title.get(language, ""),
            description=None if description is None else description.get(language, ""),
            questions=[
                ParsedQuestion(
                    line=question.line,
                    number=question.number,
                    name=question.name,
                    text=question.texts.get(language, ""),
                    choices=[ParsedChoice(line=line, text=texts.get(language, "")) for line, texts in question.choices],
                    correct=question.correct,
                    explanation=None if question.explanations is None else question.explanations.get(language, ""),
                    keep_choice_order=question.keep_choice_order,
                    kind=question.kind,
                )
                for question in questions
            ],
            skipped=skipped,
        )
        for language in languages
    }


def _all_languages(obj, field: str) -> dict[str, str]:
    return {language: text_in(obj, field, language) for language in SITE_LANGUAGES}


def _sub(parent, tag: str, **attrs) -> ElementTree.Element:
    return ElementTree.SubElement(parent, tag, attrs)


def _text(parent, value: str) -> None:
    _sub(parent, "text").text = value
