"""Reads of content: quizzes with their course, questions and choices."""

from django.db.models import (
    Prefetch,
    QuerySet,
)

from quizzes.models import Choice, Question, Quiz


def quiz_content_queryset() -> QuerySet[Quiz]:
    """Quizzes with their course, questions and choices, in order."""
    return Quiz.objects.select_related("course").prefetch_related(open_questions_with_choices())


def open_questions_with_choices() -> Prefetch:
    # Archived questions and choices are no longer asked or offered (their answers stay on record).
    return Prefetch(
        "questions",
        queryset=Question.objects.filter(is_archived=False)
        .order_by("position")
        .prefetch_related(Prefetch("choices", queryset=Choice.objects.filter(is_archived=False).order_by("position"))),
    )


def quiz_content_get(*, slug: str) -> Quiz:
    """One quiz with all its content; raises Quiz.DoesNotExist."""
    return quiz_content_queryset().get(slug=slug)
