"""The statements of a student's attempts, in fixed SQL (``common.sql``): the attempt and its
answers, an answer's lock and graded INSERT, and the dashboard's courses, quizzes and attempts
(the quiz's page and the start of an attempt: ``quizzes.attempts.start_queries``). Each is
the only production definition of its read or write.

Each function runs on the database alias it is given (``using``, the default one unless told).
"""

from functools import cache

from django.db import DEFAULT_DB_ALIAS, transaction

from common.sql import (
    adapted,
    attnames,
    column,
    database,
    fetchall,
    for_update,
    in_one_message,
    inserted_names,
    instance,
    json_array_has,
    new_row,
    one_message_transaction,
    select_list,
    table,
)
from quizzes.attempts.grading import AttemptScore
from quizzes.attempts.rules import deadline_cutoff
from quizzes.content.languages import translated_columns, translated_fields
from quizzes.managers import GRADED_IS_PRACTICE
from quizzes.models import (
    Answer,
    Attempt,
    AttemptQuestion,
    Choice,
    Course,
    Enrollment,
    QuestionVersion,
    Quiz,
    QuizContentVersion,
)
from quizzes.outbox.queries import answer_message_statement
from quizzes.outbox.services import xapi_enabled

# Attempts and answers --------------------------------------------------------------------------

ATTEMPT_NAMES = attnames(Attempt)
ANSWER_NAMES = ("id", "question_id", "choice_id", "version_id", "is_correct", "language", "answered_at")
ANSWER_ROW_NAMES = attnames(Answer)


@cache
def _attempt_sql(using: str) -> str:
    return (
        f"SELECT {select_list(Attempt, 'a', ATTEMPT_NAMES, using)} FROM {table(Attempt, using)} a "
        f"WHERE a.{column(Attempt, 'id', using)} = %s AND a.{column(Attempt, 'user_id', using)} = %s"
    )


def attempt_get(*, attempt_id: int, user_id: int, using: str = DEFAULT_DB_ALIAS) -> Attempt | None:
    """The attempt if it is this user's, else None."""
    rows = fetchall(_attempt_sql(using), [attempt_id, user_id], using=using)
    return instance(Attempt, ATTEMPT_NAMES, rows[0], using=using) if rows else None


SLOT_NAMES = ("id", "position", "question_id", "version_id", "choice_order")


@cache
def _quiz_text_names() -> tuple[str, ...]:
    # What an attempt's pages show of its quiz besides the layout: its titles and descriptions,
    # and their records, which say whether a translation is a machine's (shown.shown_column).
    texts = tuple(name for field in translated_fields(Quiz) for name in translated_columns(Quiz, field))
    return ("id", "slug", "course_id", *REVIEW_NAMES, *texts, "translation_sources")


# What the review of an attempt's answers reads of its quiz (quizzes.attempts.rules.attempt_review).
REVIEW_NAMES = ("feedback_timing", "show_right_answer", "closes_at")


@cache
def _attempt_answers_sql(using: str) -> str:
    return (
        f"SELECT {select_list(Attempt, 'a', ATTEMPT_NAMES, using)}, "
        f"{select_list(Quiz, 'q', _quiz_text_names(), using)}, "
        f"{select_list(AttemptQuestion, 's', SLOT_NAMES, using)}, v.{column(QuestionVersion, 'token', using)}, "
        f"{select_list(Answer, 'r', ANSWER_NAMES, using)} "
        f"FROM {table(Attempt, using)} a "
        f"JOIN {table(Quiz, using)} q ON q.{column(Quiz, 'id', using)} = a.{column(Attempt, 'quiz_id', using)} "
        f"LEFT JOIN {table(AttemptQuestion, using)} s "
        f"ON s.{column(AttemptQuestion, 'attempt_id', using)} = a.{column(Attempt, 'id', using)} "
        f"LEFT JOIN {table(QuestionVersion, using)} v "
        f"ON v.{column(QuestionVersion, 'id', using)} = s.{column(AttemptQuestion, 'version_id', using)} "
        f"LEFT JOIN {table(Answer, using)} r "
        f"ON r.{column(Answer, 'attempt_id', using)} = a.{column(Attempt, 'id', using)} "
        f"AND r.{column(Answer, 'question_id', using)} = s.{column(AttemptQuestion, 'question_id', using)} "
        f"WHERE a.{column(Attempt, 'id', using)} = %s AND a.{column(Attempt, 'user_id', using)} = %s "
        f"ORDER BY s.{column(AttemptQuestion, 'position', using)}"
    )


