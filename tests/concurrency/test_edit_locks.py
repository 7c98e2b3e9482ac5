"""An edit of a question students are answering never makes their answers wait (PostgreSQL).

An answer's INSERT checks its foreign keys (its question, its version) with key-share locks.
The version sync of an edit (quizzes/content/versions.py) locks the question's row FOR NO KEY
UPDATE and never locks a version a layout holds, so neither waits for the other: an answer
given while the edit's transaction is open goes through at once, against the version shown.
Were the answered version locked FOR UPDATE, the answer would wait for the edit, and an edit
that then regrades (it locks the attempts) would deadlock with it.
"""

import threading

import pytest
from django.db import connection, connections, transaction

from quizzes.attempts.services import attempt_answer_submit, attempt_start
from quizzes.models import Question
from tests.concurrency import requires_postgresql
from tests.factories import current_version

pytestmark = [requires_postgresql, pytest.mark.django_db(transaction=True)]

WAIT = 10  # seconds: only reached when something is wrong


def test_an_answer_goes_through_while_an_edit_of_its_question_is_open(student, gc_quiz):
    attempt, _created = attempt_start(user=student, quiz=gc_quiz)
    question = gc_quiz.questions.get(position=1)
    choice = question.choices.get(is_correct=True)
    editing, answered = threading.Event(), threading.Event()
    failures = []

    def edit():
        try:
            with transaction.atomic():
                edited = Question.objects.get(pk=question.pk)
                edited.text_en = "Edited while a student answers it?"
                edited.save()  # version 2, in this open transaction
                editing.set()
                if not answered.wait(WAIT):
                    failures.append("the answer did not go through while the edit was open")
        except Exception as error:  # reported below, in the test's thread
            failures.append(repr(error))
        finally:
            editing.set()
            connections.close_all()

    editor = threading.Thread(target=edit)
    editor.start()
    assert editing.wait(WAIT)
    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = '5s'")  # a wait on a lock fails instead of hanging
    try:
        answer, created = attempt_answer_submit(
            user=student, attempt_id=attempt.pk, question_id=question.pk, choice_id=choice.pk, language="en"
        )
    finally:
        answered.set()
        with connection.cursor() as cursor:
            cursor.execute("SET statement_timeout = 0")
        editor.join(WAIT)
    assert failures == []
    assert created and answer.is_correct is True and answer.version.number == 1
    assert current_version(question).number == 2
