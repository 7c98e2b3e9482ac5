"""An attempt as its student saw it, for the attempt's admin page: the questions of its layout in
its order, each as the version it holds showed it, in the language it was answered in
(English when unanswered), the choices in the attempt's order, the choice made and the
explanation shown. Read through ``quizzes.attempts.selectors.attempt_content``, the reading the
student's own review uses."""

from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import get_language_info

from quizzes.attempts.selectors import attempt_content, shown_questions
from quizzes.content.languages import SOURCE_LANGUAGE, LocalizedText
from quizzes.content.localized import LocalizedQuestion, quiz_localize
from quizzes.models import Answer, Attempt


@dataclass(frozen=True)
class SeenChoice:
    text: LocalizedText
    is_correct: bool  # by the key of the version shown
    is_chosen: bool


@dataclass(frozen=True)
class SeenQuestion:
    position: int
    question_id: int
    version_number: int
    language: str
    text: LocalizedText
    choices: list[SeenChoice]
    answer: Answer | None
    explanation: LocalizedText | None  # shown after the answer: None before one

    @property
    def language_name(self) -> str:
        return str(dict(settings.LANGUAGES)[self.language])

    @property
    def direction(self) -> str:
        return "rtl" if get_language_info(self.language)["bidi"] else "ltr"


def attempt_seen(*, attempt: Attempt) -> list[SeenQuestion]:
    """The attempt's layout in its order, as its student saw each question (see the module)."""
    content = attempt_content(attempt=attempt)
    answers = {answer.question_id: answer for answer in Answer.objects.filter(attempt_id=attempt.pk)}
    localized: dict[str, dict[int, LocalizedQuestion]] = {}
    seen = []
    for shown in shown_questions(content=content, answers=answers):
        language = shown.answer.language if shown.answer is not None else SOURCE_LANGUAGE
        if language not in localized:
            view = quiz_localize(quiz=content, language=language)
            localized[language] = {question.id: question for question in view.questions}
        question = localized[language][shown.question.id]
        chosen = shown.answer.choice_id if shown.answer is not None else None
        seen.append(
            SeenQuestion(
                position=question.position,
                question_id=question.id,
                version_number=shown.question.version_number,
                language=language,
                text=question.text,
                choices=[
                    SeenChoice(choice.text, choice.is_correct, choice.id == chosen) for choice in question.choices
                ],
                answer=shown.answer,
                explanation=question.explanation if shown.answer is not None else None,
            )
        )
    return seen