def attempt_with_answers(
    *, attempt_id: int, user_id: int, using: str = DEFAULT_DB_ALIAS
) -> tuple[Attempt, list[AttemptQuestion], dict[int, Answer]] | None:
    """The attempt (if it is this user's) with its ``quiz`` (its id, slug, course and texts
    only, and what its review reads: ``REVIEW_NAMES``), its layout in position order (each place
    with its ``version_token``, the version's ``token``), and its answers by question id, in one
    statement."""
    rows = fetchall(_attempt_answers_sql(using), [attempt_id, user_id], using=using)
    if not rows:
        return None
    quiz_width = len(_quiz_text_names())
    attempt = instance(Attempt, ATTEMPT_NAMES, rows[0][: len(ATTEMPT_NAMES)], using=using)
    attempt.quiz = instance(
        Quiz, _quiz_text_names(), rows[0][len(ATTEMPT_NAMES) : len(ATTEMPT_NAMES) + quiz_width], using=using
    )
    width, slot_width = len(ATTEMPT_NAMES) + quiz_width, len(SLOT_NAMES)
    layout, answers = [], {}
    for row in rows:
        if row[width] is None:  # an attempt of a quiz without questions
            continue
        slot_row, token, answer_row = (
            row[width : width + slot_width],
            row[width + slot_width],
            row[width + slot_width + 1 :],
        )
        slot = instance(AttemptQuestion, ("attempt_id", *SLOT_NAMES), (attempt.pk, *slot_row), using=using)
        slot.version_token = token
        layout.append(slot)
        if answer_row[0] is None:
            continue
        answer = instance(Answer, ("attempt_id", *ANSWER_NAMES), (attempt.pk, *answer_row), using=using)
        answer.attempt = attempt
        answers[answer.question_id] = answer
    return attempt, layout, answers


@cache
def _recorded_answer_sql(using: str) -> str:
    return (
        f"SELECT {select_list(Attempt, 'a', ATTEMPT_NAMES, using)}, "
        f"{select_list(Answer, 'r', ANSWER_ROW_NAMES, using)}, v.{column(QuestionVersion, 'token', using)}, "
        f"{select_list(Quiz, 'q', QUIZ_REVIEW_NAMES, using)} "
        f"FROM {table(Answer, using)} r "
        f"JOIN {table(Attempt, using)} a ON a.{column(Attempt, 'id', using)} = r.{column(Answer, 'attempt_id', using)} "
        f"JOIN {table(Quiz, using)} q ON q.{column(Quiz, 'id', using)} = a.{column(Attempt, 'quiz_id', using)} "
        f"JOIN {table(QuestionVersion, using)} v "
        f"ON v.{column(QuestionVersion, 'id', using)} = r.{column(Answer, 'version_id', using)} "
        f"WHERE r.{column(Answer, 'attempt_id', using)} = %s AND a.{column(Attempt, 'user_id', using)} = %s "
        f"AND r.{column(Answer, 'question_id', using)} = %s"
    )


def recorded_answer(*, attempt_id: int, user_id: int, question_id: int, using: str = DEFAULT_DB_ALIAS) -> Answer | None:
    """The answer recorded to this question in this user's attempt, with its ``attempt`` (and
    that attempt's ``quiz``: ``QUIZ_REVIEW_NAMES`` only) and its ``version_token`` (its version's
    token), or None. What a retry reads after its INSERT met the unique constraint."""
    rows = fetchall(_recorded_answer_sql(using), [attempt_id, user_id, question_id], using=using)
    if not rows:
        return None
    width, answer_end = len(ATTEMPT_NAMES), len(ATTEMPT_NAMES) + len(ANSWER_ROW_NAMES)
    answer = instance(Answer, ANSWER_ROW_NAMES, rows[0][width:answer_end], using=using)
    answer.attempt = instance(Attempt, ATTEMPT_NAMES, rows[0][:width], using=using)
    answer.version_token = rows[0][answer_end]
    answer.attempt.quiz = instance(Quiz, QUIZ_REVIEW_NAMES, rows[0][answer_end + 1 :], using=using)
    return answer


