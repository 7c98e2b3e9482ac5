"""Spaced practice: the attempts whose missed questions come back to a student's dashboard 1, 3
and 7 days after they were finished."""

from datetime import date, datetime, time, timedelta

from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from quizzes.attempts import rules
from quizzes.attempts.selectors import attempts_missed_questions, student_attempt_review
from quizzes.models import Attempt, Enrollment

# Days after an attempt when its missed questions are offered again (the expanding intervals
# of spaced repetition).
SPACING_DAYS = (1, 3, 7)


def practice_due(*, user, today: date) -> list[Attempt]:
    """``user``'s graded attempts due for practice ``today`` (a date in the active time zone,
    the user's): finished on a day ``SPACING_DAYS`` before it in that zone, with questions not
    answered right (``missed_count``), whose review shows which now (``selectors.student_attempt_review``),
    of a published quiz of a course they are still enrolled in; the newest of each quiz, newest
    first, each with its ``quiz``.

    Three queries when some attempt was finished on those days (the attempts, then their layouts
    and right answers: ``selectors.attempts_missed_questions``), one otherwise; plus, for a quiz
    whose feedback waits for its close, the student's overrides of it, read only then.
    """
    zone = timezone.get_current_timezone()
    days = Q()
    for spacing in SPACING_DAYS:
        day = today - timedelta(days=spacing)
        # Midnight to midnight in the zone: a day of 23 or 25 hours where the clocks change.
        start = datetime.combine(day, time.min, tzinfo=zone)
        end = datetime.combine(day + timedelta(days=1), time.min, tzinfo=zone)
        days |= Q(finished_at__gte=start, finished_at__lt=end)
    attempts = list(
        Attempt.objects.filter(days, user=user, is_practice=False, state=Attempt.State.FINISHED)
        .filter(quiz__is_published=True)
        .filter(Exists(Enrollment.objects.filter(user=user, course_id=OuterRef("quiz__course_id"))))
        .select_related("quiz")
        .order_by("-finished_at", "-pk")
    )
    missed = attempts_missed_questions([attempt.pk for attempt in attempts]) if attempts else {}
    now = timezone.now()
    due, seen = [], set()
    for attempt in attempts:
        review = student_attempt_review(user=user, attempt=attempt, now=now)
        if attempt.quiz_id in seen or not rules.practice_offered(attempt, review, missed[attempt.pk]):
            continue
        seen.add(attempt.quiz_id)
        attempt.missed_count = len(missed[attempt.pk])
        due.append(attempt)
    return due
