"""A quiz as a learner reading one language sees it.

Every text says which language it really is in, so that a page can mark
English shown in place of a missing translation (``lang="en"``), and whether
it is a machine translation, so that a page can say so; an export can print
exactly what the learner reads.
"""

from dataclasses import dataclass

from django.utils.translation import get_language_info

from quizzes.content.cache import QuizContent, derived
from quizzes.content.languages import LocalizedText
from quizzes.content.shown import localized
from quizzes.models import Quiz


@dataclass(frozen=True)
class LocalizedChoice:
    id: int
    position: int
    text: LocalizedText
    is_correct: bool


@dataclass(frozen=True)
class LocalizedQuestion:
    id: int
    position: int
    text: LocalizedText
    explanation: LocalizedText
    choices: list[LocalizedChoice]
    kind: str  # a QuestionKind

    @property
    def machine(self) -> bool:
        """Whether the question or one of its choices is shown in a machine translation."""
        return self.text.machine or any(choice.text.machine for choice in self.choices)


@dataclass(frozen=True)
class LocalizedQuiz:
    slug: str
    language: str
    title: LocalizedText
    description: LocalizedText
    questions: list[LocalizedQuestion]

    @property
    def bidi(self) -> bool:
        return get_language_info(self.language)["bidi"]


def _all(related):
    # A cached snapshot holds tuples; a model instance, prefetched managers.
    return related if isinstance(related, tuple) else related.all()


def quiz_localize(*, quiz: Quiz | QuizContent, language: str) -> LocalizedQuiz:
    """Pass a quiz from ``selectors.quiz_content_get`` (content prefetched), or
    the cached snapshot from ``content_cache.quiz_content`` (what student pages use).

    A snapshot's view in a language is made once per process and shared
    (``content_cache.derived``); treat it as read-only.
    """
    if not isinstance(quiz, QuizContent):
        return _localize(quiz, language)
    return derived(quiz, "localized", language, lambda: _localize(quiz, language))


def _localize(quiz: Quiz | QuizContent, language: str) -> LocalizedQuiz:
    return LocalizedQuiz(
        slug=quiz.slug,
        language=language,
        title=localized(quiz, "title", language),
        description=localized(quiz, "description", language),
        questions=[
            LocalizedQuestion(
                id=question.pk,
                position=question.position,
                text=localized(question, "text", language),
                explanation=localized(question, "explanation", language),
                choices=[
                    LocalizedChoice(
                        id=choice.pk,
                        position=choice.position,
                        text=localized(choice, "text", language),
                        is_correct=choice.is_correct,
                    )
                    for choice in _all(question.choices)
                ],
                kind=question.kind,
            )
            for question in _all(quiz.questions)
        ],
    )
