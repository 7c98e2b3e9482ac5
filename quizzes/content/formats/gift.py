"""GIFT (docs.moodle.org/en/GIFT_format): one language of a quiz, as text teachers write.

::Title:: Question text {=right ~wrong ~wrong #per-answer feedback ####general feedback}

Read as Moodle's importer (qformat_gift) reads it. Questions are separated by blank lines;
``//`` starts a comment line; ``\\~ \\= \\# \\{ \\} \\:`` are the characters themselves,
``\\\\`` a backslash and ``\\n`` a line break, and every other backslash stays (LaTeX's
``\\(\\frac{1}{2}\\)``, a path ``C:\\Windows``); ``$CATEGORY: path`` on its own, between blank
lines, names the quiz (its last segment). The general feedback is our explanation;
per-answer feedback is dropped. A text (the question, an answer, a feedback) may start with
its format, ``[html]``, ``[moodle]``, ``[plain]`` or ``[markdown]``, which is removed: HTML is
read as Moodle's (``multilang``, English), the others as plain text; an answer without one
takes its question's. Single-answer multiple choice (a missing-word one too: text after the
answers, which stand for ``_____`` in it) and true/false (``{T}``, ``{F}``: two choices) are
read; every other kind (short answer, numeric, matching, essay, description, multiple answers,
partial credit) refuses the file, naming the question and its line, or is skipped and
reported (``parse(..., skip_unsupported=True)``).
"""

import re

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
from quizzes.content.formats.multilang import MarkupError, texts_by_language
from quizzes.content.languages import SOURCE_LANGUAGE
from quizzes.content.localized import quiz_localize
from quizzes.content.seedformat import ParsedChoice, ParsedQuestion, ParsedQuiz, decode_lines
from quizzes.content.true_false import TRUE_FALSE_ENGLISH
from quizzes.models import QuestionKind

SPECIAL = "~=#{}:"
_ESCAPES = SPECIAL + "\\n"  # what a backslash escapes; before anything else it is itself
_ESCAPED = "\x01"  # marks an escaped character in the working copy of a question
_LINE_BREAK = "\x02"  # an escaped line break (\\n), which stays one
_CATEGORY_RE = re.compile(r"^\$CATEGORY:\s*(.*)$")
_FORMAT_RE = re.compile(r"^\[(html|moodle|plain|markdown)\]", re.I)
_WEIGHT_RE = re.compile(r"^%(-?\d+(?:\.\d+)?)%")
MISSING_WORD = "_____"
_TRUE_FALSE = {"t": True, "true": True, "f": False, "false": False}


def parse(data: bytes, *, skip_unsupported: bool = False) -> ParsedQuiz:
    title = None
    questions = Skipping(skip_unsupported)
    block: list[tuple[int, str]] = []
    category_line = None  # a $CATEGORY line not yet followed by a blank line
    for number, line in [*enumerate(decode_lines(data), start=1), (0, "")]:
        if line.lstrip().startswith("//"):
            continue
        category = _CATEGORY_RE.match(line.strip())
        # Moodle reads a block that starts with $CATEGORY as a category, whole, and one among
        # a question's lines as its text: either way a question would be lost or changed.
        if category and block:
            raise QuestionFileError(number, _("a blank line is missing before this $CATEGORY line"))
        if category:
            if questions.next_number == 1:
                title = category_path_title(category.group(1)) or title
            category_line = number
        elif line.strip() and category_line is not None:
            message = _("a blank line is missing after the $CATEGORY line (line %(line)d)") % {"line": category_line}
            raise QuestionFileError(number, message)
        elif line.strip():
            block.append((number, line))
        else:
            category_line = None
            if block:
                questions.add(lambda block=block, at=questions.next_number: _question(block, at))
                block = []
    read = questions.questions(1, _("the file holds no question"))
    return ParsedQuiz(title=title, description=None, questions=read, skipped=questions.skipped)


