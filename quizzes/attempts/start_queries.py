"""The statements of a quiz's page and of the start of an attempt, in fixed SQL (``common.sql``):
the published quiz with the student's enrollment, attempts and overrides; for a start, the
student's enrollment locked and what is read after the lock (their attempts, their overrides of
the quiz, the quiz's current versions, its pool draws), then the new attempt and its layout. Each is the only
production definition of its read or write; each runs on the database alias it is given
(``using``, the default one unless told).
"""

from functools import cache
from typing import NamedTuple

from django.db import DEFAULT_DB_ALIAS

from common.sql import (
    attnames,
    column,
    fetch_each,
    fetchall,
    for_key_share,
    for_update,
    insert,
    insert_rows,
    instance,
    select_list,
    table,
)
from quizzes.attempts.layout import DrawQuestion
from quizzes.attempts.queries import COURSE_NAMES, QUIZ_NAMES
from quizzes.models import (
    Attempt,
    AttemptQuestion,
    Course,
    CourseGroup,
    Enrollment,
    PoolDraw,
    Question,
    QuestionVersion,
    Quiz,
    QuizOverride,
)

ATTEMPT_NAMES = attnames(Attempt)


@cache
def _student_attempts_sql(using: str) -> str:
    return (
        f"SELECT {select_list(Attempt, 'a', ATTEMPT_NAMES, using)} FROM {table(Attempt, using)} a "
        f"WHERE a.{column(Attempt, 'user_id', using)} = %s AND a.{column(Attempt, 'quiz_id', using)} = %s "
        f"ORDER BY a.{column(Attempt, 'number', using)} DESC"
    )


@cache
def _enrollment_lock_sql(using: str) -> str:
    # Only the enrollment's row: nothing is joined, so the course is not locked with it.
    return (
        f"SELECT {column(Enrollment, 'id', using)} FROM {table(Enrollment, using)} "
        f"WHERE {column(Enrollment, 'user_id', using)} = %s "
        f"AND {column(Enrollment, 'course_id', using)} = %s{for_update(using)}"
    )


class StartReads(NamedTuple):
    enrolled: bool
    # The quiz's dates, limit and attempts (QUIZ_SETTING_NAMES) as committed when its lock was had.
    settings: Quiz | None
    attempts: list[Attempt]  # newest first; practice attempts too
    overrides: list[QuizOverride]
    questions: list[DrawQuestion]
    pool_draws: dict[str, int]


def start_reads(*, user_id: int, course_id: int, quiz_id: int, using: str = DEFAULT_DB_ALIAS) -> StartReads:
    """What starting an attempt reads, in one round trip, in the caller's transaction: lock
    the user's enrollment in the course until the transaction ends (False if there is none),
    then a key-share lock on the quiz, with its settings (an edit cannot rewrite a version in
    place, quizzes/content/versions.py, nor change the settings or overrides that decide a
    deadline, quizzes/attempts/deadlines.py, until this transaction ends), then, read after
    the locks, the user's attempts at the quiz (newest first), their overrides of it, its
    questions not archived with their current versions, and its pool draws."""
    locked, settings, attempts, overrides, questions, draws = fetch_each(
        [
            (_enrollment_lock_sql(using), [user_id, course_id]),
            (_quiz_key_share_sql(using), [quiz_id]),
            (_student_attempts_sql(using), [user_id, quiz_id]),
            (_overrides_sql(using), [user_id, quiz_id, user_id]),
            (_current_versions_sql(using), [quiz_id, False]),
            (_pool_draws_sql(using), [quiz_id]),
        ],
        using=using,
    )
    return StartReads(
        bool(locked),
        instance(Quiz, QUIZ_SETTING_NAMES, settings[0], using=using) if settings else None,
        [instance(Attempt, ATTEMPT_NAMES, row, using=using) for row in attempts],
        [instance(QuizOverride, OVERRIDE_NAMES, row, using=using) for row in overrides],
        [_draw_question(row, using) for row in questions],
        dict(draws),
    )


OVERRIDE_NAMES = attnames(QuizOverride)


