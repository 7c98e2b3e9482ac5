"""Reads: querysets with their related rows already fetched."""

from django.contrib.auth import get_user_model
from django.db.models import (
    BigIntegerField,
    Count,
    Exists,
    F,
    Max,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.functions import Cast, Coalesce, Lower, NullIf

from quizzes import rows
from quizzes.models import Answer, Attempt, Choice, Course, Enrollment, Question, Quiz


def quiz_content_queryset() -> QuerySet[Quiz]:
    """Quizzes with their course, questions and choices, in order."""
    return Quiz.objects.select_related("course").prefetch_related(_questions_with_choices())


def _questions_with_choices() -> Prefetch:
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


def quiz_progress_queryset(*, user) -> QuerySet[Quiz]:
    """Published quizzes, each annotated with ``user``'s progress.

    ``attempts_used``, ``best_percent`` (of finished attempts, None before the
    first), ``passed`` and ``in_progress_id`` (the attempt to resume, or None).
    The grade of a quiz is its best finished attempt, as Moodle's default.
    """
    mine = Q(attempts__user=user)
    finished = Attempt.objects.filter(user=user, quiz=OuterRef("pk"), state=Attempt.State.FINISHED)
    # Cast first: PostgreSQL multiplies smallint columns as smallint, which overflows.
    passing = finished.alias(
        points=Cast("score", BigIntegerField()) * 100,
        needed=Cast("pass_mark", BigIntegerField()) * F("max_score"),
    ).filter(points__gte=F("needed"))
    in_progress = Attempt.objects.filter(user=user, quiz=OuterRef("pk"), state=Attempt.State.IN_PROGRESS)
    return (
        Quiz.objects.filter(is_published=True)
        .annotate(
            attempts_used=Count("attempts", filter=mine),
            best_percent=Max(
                Cast("attempts__score", BigIntegerField()) * 100 / NullIf(F("attempts__max_score"), 0),
                filter=mine & Q(attempts__state=Attempt.State.FINISHED),
            ),
            passed=Exists(passing),
            in_progress_id=Subquery(in_progress.values("pk")[:1]),
        )
        .order_by("position", "slug")
    )


def student_courses(*, user) -> list[Course]:
    """The courses ``user`` is enrolled in, by slug, each with ``progress_quizzes``.

    ``progress_quizzes``: the course's published quizzes in order, each with
    ``attempts_used``, ``best_percent``, ``passed`` and ``in_progress_id`` as
    ``quiz_progress_queryset`` annotates them. One fixed statement
    (``quizzes.rows.courses_of_student``): the courses joined to their quizzes
    and this user's attempts (a row per attempt), the progress being added up here. The
    dashboard and the progress endpoint run this on every visit.
    """
    return student_dashboard(user=user)[0]


def student_dashboard(*, user) -> tuple[list[Course], list[Course]]:
    """``student_courses``, and the courses open to self-enrolment that ``user`` has not
    joined (by slug), from one fixed statement."""
    courses, joinable, quiz_rows = rows.courses_of_student(user.pk)
    return _with_progress(courses, quiz_rows), joinable


def _with_progress(courses: list[Course], quiz_rows) -> list[Course]:
    by_id = {course.pk: course for course in courses}
    for course in courses:
        course.progress_quizzes = []
    quizzes: dict[int, Quiz] = {}
    for row, mine in quiz_rows:
        quiz = quizzes.get(row.pk)
        if quiz is None:
            quiz = quizzes[row.pk] = row
            quiz.attempts_used, quiz.best_percent, quiz.passed, quiz.in_progress_id = 0, None, False, None
            quiz.course = by_id[quiz.course_id]
            quiz.course.progress_quizzes.append(quiz)
        if mine is not None:
            _count_attempt(quiz, *mine)
    return courses


def _count_attempt(quiz: Quiz, attempt_id, state, score, max_score, pass_mark) -> None:
    """Add one attempt to the quiz's progress (best finished attempt, as Moodle's default)."""
    quiz.attempts_used += 1
    if state == Attempt.State.IN_PROGRESS:
        quiz.in_progress_id = attempt_id
    elif state == Attempt.State.FINISHED:
        if max_score:
            percent = score * 100 // max_score
            quiz.best_percent = percent if quiz.best_percent is None else max(quiz.best_percent, percent)
        if score * 100 >= pass_mark * max_score:
            quiz.passed = True


def course_quizzes_passed(course: Course) -> int:
    """Quizzes of a course from ``student_courses`` that the student has passed."""
    return sum(bool(quiz.passed) for quiz in course.progress_quizzes)


def published_quiz_get(*, slug: str) -> Quiz:
    """A published quiz with its course; raises Quiz.DoesNotExist otherwise (one fixed statement)."""
    quiz = rows.published_quiz(slug)
    if quiz is None:
        raise Quiz.DoesNotExist
    return quiz


def student_quiz_get(*, user, slug: str) -> tuple[Quiz, bool, list[Attempt]]:
    """A published quiz (its course attached) as ``user`` sees it: whether they are enrolled in
    its course, and their attempts at it, newest first; the quiz annotated as
    ``quiz_progress_queryset`` does. One round trip (``quizzes.rows``): a class opens a quiz
    at once. An unknown or unpublished quiz raises Quiz.DoesNotExist."""
    quiz, enrolled, attempts = rows.published_quiz_for_student(slug=slug, user_id=user.pk)
    if quiz is None:
        raise Quiz.DoesNotExist
    quiz.attempts_used, quiz.best_percent, quiz.passed, quiz.in_progress_id = 0, None, False, None
    for attempt in attempts:
        _count_attempt(quiz, attempt.pk, attempt.state, attempt.score, attempt.max_score, attempt.pass_mark)
    return quiz, enrolled, attempts


def student_attempt_get(*, user, attempt_id: int) -> Attempt:
    """One of ``user``'s own attempts; anyone else's raises Attempt.DoesNotExist.

    Only the attempt's row: its quiz's content comes from ``content_cache.quiz_content``.
    One fixed statement (``quizzes.rows``): a finish, a result and a refused answer read it.
    """
    attempt = rows.attempt_get(attempt_id=attempt_id, user_id=user.pk)
    if attempt is None:
        raise Attempt.DoesNotExist
    return attempt


def student_attempt_with_answers(*, user, attempt_id: int) -> tuple[Attempt, dict[int, Answer]]:
    """One of ``user``'s attempts and its answers by question, in one statement.

    The attempt LEFT JOIN its answers (a row per answer), for the question
    page, the most visited page (``quizzes.rows``). Raises
    Attempt.DoesNotExist as ``student_attempt_get``.
    """
    found = rows.attempt_with_answers(attempt_id=attempt_id, user_id=user.pk)
    if found is None:
        raise Attempt.DoesNotExist
    return found


def attempt_answers_by_question(*, attempt: Attempt) -> dict[int, Answer]:
    # No ordering: a dict by question needs none, and Answer's default one joins the questions.
    return {answer.question_id: answer for answer in attempt.answers.order_by()}


def student_quizzes(*, user) -> QuerySet[Quiz]:
    """Published quizzes of the courses ``user`` is enrolled in, with progress."""
    return quiz_progress_queryset(user=user).filter(course__enrollments__user=user).select_related("course")


def quiz_detail_queryset(*, user) -> QuerySet[Quiz]:
    """Published quizzes with ``user``'s progress and all questions and choices."""
    return quiz_progress_queryset(user=user).select_related("course").prefetch_related(_questions_with_choices())


def student_attempts_with_feedback(*, user) -> QuerySet[Attempt]:
    """``user``'s attempts with their answers, questions and choices fetched."""
    answers = Answer.objects.select_related("question").prefetch_related("question__choices")
    return (
        Attempt.objects.filter(user=user)
        .select_related("quiz")
        .prefetch_related(Prefetch("answers", queryset=answers.order_by("question__position")))
    )


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
    """Enrolments with their user and course, each with ``attempts_kept``: the student's
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
