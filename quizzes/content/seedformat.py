"""The plain-text quiz format of the seed files: parse and render.

A quiz as a learner sees it in one language, line by line::

    <quiz title>
    <empty line>
    <quiz description>
    <empty line>
    1. <question text>
       • <choice text>
       ...

UTF-8, ``\\n`` line ends, no newline after the last line. Which choice is
correct and the explanations are not part of the format.
"""

import re
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

CHOICE_PREFIX = "   \u2022 "
_QUESTION_RE = re.compile(r"^(\d+)\. (\S.*)$")


class SeedFormatError(ValueError):
    """A file that is not in the seed format; ``line`` is 1-based."""

    def __init__(self, line: int, message: str):
        self.line = line
        self.message = message
        super().__init__(_("line %(line)d: %(message)s") % {"line": line, "message": message})


@dataclass
class ParsedChoice:
    line: int
    text: str


@dataclass
class ParsedQuestion:
    line: int
    number: int
    text: str
    choices: list[ParsedChoice] = field(default_factory=list)
    # What the seed format does not carry and other question files may
    # (quizzes/content/formats/): None where a file says nothing of it.
    name: str = ""
    correct: int | None = None  # the position of the right choice, from 1
    explanation: str | None = None
    keep_choice_order: bool | None = None
    kind: str | None = None  # a QuestionKind


@dataclass
class ParsedQuiz:
    # None: the file names no title or description (an Aiken file); "" in one language of
    # a multilingual file: not translated into it.
    title: str | None
    description: str | None
    questions: list[ParsedQuestion]
    # The questions of kinds this site cannot import that were left out (formats.common.SkippedQuestion).
    skipped: list = field(default_factory=list)


def parse(data: bytes) -> ParsedQuiz:
    """Parse a file's bytes; raise SeedFormatError naming the first bad line."""
    lines = decode_lines(data)
    if not lines or not lines[0].strip():
        raise SeedFormatError(1, _("the first line must be the quiz title"))
    if _QUESTION_RE.match(lines[0]) or lines[0].startswith(CHOICE_PREFIX):
        raise SeedFormatError(1, _("the first line must be the quiz title"))
    for number in (2, 4):
        if len(lines) < number or lines[number - 1] != "":
            raise SeedFormatError(number, _("expected an empty line after the quiz title and after the description"))
    if len(lines) < 5:
        raise SeedFormatError(len(lines) + 1, _("the quiz has no questions"))

    questions: list[ParsedQuestion] = []
    for number, line in enumerate(lines[4:], start=5):
        question_match = _QUESTION_RE.match(line)
        if question_match:
            if questions and len(questions[-1].choices) < 2:
                raise SeedFormatError(questions[-1].line, _("a question needs at least two choices"))
            expected = len(questions) + 1
            if int(question_match.group(1)) != expected:
                raise SeedFormatError(number, _("expected question number %(expected)d here") % {"expected": expected})
            questions.append(ParsedQuestion(line=number, number=expected, text=question_match.group(2).rstrip()))
        elif line.startswith(CHOICE_PREFIX) and line[len(CHOICE_PREFIX) :].strip():
            if not questions:
                raise SeedFormatError(number, _("a choice must follow a question"))
            questions[-1].choices.append(ParsedChoice(line=number, text=line[len(CHOICE_PREFIX) :].rstrip()))
        else:
            raise SeedFormatError(
                number,
                _('expected a question ("1. text") or a choice ("   • text"), found %(found)r') % {"found": line},
            )
    if len(questions[-1].choices) < 2:
        raise SeedFormatError(questions[-1].line, _("a question needs at least two choices"))
    return ParsedQuiz(title=lines[0].strip(), description=lines[2].strip(), questions=questions)


def render(*, title: str, description: str, questions: list[tuple[str, list[str]]]) -> str:
    """Render a quiz as the seed format; ``questions`` is (text, choice texts)."""
    texts = [title, description, *(text for text, choices in questions)]
    texts += [choice for _text, choices in questions for choice in choices]
    if any("\n" in text or "\r" in text for text in texts):
        raise ValueError(_("a title, question or choice contains a line break, which the format cannot hold"))
    lines = [title, "", description, ""]
    for number, (text, choices) in enumerate(questions, start=1):
        lines.append(f"{number}. {text}")
        lines.extend(f"{CHOICE_PREFIX}{choice}" for choice in choices)
    return "\n".join(lines)


def decode_lines(data: bytes) -> list[str]:
    """The lines of a UTF-8 file (a BOM and a last newline allowed); SeedFormatError on bad bytes
    or a NUL character."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    raw_lines = data.split(b"\n")
    if raw_lines and raw_lines[-1] == b"":
        raw_lines.pop()  # a file that ends with a newline is still fine
    lines = []
    for number, raw in enumerate(raw_lines, start=1):
        try:
            lines.append(raw.decode("utf-8").removesuffix("\r"))
        except UnicodeDecodeError:
            raise SeedFormatError(number, _("this line is not valid UTF-8")) from None
        if "\x00" in lines[-1]:  # no text holds one, and PostgreSQL's text cannot
            raise SeedFormatError(number, _("this line holds a NUL character: the file is not text"))
    return lines
