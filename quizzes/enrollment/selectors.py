"""Reads of enrollments: who is enrolled, and usernames a list may have meant."""

from django.contrib.auth import get_user_model
from django.db.models import (
    Count,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.functions import Coalesce, Lower

from quizzes.models import Attempt, Enrollment


def similar_usernames(unknown: list[str], limit: int = 3) -> dict[str, list[str]]:
    """A few existing usernames that start like each unknown name (a typo's likely target); one query."""
    prefixes = {name.lower()[:3] for name in unknown if len(name) >= 3}
    if not prefixes or len(unknown) > 50:
        return {}
    query = Q()
    for prefix in prefixes:
        query |= Q(lowered__startswith=prefix)
    User = get_user_model()
    existing = list(
        User.objects.annotate(lowered=Lower("username"))
        .filter(query)
        .order_by("username")
        .values_list("username", flat=True)[:500]
    )
    return {
        name: [username for username in existing if username.lower()[:3] == name.lower()[:3]][:limit]
        for name in unknown
    }


def enrollments_with_attempts_kept(enrollments: QuerySet[Enrollment]) -> QuerySet[Enrollment]:
    """Enrollments with their user and course, each with ``attempts_kept``: the student's
    attempts at the course's quizzes (kept when unenrolled), by course and username."""
    attempts = (
        Attempt.objects.filter(user=OuterRef("user"), quiz__course=OuterRef("course"))
        .order_by()
        .values("user")
        .annotate(count=Count("pk"))
        .values("count")
    )
    return (
        enrollments.select_related("user", "course")
        .annotate(attempts_kept=Coalesce(Subquery(attempts), Value(0)))
        .order_by("course__slug", "user__username")
    )
