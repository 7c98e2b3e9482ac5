"""Every row lock the services take names the rows it means, and no others.

``select_for_update()`` on a queryset whose model orders by a foreign key
joins the related tables and, without ``of=``, locks their rows too: a start
would then lock the course row and every student's start in the course would
wait for the others. Checked on the SQL PostgreSQL receives.
"""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from quizzes.attempts.regrade import question_correct_choice_change
from quizzes.attempts.services import attempt_answer_submit, attempt_finish, attempt_start
from quizzes.content.archive import questions_archive
from quizzes.enrollment.services import enrollments_delete
from quizzes.models import Choice, Quiz
from tests.factories import AnswerFactory, AttemptFactory, EnrollmentFactory, UserFactory

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="SQLite takes no row locks (select_for_update is a no-op)"
    ),
]


@pytest.fixture(autouse=True)
def statements_as_text(settings):
    """quizzes/attempts/queries.py's statements travel as EXECUTEs of prepared ones on PostgreSQL: send
    them as text here, to be read. Both are the same SQL (tests/attempts/test_queries.py)."""
    settings.QUIZZES_PREPARED_STATEMENTS = False


LOCK = re.compile(r"FOR (?:NO KEY )?UPDATE(?: OF (?P<of>.+))?$")
FROM = re.compile(r' FROM ("\w+")')


def locks(work) -> list[tuple[str, str]]:
    """(table locked, statement) of each locking statement ``work`` runs."""
    with CaptureQueriesContext(connection) as queries:
        work()
    found = []
    # A message may hold several statements (quizzes/attempts/queries.py sends a transaction's reads together).
    for sql in (statement for query in queries.captured_queries for statement in query["sql"].split("; ")):
        match = LOCK.search(sql)
        if match:
            # Without OF, every table of the statement is locked: then it must read one table.
            assert match["of"] or " JOIN " not in sql, f"this lock also locks the joined tables: {sql}"
            found.append((match["of"] or FROM.search(sql)[1], sql))
    return found


def tables(found) -> list[str]:
    return [table for table, _sql in found]


def test_a_start_locks_only_the_enrollment(student, content):
    quiz = Quiz.objects.get(slug="gradient-checkpointing")
    assert tables(locks(lambda: attempt_start(user=student, quiz=quiz))) == ['"quizzes_enrollment"']


def test_an_answer_and_a_finish_lock_only_the_attempt(student, content):
    quiz = Quiz.objects.get(slug="gradient-checkpointing")
    attempt, _new = attempt_start(user=student, quiz=quiz)
    question = quiz.questions.get(position=1)
    choice = question.choices.first()
    answering = locks(
        lambda: attempt_answer_submit(
            user=student, attempt_id=attempt.pk, question_id=question.pk, choice_id=choice.pk, language="en"
        )
    )
    assert tables(answering) == ['"quizzes_attempt"']
    assert tables(locks(lambda: attempt_finish(attempt=attempt))) == ['"quizzes_attempt"']


def test_a_regrade_locks_the_quiz_question_attempts_choices_and_current_version_only(content, editor):
    quiz = Quiz.objects.get(slug="gradient-checkpointing")
    question = quiz.questions.get(position=1)
    user = UserFactory(username="answered")
    EnrollmentFactory(user=user, course=quiz.course)
    old, new = list(Choice.objects.filter(question=question).order_by("position"))[:2]
    AnswerFactory(attempt=AttemptFactory(user=user, quiz=quiz, number=1), question=question, choice=old)
    found = locks(lambda: question_correct_choice_change(question=question, new_correct=new, changed_by=editor))
    # Then each choice saved syncs the question's versions (quizzes/content/versions.py), its row
    # locked FOR NO KEY UPDATE: the first makes version 2 (version 1 is answered), the second
    # rewrites version 2, which no layout holds yet, under the quiz's lock (held already).
    assert tables(found) == [
        '"quizzes_quiz"',
        '"quizzes_question"',
        '"quizzes_attempt"',
        '"quizzes_choice"',
        '"quizzes_question"',
        '"quizzes_question"',
        '"quizzes_quiz"',
    ]
    assert " JOIN " not in found[0][1]  # the quiz row alone, not its course


def test_unenrolling_and_archiving_lock_only_their_rows(student, content):
    quiz = Quiz.objects.get(slug="gradient-checkpointing")
    enrollment = student.enrollments.get()
    assert tables(locks(lambda: enrollments_delete(enrollments=[enrollment]))) == ['"quizzes_enrollment"']
    question = quiz.questions.get(position=8)
    # The same row again: the save's version sync (which finds nothing to change).
    assert tables(locks(lambda: questions_archive(questions=[question]))) == ['"quizzes_question"'] * 2
