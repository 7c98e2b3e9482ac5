"""Spaced practice: the attempts whose missed questions come back to a student's dashboard 1, 3
and 7 days after they were finished."""

from datetime import date, timedelta

from django.utils import timezone

from quizzes.attempts import rules
from quizzes.attempts.selectors import student_attempt_review, student_courses
from quizzes.models import Attempt

# Days after an attempt when its missed questions are offered again (the expanding intervals
# of spaced repetition).
SPACING_DAYS = (1, 3, 7)


def practice_due(*, user, today: date, courses=None) -> list[Attempt]:
    """``user``'s graded attempts due for practice ``today`` (a date in the active time zone,
    the user's): finished on a day ``SPACING_DAYS`` before it in that zone, with questions not
    answered right (``missed_count``), whose review shows which now
    (``selectors.student_attempt_review``), of a published quiz of a course they are enrolled
    in; the newest of each quiz, newest first, each with its ``quiz``.

    Read from the dashboard's own statement (``courses``: ``selectors.student_dashboard``'s,
    read when not given): no query of its own, but the student's overrides of a quiz whose
    feedback waits for its close, when one of its attempts is due.
    """
    if courses is None:
        courses = student_courses(user=user)
    days = {today - timedelta(days=spacing) for spacing in SPACING_DAYS}
    now = timezone.now()
    due = []
    for quiz in (quiz for course in courses for quiz in course.progress_quizzes):
        finished = sorted(quiz.finished_attempts, key=lambda attempt: (attempt.finished_at, attempt.pk), reverse=True)
        for attempt in finished:
            if timezone.localdate(attempt.finished_at) not in days:
                continue
            review = student_attempt_review(user=user, attempt=attempt, now=now)
            if rules.practice_offered(attempt, review, rules.missed_count(attempt)):
                attempt.missed_count = rules.missed_count(attempt)
                due.append(attempt)
                break
    return sorted(due, key=lambda attempt: (attempt.finished_at, attempt.pk), reverse=True)
