"""Reads of a student's quizzes and attempts, with their progress."""

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
)
from django.db.models.functions import Cast, NullIf

from quizzes.attempts import statements
from quizzes.content.selectors import open_questions_with_choices
from quizzes.models import Answer, Attempt, Course, Quiz


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
    (``quizzes.statements.courses_of_student``): the courses joined to their quizzes
    and this user's attempts (a row per attempt), the progress being added up here. The
    dashboard and the progress endpoint run this on every visit.
    """
    return student_dashboard(user=user)[0]


def student_dashboard(*, user) -> tuple[list[Course], list[Course]]:
    """``student_courses``, and the courses open to self-enrollment that ``user`` has not
    joined (by slug), from one fixed statement."""
    courses, joinable, quiz_rows = statements.courses_of_student(user.pk)
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
    quiz = statements.published_quiz(slug)
    if quiz is None:
        raise Quiz.DoesNotExist
    return quiz


def student_quiz_get(*, user, slug: str) -> tuple[Quiz, bool, list[Attempt]]:
    """A published quiz (its course attached) as ``user`` sees it: whether they are enrolled in
    its course, and their attempts at it, newest first; the quiz annotated as
    ``quiz_progress_queryset`` does. One round trip (``quizzes.rows``): a class opens a quiz
    at once. An unknown or unpublished quiz raises Quiz.DoesNotExist."""
    quiz, enrolled, attempts = statements.published_quiz_for_student(slug=slug, user_id=user.pk)
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
    attempt = statements.attempt_get(attempt_id=attempt_id, user_id=user.pk)
    if attempt is None:
        raise Attempt.DoesNotExist
    return attempt


def student_attempt_with_answers(*, user, attempt_id: int) -> tuple[Attempt, dict[int, Answer]]:
    """One of ``user``'s attempts and its answers by question, in one statement.

    The attempt LEFT JOIN its answers (a row per answer), for the question
    page, the most visited page (``quizzes.rows``). Raises
    Attempt.DoesNotExist as ``student_attempt_get``.
    """
    found = statements.attempt_with_answers(attempt_id=attempt_id, user_id=user.pk)
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
    return quiz_progress_queryset(user=user).select_related("course").prefetch_related(open_questions_with_choices())


def student_attempts_with_feedback(*, user) -> QuerySet[Attempt]:
    """``user``'s attempts with their answers, questions and choices fetched."""
    answers = Answer.objects.select_related("question").prefetch_related("question__choices")
    return (
        Attempt.objects.filter(user=user)
        .select_related("quiz")
        .prefetch_related(Prefetch("answers", queryset=answers.order_by("question__position")))
    )
