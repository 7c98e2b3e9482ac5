"""A quiz rendered in the seed text format, in one language with fallback."""

from quizzes.content.localized import quiz_localize
from quizzes.content.seedformat import render
from quizzes.models import Quiz


def quiz_export_text(*, quiz: Quiz, language: str) -> str:
    """The quiz as a learner reading ``language`` sees it (English where untranslated).

    Pass a quiz from ``selectors.quiz_content_get`` so that questions and
    choices are already fetched.
    """
    view = quiz_localize(quiz=quiz, language=language)
    return render(
        title=view.title.text,
        description=view.description.text,
        questions=[
            (question.text.text, [choice.text.text for choice in question.choices]) for question in view.questions
        ],
    )