QUIZ_REVIEW_NAMES = ("id", *REVIEW_NAMES)


@cache
def _lock_sql(using: str) -> str:
    # Only the attempt's row: nothing else is joined, so nothing else is locked.
    return (
        f"SELECT {select_list(Attempt, 'a', ATTEMPT_NAMES, using)} FROM {table(Attempt, using)} a "
        f"WHERE a.{column(Attempt, 'id', using)} = %s AND a.{column(Attempt, 'user_id', using)} = %s{for_update(using)}"
    )


def _answer_from_rows(using: str) -> dict[str, str]:
    # The columns of a new answer read from the rows it is checked against; every other column
    # is a parameter (``new_row``). The key is the version's, read by this statement after the
    # lock, so a regrade the lock waited for is seen.
    correct = f"v.{column(QuestionVersion, 'correct_choice_id', using)}"
    return {
        "attempt_id": f"a.{column(Attempt, 'id', using)}",
        "question_id": f"s.{column(AttemptQuestion, 'question_id', using)}",
        "choice_id": f"c.{column(Choice, 'id', using)}",
        "is_correct": f"({correct} IS NOT NULL AND {correct} = c.{column(Choice, 'id', using)})",
        "version_id": f"s.{column(AttemptQuestion, 'version_id', using)}",
    }


@cache
def _answer_insert_sql(using: str, at_position: bool) -> str:
    from_rows = _answer_from_rows(using)
    names = inserted_names(Answer)
    position = f" AND s.{column(AttemptQuestion, 'position', using)} = %s" if at_position else ""
    shown = json_array_has(
        f"s.{column(AttemptQuestion, 'choice_order', using)}", f"c.{column(Choice, 'id', using)}", using
    )
    return (
        f"INSERT INTO {table(Answer, using)} ({', '.join(column(Answer, name, using) for name in names)}) "
        f"SELECT {', '.join(from_rows.get(name, '%s') for name in names)} FROM {table(Attempt, using)} a "
        f"JOIN {table(AttemptQuestion, using)} s "
        f"ON s.{column(AttemptQuestion, 'attempt_id', using)} = a.{column(Attempt, 'id', using)} "
        f"JOIN {table(QuestionVersion, using)} v "
        f"ON v.{column(QuestionVersion, 'id', using)} = s.{column(AttemptQuestion, 'version_id', using)} "
        f"JOIN {table(Choice, using)} c "
        f"ON c.{column(Choice, 'question_id', using)} = s.{column(AttemptQuestion, 'question_id', using)} "
        f"WHERE c.{column(Choice, 'id', using)} = %s AND s.{column(AttemptQuestion, 'question_id', using)} = %s"
        f"{position} AND {shown} "
        f"AND a.{column(Attempt, 'id', using)} = %s AND a.{column(Attempt, 'user_id', using)} = %s "
        f"AND a.{column(Attempt, 'state', using)} = %s "
        f"AND (a.{column(Attempt, 'deadline', using)} IS NULL OR a.{column(Attempt, 'deadline', using)} >= %s) "
        f"RETURNING {', '.join(column(Answer, name, using) for name in ANSWER_ROW_NAMES)}"
    )


def _answer_parameters(language: str, now, using: str) -> list:
    """The values of a new answer's columns that are not read from the rows, in column order."""
    from_rows = _answer_from_rows(using)
    row = new_row(Answer, {**dict.fromkeys(from_rows), "language": language, "answered_at": now})
    return adapted([value for name, value in row.items() if name not in from_rows], using)


