"""A quiz rendered in the seed text format, in one language with fallback."""

from quizzes.i18n import localized
from quizzes.models import Quiz
from quizzes.seedformat import render


def quiz_export_text(*, quiz: Quiz, language: str) -> str:
    """The quiz as a learner reading ``language`` sees it (English where untranslated).

    Pass a quiz from ``selectors.quiz_content_get`` so that questions and
    choices are already fetched.
    """
    questions = [
        (
            localized(question, "text", language).text,
            [localized(choice, "text", language).text for choice in question.choices.all()],
        )
        for question in quiz.questions.all()
    ]
    return render(
        title=localized(quiz, "title", language).text,
        description=localized(quiz, "description", language).text,
        questions=questions,
    )
