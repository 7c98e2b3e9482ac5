"""Reads: querysets with their related rows already fetched."""

from django.db.models import Prefetch, QuerySet

from quizzes.models import Choice, Question, Quiz


def quiz_content_queryset() -> QuerySet[Quiz]:
    """Quizzes with their course, questions and choices, in order."""
    return Quiz.objects.select_related("course").prefetch_related(
        Prefetch(
            "questions",
            queryset=Question.objects.order_by("position").prefetch_related(
                Prefetch("choices", queryset=Choice.objects.order_by("position"))
            ),
        )
    )


def quiz_content_get(*, slug: str) -> Quiz:
    """One quiz with all its content; raises Quiz.DoesNotExist."""
    return quiz_content_queryset().get(slug=slug)