def answer_write(
    *,
    attempt_id: int,
    user_id: int,
    question_id: int,
    choice_id: int,
    language: str,
    position: int | None,
    now,
    using: str = DEFAULT_DB_ALIAS,
) -> tuple[Attempt | None, Answer | None]:
    """Lock the attempt and INSERT the answer graded with the choice's key, in one transaction.

    Returns the attempt as locked (None if it is not this user's) and the new
    answer, with its ``version_token`` and its attempt's ``quiz`` (``QUIZ_REVIEW_NAMES``: what
    its feedback's review reads), read after it, or None when nothing was inserted: the attempt
    is not in progress or past its deadline (``rules.deadline_cutoff(now)``; ``now`` is also
    when it is answered), or the question is not in its layout (at ``position``, when given), or the
    choice is not one the layout shows with it. The answer records the version
    the layout holds and is graded by that version's key. Whether the answer may be recorded is
    decided here, by the database, as committed; the caller explains a refusal.
    A second answer to the question raises IntegrityError (the unique
    constraint), with nothing written.

    The INSERT is a statement after the lock, so its key is the one committed
    by a regrade the lock waited for. On PostgreSQL, outside any transaction,
    both travel in one message with BEGIN and COMMIT (``one_message_transaction``):
    the busiest write, in one round trip instead of four.
    """
    db = database(using)
    insert_params = [*_answer_parameters(language, now, using), choice_id, question_id]
    insert_params += [position] if position is not None else []
    insert_params += [attempt_id, user_id, Attempt.State.IN_PROGRESS.value]
    insert_params += adapted([deadline_cutoff(now)], using)
    statements = [
        (_lock_sql(using), [attempt_id, user_id]),
        (_answer_insert_sql(using, position is not None), insert_params),
        (_answer_version_token_sql(using), [attempt_id, question_id]),
    ]
    if xapi_enabled():  # its xAPI message, in the same transaction (quizzes/outbox)
        statements.append(
            answer_message_statement(attempt_id=attempt_id, question_id=question_id, now=now, using=using)
        )
    if in_one_message(db):
        locked, inserted, token, *_message = one_message_transaction(statements, using=using)
    else:
        with transaction.atomic(using=using):
            locked, inserted = [fetchall(sql, params, using=using) for sql, params in statements[:2]]
            token = fetchall(*statements[2], using=using) if inserted else []
            for statement in statements[3:] if inserted else []:
                fetchall(*statement, using=using)
    attempt = instance(Attempt, ATTEMPT_NAMES, locked[0], using=using) if locked else None
    answer = None
    if inserted:
        answer = instance(Answer, ANSWER_ROW_NAMES, inserted[0], using=using)
        answer.version_token = token[0][0]
        attempt.quiz = instance(Quiz, QUIZ_REVIEW_NAMES, token[0][1:], using=using)
    return attempt, answer


@cache
def _answer_version_token_sql(using: str) -> str:
    # The token of the version the answer just written records, and what its review reads of the
    # quiz (read with it: its feedback).
    return (
        f"SELECT v.{column(QuestionVersion, 'token', using)}, {select_list(Quiz, 'q', QUIZ_REVIEW_NAMES, using)} "
        f"FROM {table(Answer, using)} r "
        f"JOIN {table(QuestionVersion, using)} v "
        f"ON v.{column(QuestionVersion, 'id', using)} = r.{column(Answer, 'version_id', using)} "
        f"JOIN {table(Attempt, using)} a ON a.{column(Attempt, 'id', using)} = r.{column(Answer, 'attempt_id', using)} "
        f"JOIN {table(Quiz, using)} q ON q.{column(Quiz, 'id', using)} = a.{column(Attempt, 'quiz_id', using)} "
        f"WHERE r.{column(Answer, 'attempt_id', using)} = %s AND r.{column(Answer, 'question_id', using)} = %s"
    )


# The dashboard and the progress endpoint -------------------------------------------------------

