"""The units of a quiz's translation file: one per translated field that has English."""

from dataclasses import dataclass

from django.utils.translation import gettext as _

from quizzes.content.languages import SOURCE_LANGUAGE, column, text_in, translated_fields
from quizzes.content.translation_status import Status, translation_status, written_against
from quizzes.models import Choice, Question, Quiz

KINDS = {Quiz: "quiz", Question: "question", Choice: "choice"}


@dataclass
class Unit:
    """One translated field of one row, in one language."""

    id: str
    obj: object
    name: str
    language: str
    role: str
    # The question the unit belongs to: its group in XLIFF; None for the quiz's own texts.
    question: Question | None

    @property
    def column(self) -> str:
        return column(self.name, self.language)

    @property
    def english(self) -> str:
        return text_in(self.obj, self.name, SOURCE_LANGUAGE)

    @property
    def translation(self) -> str:
        return text_in(self.obj, self.name, self.language)

    @property
    def status(self) -> Status:
        return translation_status(self.obj, self.name, self.language)

    @property
    def written_against(self) -> str | None:
        return written_against(self.obj, self.name, self.language)


def unit_id(obj, name: str) -> str:
    return f"{KINDS[type(obj)]}.{obj.pk}.{name}"


def question_group_id(question: Question) -> str:
    return f"question.{question.pk}"


def _role(obj, name: str, question: Question | None) -> str:
    if isinstance(obj, Quiz):
        label = _("Quiz, title") if name == "title" else _("Quiz, description")
        return f"{label}: {obj.slug}"
    if isinstance(obj, Question):
        if name == "text":
            return _("Question %(position)s, text") % {"position": obj.position}
        return _("Question %(position)s, explanation") % {"position": obj.position}
    if obj.is_correct:
        message = _("Question %(question)s, choice %(choice)s — the right answer")
    else:
        message = _("Question %(question)s, choice %(choice)s — a wrong answer")
    return message % {"question": question.position, "choice": obj.position}


def quiz_units(quiz: Quiz, language: str) -> list[Unit]:
    """The units of ``quiz`` in ``language``, in reading order (archived questions and choices
    left out). Pass a quiz from ``selectors.quiz_content_get``."""
    rows = [(quiz, None)]
    for question in quiz.questions.all():
        rows.append((question, question))
        rows.extend((choice, question) for choice in question.choices.all())
    return [
        Unit(unit_id(obj, name), obj, name, language, _role(obj, name, question), question)
        for obj, question in rows
        for name in translated_fields(type(obj))
        if text_in(obj, name, SOURCE_LANGUAGE)
    ]