@cache
def _overrides_sql(using: str, by_slug: bool = False) -> str:
    # The student's own override of the quiz (by its id, or its slug) and those of the groups
    # they are in.
    members = CourseGroup.members.through
    quiz_id = f"o.{column(QuizOverride, 'quiz_id', using)}"
    quiz = (
        f"{quiz_id} = (SELECT {column(Quiz, 'id', using)} FROM {table(Quiz, using)} "
        f"WHERE {column(Quiz, 'slug', using)} = %s)"
        if by_slug
        else f"{quiz_id} = %s"
    )
    group_id, member_id = column(members, "coursegroup_id", using), column(members, "user_id", using)
    return (
        f"SELECT {select_list(QuizOverride, 'o', OVERRIDE_NAMES, using)} FROM {table(QuizOverride, using)} o "
        f"LEFT JOIN {table(members, using)} m ON m.{group_id} = o.{column(QuizOverride, 'group_id', using)} "
        f"AND m.{member_id} = %s "
        f"WHERE {quiz} "
        f"AND (o.{column(QuizOverride, 'user_id', using)} = %s OR m.{member_id} IS NOT NULL) "
        f"ORDER BY o.{column(QuizOverride, 'id', using)}"
    )


def student_overrides(*, user_id: int, quiz_id: int, using: str = DEFAULT_DB_ALIAS) -> list[QuizOverride]:
    """The user's overrides of the quiz: their own, and their groups'."""
    rows = fetch_each([(_overrides_sql(using), [user_id, quiz_id, user_id])], using=using)[0]
    return [instance(QuizOverride, OVERRIDE_NAMES, row, using=using) for row in rows]


DRAW_QUESTION_NAMES = ("id", "position", "pool", "keep_choice_order")
DRAW_VERSION_NAMES = ("id", "token", "choices")


# What a start reads of its quiz's settings under the quiz's lock (quizzes.attempts.rules.OVERRIDDEN).
QUIZ_SETTING_NAMES = ("id", "opens_at", "closes_at", "time_limit", "max_attempts")


@cache
def _quiz_key_share_sql(using: str) -> str:
    # The lock the new attempt's foreign key takes on its quiz anyway, taken before anything
    # else is read. An edit that rewrites a version in place locks the quiz first (FOR UPDATE),
    # and so does a change of its dates, limit or overrides (quizzes/attempts/deadlines.py): the
    # settings, overrides and versions read from here on are the ones committed, and stay so
    # until this start commits, so its deadline is never one a concurrent change has replaced.
    return (
        f"SELECT {select_list(Quiz, 'q', QUIZ_SETTING_NAMES, using)} FROM {table(Quiz, using)} q "
        f"WHERE q.{column(Quiz, 'id', using)} = %s{for_key_share('q', using)}"
    )


@cache
def _current_versions_sql(using: str) -> str:
    question_id, number = column(QuestionVersion, "question_id", using), column(QuestionVersion, "number", using)
    return (
        f"SELECT {select_list(Question, 'q', DRAW_QUESTION_NAMES, using)}, "
        f"{select_list(QuestionVersion, 'v', DRAW_VERSION_NAMES, using)} "
        f"FROM {table(Question, using)} q JOIN {table(QuestionVersion, using)} v "
        f"ON v.{question_id} = q.{column(Question, 'id', using)} "
        f"WHERE q.{column(Question, 'quiz_id', using)} = %s AND q.{column(Question, 'is_archived', using)} = %s "
        f"AND v.{number} = (SELECT MAX(w.{number}) FROM {table(QuestionVersion, using)} w "
        f"WHERE w.{question_id} = q.{column(Question, 'id', using)}) "
        f"ORDER BY q.{column(Question, 'position', using)}"
    )


def _draw_question(row, using: str) -> DrawQuestion:
    width = len(DRAW_QUESTION_NAMES)
    question = instance(Question, DRAW_QUESTION_NAMES, row[:width], using=using)
    version = instance(QuestionVersion, DRAW_VERSION_NAMES, row[width:], using=using)
    return DrawQuestion(
        id=question.pk,
        position=question.position,
        pool=question.pool,
        keep_choice_order=question.keep_choice_order,
        version_id=version.pk,
        version_token=version.token,
        choice_ids=tuple(choice["id"] for choice in version.choices),
    )


@cache
def _pool_draws_sql(using: str) -> str:
    return (
        f"SELECT {column(PoolDraw, 'pool', using)}, {column(PoolDraw, 'count', using)} FROM {table(PoolDraw, using)} "
        f"WHERE {column(PoolDraw, 'quiz_id', using)} = %s"
    )