COURSE_NAMES = attnames(Course)
QUIZ_NAMES = attnames(Quiz)
PROGRESS_NAMES = AttemptScore._fields  # ("id", "state", "score", "max_score", "pass_mark"): what grading reads
# And when each was finished: the dashboard's spaced practice (quizzes/attempts/practice_selectors.py).
DASHBOARD_ATTEMPT_NAMES = (*PROGRESS_NAMES, "finished_at")


@cache
def _dashboard_sql(using: str) -> str:
    course_id, quiz_id = f"c.{column(Course, 'id', using)}", f"q.{column(Quiz, 'id', using)}"
    return (
        f"SELECT {select_list(Course, 'c', COURSE_NAMES, using)}, e.{column(Enrollment, 'id', using)}, "
        f"{select_list(Quiz, 'q', QUIZ_NAMES, using)}, v.{column(QuizContentVersion, 'version', using)}, "
        f"{select_list(Attempt, 'a', DASHBOARD_ATTEMPT_NAMES, using)} "
        f"FROM {table(Course, using)} c "
        f"LEFT JOIN {table(Enrollment, using)} e ON e.{column(Enrollment, 'course_id', using)} = {course_id} "
        f"AND e.{column(Enrollment, 'user_id', using)} = %s "
        f"LEFT JOIN {table(Quiz, using)} q ON q.{column(Quiz, 'course_id', using)} = {course_id} "
        f"AND e.{column(Enrollment, 'id', using)} IS NOT NULL AND q.{column(Quiz, 'is_published', using)} = %s "
        f"LEFT JOIN {table(QuizContentVersion, using)} v "
        f"ON v.{column(QuizContentVersion, 'quiz_id', using)} = {quiz_id} "
        f"LEFT JOIN {table(Attempt, using)} a ON a.{column(Attempt, 'quiz_id', using)} = {quiz_id} "
        f"AND a.{column(Attempt, 'user_id', using)} = %s AND a.{column(Attempt, 'is_practice', using)} = %s "
        f"WHERE e.{column(Enrollment, 'id', using)} IS NOT NULL "
        f"OR c.{column(Course, 'allow_self_enrollment', using)} = %s "
        f"ORDER BY c.{column(Course, 'slug', using)}, q.{column(Quiz, 'position', using)}, "
        f"q.{column(Quiz, 'slug', using)}, a.{column(Attempt, 'id', using)}"
    )


def courses_of_student(
    user_id: int, *, using: str = DEFAULT_DB_ALIAS
) -> tuple[list[Course], list[Course], list[tuple[Quiz, tuple | None]]]:
    """One statement for the dashboard and the progress endpoint.

    Returns the courses the user is enrolled in and those open to self-enrollment
    they have not joined, each by slug, and the published quizzes of the
    enrolled courses in order, each with one of the user's attempts that count (not practice:
    an Attempt with ``DASHBOARD_ATTEMPT_NAMES`` only) or None: a row per attempt. Each quiz
    has the version of its content read with it, ``content_version_number`` (None when it has none:
    ``quizzes.content.cache.quiz_contents``).
    """
    course_width, quiz_width = len(COURSE_NAMES), len(QUIZ_NAMES)
    enrolled, joinable, quizzes = [], [], []
    seen: set[int] = set()
    for row in fetchall(_dashboard_sql(using), [user_id, True, user_id, GRADED_IS_PRACTICE, True], using=using):
        course_row, enrollment_id, rest = row[:course_width], row[course_width], row[course_width + 1 :]
        if course_row[0] not in seen:
            seen.add(course_row[0])
            course = instance(Course, COURSE_NAMES, course_row, using=using)
            (enrolled if enrollment_id is not None else joinable).append(course)
        if rest[0] is not None:
            quiz = instance(Quiz, QUIZ_NAMES, rest[:quiz_width], using=using)
            quiz.content_version_number, attempt_row = rest[quiz_width], rest[quiz_width + 1 :]
            attempt = None
            if attempt_row[0] is not None:
                attempt = instance(Attempt, DASHBOARD_ATTEMPT_NAMES, attempt_row, using=using)
            quizzes.append((quiz, attempt))
    return enrolled, joinable, quizzes
