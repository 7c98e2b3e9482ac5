"""Reads of the gradebook: a course's students against its quizzes.

The grade of a quiz is its best finished attempt, and a quiz is passed when a
finished attempt reached the pass mark copied onto it when it started: the rule of
``quizzes.attempts.grading``, as on the student's dashboard, here in its ORM
expressions. Practice attempts (``Attempt.is_practice``) count nowhere: not in a grade,
not in the attempts used. Every figure comes from aggregates: a page costs the same number of
queries however many students and quizzes it shows. A cell notes the student's override of
its quiz (``gradebook_overrides``).
"""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from itertools import islice

from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, Max, OuterRef, Q, QuerySet

from quizzes.attempts import grading
from quizzes.models import Attempt, Course, Enrollment, Quiz
from quizzes.reports.gradebook_overrides import NO_OVERRIDES, GradebookOverrides, OverrideNote

SORTS = {
    "username": ("username",),
    "-username": ("-username",),
    "name": ("last_name", "first_name", "username"),
    "-name": ("-last_name", "-first_name", "-username"),
}
DEFAULT_SORT = "username"


@dataclass(frozen=True)
class GradebookFilters:
    quiz: Quiz | None = None
    search: str = ""
    include_former: bool = False
    include_unpublished: bool = False
    sort: str = DEFAULT_SORT


@dataclass(frozen=True)
class GradebookCell:
    """One student's record at one quiz."""

    attempts: int = 0
    finished: int = 0
    best_percent: int | None = None
    passed: bool = False
    in_progress: bool = False
    latest_attempt_id: int | None = None  # the gradebook links to its admin page when it is the only one
    override: OverrideNote | None = None

    @property
    def attempted(self) -> bool:
        return self.attempts > 0


EMPTY_CELL = GradebookCell()


@dataclass(frozen=True)
class GradebookRow:
    student: object
    is_enrolled: bool
    cells: list[tuple[Quiz, GradebookCell]]


def graded_attempts() -> QuerySet[Attempt]:
    """The attempts a grade counts: every one but practice."""
    return Attempt.objects.graded()


def gradebook_courses() -> QuerySet[Course]:
    """Courses with ``student_count`` (enrolled now) and ``quiz_count``."""
    return Course.objects.annotate(
        student_count=Count("enrollments", distinct=True), quiz_count=Count("quizzes", distinct=True)
    ).order_by("slug")


def gradebook_quizzes(*, course: Course, filters: GradebookFilters) -> list[Quiz]:
    """The columns: the course's published quizzes (all with ``include_unpublished``), or the one chosen."""
    quizzes = Quiz.objects.filter(course=course).order_by("position", "slug")
    if filters.quiz is not None:
        quizzes = quizzes.filter(pk=filters.quiz.pk)
    elif not filters.include_unpublished:
        quizzes = quizzes.published()
    return list(quizzes)


def gradebook_students(*, course: Course, filters: GradebookFilters) -> QuerySet:
    """The rows: students enrolled in ``course`` (and former students who attempted its
    quizzes, with ``include_former``), annotated with ``is_enrolled``, searched and sorted."""
    User = get_user_model()
    enrolled = Enrollment.objects.filter(course=course, user=OuterRef("pk"))
    students = User.objects.annotate(is_enrolled=Exists(enrolled))
    if filters.include_former:
        attempted = graded_attempts().filter(quiz__course=course, user=OuterRef("pk"))
        students = students.filter(Q(is_enrolled=True) | Exists(attempted))
    else:
        students = students.filter(is_enrolled=True)
    for term in filters.search.split():
        students = students.filter(
            Q(username__icontains=term)
            | Q(first_name__icontains=term)
            | Q(last_name__icontains=term)
            | Q(email__icontains=term)
        )
    return students.order_by(*SORTS.get(filters.sort, SORTS[DEFAULT_SORT]))


def gradebook_cells(*, student_ids: Iterable[int], quizzes: list[Quiz]) -> dict[tuple[int, int], GradebookCell]:
    """Every (student id, quiz id) with at least one attempt, in one query."""
    student_ids = list(student_ids)
    if not student_ids or not quizzes:
        return {}
    rows = (
        graded_attempts()
        .filter(user_id__in=student_ids, quiz__in=quizzes)
        .values("user_id", "quiz_id")
        .annotate(
            attempt_count=grading.attempts_used_sql(),
            finished_count=Count("pk", filter=grading.finished_sql()),
            best=grading.best_percent_sql(),
            passed_any=grading.quiz_passed_sql(),
            in_progress_count=Count("pk", filter=Q(state=Attempt.State.IN_PROGRESS)),
            latest=Max("pk"),
        )
        .order_by()
    )
    return {
        (row["user_id"], row["quiz_id"]): GradebookCell(
            attempts=row["attempt_count"],
            finished=row["finished_count"],
            best_percent=None if row["best"] is None else int(row["best"]),
            passed=bool(row["passed_any"]),
            in_progress=row["in_progress_count"] > 0,
            latest_attempt_id=row["latest"],
        )
        for row in rows
    }


def gradebook_rows(
    students: Iterable, quizzes: list[Quiz], overrides: GradebookOverrides = NO_OVERRIDES
) -> list[GradebookRow]:
    """Rows for these students (already fetched, e.g. a page): one query for every cell;
    ``overrides`` (``gradebook_overrides(quizzes)``) notes their accommodations."""
    students = list(students)
    cells = gradebook_cells(student_ids=[student.pk for student in students], quizzes=quizzes)
    return [
        GradebookRow(
            student=student,
            is_enrolled=student.is_enrolled,
            cells=[(quiz, _cell(cells, overrides, student.pk, quiz.pk)) for quiz in quizzes],
        )
        for student in students
    ]


def _cell(cells, overrides: GradebookOverrides, student_id: int, quiz_id: int) -> GradebookCell:
    cell = cells.get((student_id, quiz_id), EMPTY_CELL)
    note = overrides.note(student_id, quiz_id)
    return cell if note is None else replace(cell, override=note)


def gradebook_rows_iter(
    *,
    course: Course,
    filters: GradebookFilters,
    quizzes: list[Quiz],
    overrides: GradebookOverrides = NO_OVERRIDES,
    chunk_size: int = 500,
) -> Iterator[GradebookRow]:
    """Every row, ``chunk_size`` students at a time (for the CSV export): memory stays flat."""
    students = gradebook_students(course=course, filters=filters).iterator(chunk_size=chunk_size)
    while chunk := list(islice(students, chunk_size)):
        yield from gradebook_rows(chunk, quizzes, overrides)


def gradebook_passed_counts(*, students: QuerySet, quizzes: list[Quiz]) -> dict[int, int]:
    """For each quiz, how many of ``students`` (every page) have passed it; one query."""
    if not quizzes:
        return {}
    rows = (
        graded_attempts()
        .filter(quiz__in=quizzes, user__in=students.order_by().values("pk"))
        .filter(grading.passed_sql())
        .values("quiz_id")
        .annotate(passed=Count("user_id", distinct=True))
        .order_by()
    )
    return {row["quiz_id"]: row["passed"] for row in rows}