def render(quiz, language: str) -> str:
    """The quiz (from ``selectors.quiz_content_get``) as a learner reading ``language`` sees it."""
    view = quiz_localize(quiz=quiz, language=language)
    english = {question.id: question.text for question in quiz_localize(quiz=quiz, language=SOURCE_LANGUAGE).questions}
    parts = [f"// {quiz.slug} ({language})", f"$CATEGORY: {category_path(view.title.text)}", ""]
    for question in view.questions:
        name = question_name(question.position, english[question.id].text)
        parts.append(f"::{escape(name)}:: {escape(question.text.text)} {{")
        if question.kind == QuestionKind.TRUE_FALSE:
            parts.append("TRUE" if question.choices[0].is_correct else "FALSE")
        else:
            parts.extend(f"{'=' if c.is_correct else '~'}{escape(c.text.text)}" for c in question.choices)
        if question.explanation.text:
            parts.append(f"####{escape(question.explanation.text)}")
        parts += ["}", ""]
    return "\n".join(parts)


def escape(text: str) -> str:
    text = text.replace("\\", "\\\\")
    for character in SPECIAL:
        text = text.replace(character, "\\" + character)
    return text.replace("\n", "\\n")


def _question(block: list[tuple[int, str]], number: int) -> ParsedQuestion:
    first_line = block[0][0]
    # One string with the escapes resolved into marked characters, and each character's line.
    chars: list[str] = []
    lines: list[int] = []
    for line_number, line in block:
        line = line.lstrip() if line_number == first_line else line
        index = 0
        while index < len(line):
            if line[index] == "\\" and index + 1 < len(line) and line[index + 1] in _ESCAPES:
                following = line[index + 1]
                chars.append(_ESCAPED + (_LINE_BREAK if following == "n" else following))
                index += 2
            else:
                chars.append(line[index])
                index += 1
            lines.append(line_number)
        chars.append("\n")
        lines.append(line_number)
    name = ""
    start = 0
    if chars[:2] == [":", ":"]:
        end = _find(chars, "::", 2)
        if end is None:
            raise question_error(first_line, number, "", _("the title has no closing ::"))
        name = " ".join(_plain(chars[2:end]).split())
        start = end + 2
    opening = _find(chars, "{", start)
    if opening is None:
        message = _("no answers in braces { }: descriptions cannot be imported")
        raise UnsupportedQuestion(first_line, number, name, _("description"), message)
    closing = _find(chars, "}", opening)
    if closing is None:
        raise question_error(first_line, number, name, _("the answers have no closing }"))
    # Text after the answers makes a missing-word question: the answers stand for a blank in
    # the text, as Moodle shows it.
    text_chars = chars[start:opening]
    if _plain(chars[closing + 1 :]).strip():
        text_chars = [*text_chars, *MISSING_WORD, *chars[closing + 1 :]]
    text, html = _text(text_chars, first_line, number, name)
    where = (first_line, number, name, html)
    choices, correct, explanation, kind = _answers(chars[opening + 1 : closing], lines[opening + 1 : closing], where)
    return ParsedQuestion(
        line=first_line,
        number=number,
        name=name,
        text=text,
        choices=choices,
        correct=correct,
        explanation=explanation,
        kind=kind,
        keep_choice_order=True if kind == QuestionKind.TRUE_FALSE else None,
    )


