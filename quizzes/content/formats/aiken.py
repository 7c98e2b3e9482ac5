"""Aiken (docs.moodle.org/en/Aiken_format): one language, single-answer questions only.

    Question text on one line
    A. a choice            (or "A) a choice")
    B. another
    ANSWER: B

A blank line may separate questions. The format holds no quiz title, no description and no
explanations: a new quiz takes its title from the file's name.
"""

import re
import string

from django.utils.translation import gettext as _

from quizzes.content.formats.common import QuestionFileError, question_error
from quizzes.content.localized import quiz_localize
from quizzes.content.seedformat import ParsedChoice, ParsedQuestion, ParsedQuiz, decode_lines

_CHOICE_RE = re.compile(r"^([A-Z])[.)]\s+(\S.*)$")
_ANSWER_RE = re.compile(r"^ANSWER:\s*(\S*)\s*$")


def parse(data: bytes) -> ParsedQuiz:
    questions: list[ParsedQuestion] = []
    current: ParsedQuestion | None = None
    for number, raw in enumerate(decode_lines(data), start=1):
        line = raw.strip()
        choice = _CHOICE_RE.match(line)
        answer = _ANSWER_RE.match(line)
        if current is None:
            if not line:
                continue
            if choice or answer:
                raise QuestionFileError(number, _("expected a question's text, found %(found)r") % {"found": line})
            current = ParsedQuestion(line=number, number=len(questions) + 1, text=line)
        elif choice:
            expected = string.ascii_uppercase[len(current.choices)] if len(current.choices) < 26 else "?"
            if choice.group(1) != expected:
                message = _("expected choice %(letter)s here") % {"letter": expected}
                raise question_error(number, current.number, "", message)
            current.choices.append(ParsedChoice(line=number, text=choice.group(2).strip()))
        elif answer:
            letters = string.ascii_uppercase[: len(current.choices)]
            if len(current.choices) < 2:
                raise question_error(number, current.number, "", _("a question needs at least two choices"))
            if len(answer.group(1)) != 1 or answer.group(1) not in letters:
                message = _("the answer must be one letter of the choices (%(letters)s)") % {"letters": letters}
                raise question_error(number, current.number, "", message)
            current.correct = letters.index(answer.group(1)) + 1
            questions.append(current)
            current = None
        elif not current.choices and line:
            current.text = f"{current.text} {line}"
        else:
            message = _('expected a choice ("B. text") or the answer ("ANSWER: B"), found %(found)r')
            raise question_error(number, current.number, "", message % {"found": line})
    if current is not None:
        raise question_error(current.line, current.number, "", _('the question has no "ANSWER:" line'))
    if not questions:
        raise QuestionFileError(1, _("the file holds no question"))
    return ParsedQuiz(title=None, description=None, questions=questions)


def render(quiz, language: str) -> str:
    """The quiz (from ``selectors.quiz_content_get``) as a learner reading ``language`` sees it."""
    view = quiz_localize(quiz=quiz, language=language)
    parts = []
    for question in view.questions:
        texts = [question.text.text, *(choice.text.text for choice in question.choices)]
        if any("\n" in text or "\r" in text for text in texts):
            message = _("question %(number)d contains a line break, which Aiken cannot hold")
            raise ValueError(message % {"number": question.position})
        if len(question.choices) > 26:
            raise ValueError(_("question %(number)d has more than 26 choices") % {"number": question.position})
        parts.append(question.text.text)
        letters = string.ascii_uppercase
        parts.extend(f"{letters[index]}. {choice.text.text}" for index, choice in enumerate(question.choices))
        right = next((index for index, choice in enumerate(question.choices) if choice.is_correct), None)
        if right is None:
            message = _("question %(number)d has no correct choice, which Aiken requires")
            raise ValueError(message % {"number": question.position})
        parts += [f"ANSWER: {letters[right]}", ""]
    return "\n".join(parts)
