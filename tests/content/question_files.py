"""Helpers of the question file tests: a quiz's content as comparable values, commands, counts."""

import io

import pytest
from django.core.management import CommandError, call_command

from quizzes.content.languages import column
from quizzes.models import Choice, Question, Quiz

GC = "gradient-checkpointing"
ART = "activation-recomputation-tradeoffs"
LANGUAGES = ("en", "ur", "sn", "id")


def quiz_content(slug: str, languages=LANGUAGES, *, quiz_fields=("title", "description")) -> dict:
    """What a question file should carry of a quiz: its texts in ``languages``, each question's
    texts, explanations, choice order, key and choices in order."""
    quiz = Quiz.objects.get(slug=slug)
    questions = []
    for question in Question.objects.filter(quiz=quiz, is_archived=False).order_by("position"):
        choices = question.choices.filter(is_archived=False).order_by("position")
        questions.append(
            {
                "texts": {language: getattr(question, column("text", language)) for language in languages},
                "explanations": {
                    language: getattr(question, column("explanation", language)) for language in languages
                },
                "keep_choice_order": question.keep_choice_order,
                "key": [choice.is_correct for choice in choices],
                "choices": [
                    {language: getattr(choice, column("text", language)) for language in languages}
                    for choice in choices
                ],
            }
        )
    texts = {
        field: {language: getattr(quiz, column(field, language)) for language in languages} for field in quiz_fields
    }
    return {"quiz": texts, "questions": questions}


def export(slug: str, file_format: str, *args) -> str:
    out = io.StringIO()
    call_command("export_quiz", slug, "--format", file_format, *args, stdout=out)
    return out.getvalue()


def import_file(path, file_format: str, *args, **streams) -> str:
    out = io.StringIO()
    call_command("import_quiz", str(path), "--format", file_format, *args, stdout=out, **streams)
    return out.getvalue()


def row_counts() -> tuple[int, int, int]:
    return Quiz.objects.count(), Question.objects.count(), Choice.objects.count()


def all_rows() -> dict:
    return {
        "quizzes": list(Quiz.objects.order_by("pk").values()),
        "questions": list(Question.objects.order_by("pk").values()),
        "choices": list(Choice.objects.order_by("pk").values()),
    }


def assert_refused(path, file_format: str, *args, line: int, match: str) -> str:
    """The import is refused with ``FILE:LINE:`` and ``match`` in the message, and nothing is written."""
    counts, rows = row_counts(), all_rows()
    with pytest.raises(CommandError) as excinfo:
        import_file(path, file_format, *args)
    message = str(excinfo.value)
    assert message.startswith(f"{path}:{line}: "), message
    assert match in message, message
    assert row_counts() == counts
    assert all_rows() == rows
    return message