def attempt_insert(*, using: str = DEFAULT_DB_ALIAS, **values) -> Attempt | None:
    """INSERT a new attempt in progress with these ``values`` (user_id, quiz_id, number,
    max_score, pass_mark, started_at, deadline, is_practice; its other columns as
    ``Model.save()`` would fill them) and return it; None, with nothing written, when a unique
    constraint refuses it (a second attempt in progress, a taken number): no savepoint is
    needed around it in a transaction."""
    return insert(Attempt, values, conflict="ignore", using=using)


def layout_insert(*, attempt_id: int, slots, using: str = DEFAULT_DB_ALIAS) -> None:
    """INSERT an attempt's layout (``quizzes.attempts.layout.Slot``s): one statement."""
    insert_rows(
        AttemptQuestion,
        [
            {
                "attempt_id": attempt_id,
                "position": slot.position,
                "question_id": slot.question_id,
                "version_id": slot.version_id,
                "choice_order": list(slot.choice_order),
            }
            for slot in slots
        ],
        using=using,
    )


# A quiz's page ----------------------------------------------------------------------------------


@cache
def _published_quiz_sql(using: str) -> str:
    return (
        f"SELECT {select_list(Quiz, 'q', QUIZ_NAMES, using)}, {select_list(Course, 'c', COURSE_NAMES, using)} "
        f"FROM {table(Quiz, using)} q JOIN {table(Course, using)} c "
        f"ON c.{column(Course, 'id', using)} = q.{column(Quiz, 'course_id', using)} "
        f"WHERE q.{column(Quiz, 'slug', using)} = %s AND q.{column(Quiz, 'is_published', using)} = %s"
    )


def published_quiz(slug: str, *, using: str = DEFAULT_DB_ALIAS) -> Quiz | None:
    """The published quiz with this slug, its course attached, or None."""
    return _published_quiz_of(fetchall(_published_quiz_sql(using), [slug, True], using=using), using)


def _published_quiz_of(found: list[tuple], using: str) -> Quiz | None:
    if not found:
        return None
    width = len(QUIZ_NAMES)
    quiz = instance(Quiz, QUIZ_NAMES, found[0][:width], using=using)
    quiz.course = instance(Course, COURSE_NAMES, found[0][width:], using=using)
    return quiz


@cache
def _enrolled_by_slug_sql(using: str) -> str:
    return (
        f"SELECT 1 FROM {table(Enrollment, using)} e "
        f"JOIN {table(Quiz, using)} q "
        f"ON q.{column(Quiz, 'course_id', using)} = e.{column(Enrollment, 'course_id', using)} "
        f"WHERE e.{column(Enrollment, 'user_id', using)} = %s AND q.{column(Quiz, 'slug', using)} = %s"
    )


@cache
def _attempts_by_slug_sql(using: str) -> str:
    return (
        f"SELECT {select_list(Attempt, 'a', ATTEMPT_NAMES, using)} FROM {table(Attempt, using)} a "
        f"JOIN {table(Quiz, using)} q ON q.{column(Quiz, 'id', using)} = a.{column(Attempt, 'quiz_id', using)} "
        f"WHERE a.{column(Attempt, 'user_id', using)} = %s AND q.{column(Quiz, 'slug', using)} = %s "
        f"ORDER BY a.{column(Attempt, 'number', using)} DESC"
    )


class StudentQuiz(NamedTuple):
    quiz: Quiz | None
    enrolled: bool
    attempts: list[Attempt]  # newest first
    overrides: list[QuizOverride]


def published_quiz_for_student(*, slug: str, user_id: int, using: str = DEFAULT_DB_ALIAS) -> StudentQuiz:
    """In one round trip: the published quiz with this slug (its course attached) or None,
    whether the user is enrolled in its course, the user's attempts at it, newest first, and
    their overrides of it (``student_overrides``)."""
    found, enrolled, attempts, overrides = fetch_each(
        [
            (_published_quiz_sql(using), [slug, True]),
            (_enrolled_by_slug_sql(using), [user_id, slug]),
            (_attempts_by_slug_sql(using), [user_id, slug]),
            (_overrides_sql(using, by_slug=True), [user_id, slug, user_id]),
        ],
        using=using,
    )
    quiz = _published_quiz_of(found, using)
    if quiz is None:
        return StudentQuiz(None, False, [], [])
    return StudentQuiz(
        quiz,
        bool(enrolled),
        [instance(Attempt, ATTEMPT_NAMES, row, using=using) for row in attempts],
        [instance(QuizOverride, OVERRIDE_NAMES, row, using=using) for row in overrides],
    )