def _answers(chars, lines, where):
    """The choices, the right one's position, the general feedback and the kind of an answer block."""
    question_line, number, name, html = where

    def text_of(part, line):
        raw, text_html = _formatted(_plain(part).strip(), html)
        return _converted(raw, text_html, line, number, name)

    general = _find(chars, "####", 0)
    explanation = ""
    if general is not None:
        explanation = text_of(chars[general + 4 :], lines[general])
        chars, lines = chars[:general], lines[:general]
    plain = _plain(chars).strip()
    first_line = lines[0] if lines else question_line
    if plain.split("#")[0].strip().lower() in _TRUE_FALSE and "=" not in plain and "~" not in plain:
        right = _TRUE_FALSE[plain.split("#")[0].strip().lower()]
        choices = [ParsedChoice(line=first_line, text=TRUE_FALSE_ENGLISH[value]) for value in (True, False)]
        return choices, 1 if right else 2, explanation, QuestionKind.TRUE_FALSE
    starts = [index for index, char in enumerate(chars) if char in ("=", "~")]
    if not plain or plain.startswith("#") or not starts or _plain(chars[: starts[0]]).strip():
        message = _("only multiple-choice and true/false questions can be imported")
        kind = _("essay") if not plain else _("numerical") if plain.startswith("#") else _("short answer")
        raise UnsupportedQuestion(first_line, number, name, kind, message)
    marks = [chars[start] for start in starts]
    if "~" not in marks and "->" in plain:
        message = _("matching questions cannot be imported")
        raise UnsupportedQuestion(first_line, number, name, _("matching"), message)
    if "~" not in marks:
        message = _("short-answer questions (only = answers) cannot be imported")
        raise UnsupportedQuestion(first_line, number, name, _("short answer"), message)
    choices, right = [], []
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(chars)
        answer = chars[start + 1 : end]
        feedback = next((position for position, char in enumerate(answer) if char == "#"), len(answer))
        answer_text = "".join(answer[:feedback])
        weight_match = _WEIGHT_RE.match(answer_text.strip())
        weight = float(weight_match.group(1)) if weight_match else (100.0 if chars[start] == "=" else 0.0)
        if weight_match:
            answer_text = answer_text.strip()[weight_match.end() :]
        if 0 < weight < 100:
            # Moodle: no = answer makes a multiple-answer question; with one, partial credit.
            if "=" not in marks:
                message = _("multiple-answer questions (weights on ~ answers, no = answer) cannot be imported")
                raise UnsupportedQuestion(first_line, number, name, _("multiple answers"), message)
            message = _("partial credit (%(weight)s%%) cannot be imported") % {"weight": weight_match.group(1)}
            raise UnsupportedQuestion(lines[start], number, name, _("partial credit"), message)
        text = text_of(list(answer_text), lines[start])
        if not text:
            raise question_error(lines[start], number, name, _("an answer has no text"))
        choices.append(ParsedChoice(line=lines[start], text=text))
        if weight >= 100:
            right.append(len(choices))
    if len(choices) < 2:
        raise question_error(first_line, number, name, _("a question needs at least two answers"))
    if len(right) != 1:
        raise right_choice_count_error(first_line, number, name, len(right))
    return choices, right[0], explanation, QuestionKind.SINGLE


def _text(chars, line, number, name) -> tuple[str, bool]:
    """The question's text, and whether it (and so its answers) is HTML."""
    raw, html = _formatted(_plain(chars).strip(), False)
    text = _converted(raw, html, line, number, name)
    if not text:
        raise question_error(line, number, name, _("the question has no text"))
    return text, html


def _formatted(raw: str, html: bool) -> tuple[str, bool]:
    """A text without its format marker, and whether it is HTML (``html``: when it has none)."""
    text_format = _FORMAT_RE.match(raw)
    if text_format is None:
        return raw, html
    return raw[text_format.end() :], text_format.group(1).lower() == "html"


def _converted(raw: str, html: bool, line, number, name) -> str:
    if not html:
        return _collapse(raw)
    try:
        return texts_by_language(raw.replace(_LINE_BREAK, "<br>"))[SOURCE_LANGUAGE]
    except MarkupError as error:
        raise question_error(line, number, name, str(error)) from None


def _find(chars, wanted: str, start: int) -> int | None:
    for index in range(start, len(chars) - len(wanted) + 1):
        if "".join(chars[index : index + len(wanted)]) == wanted:
            return index
    return None


def _plain(chars) -> str:
    return "".join(char.removeprefix(_ESCAPED) for char in chars)


def _collapse(text: str) -> str:
    # A line break in the file is a space; an escaped one (\n) stays, marked until here.
    return "\n".join(" ".join(part.split()) for part in text.split(_LINE_BREAK)).strip()
