"""The fixed SQL's own PREPARE/EXECUTE in one text message (common.sql) against psycopg 3's
own preparation (protocol-level, ``prepare=True``) in pipeline mode, and against plain text:
microseconds per transaction of the answer's shape (BEGIN; the lock; a read; COMMIT), best of
five rounds of 3,000, on PostgreSQL. Not part of the suite (benchmarks/ is not collected):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/lms .venv/bin/python -m pytest -s \
        -p tests.conftest benchmarks/test_sql_sending.py

The figures are in docs/performance.md ("Sending the fixed SQL")."""

import time

import psycopg
import pytest
from django.db import connection

from common import sql
from quizzes.attempts import queries
from quizzes.attempts.services import attempt_start
from tests.factories import EnrollmentFactory, UserFactory

N = 3000


def best(function, rounds: int = 5) -> float:
    """Microseconds per call, the best of ``rounds`` rounds of N calls."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(N):
            function()
        times.append((time.perf_counter() - start) / N * 1e6)
    return min(times)


@pytest.mark.django_db(transaction=True)
def test_sending_the_answers_transaction(content, gc_quiz):
    assert connection.vendor == "postgresql"
    student = UserFactory(username="bench-sql")
    EnrollmentFactory(user=student, course=gc_quiz.course)
    attempt, _created = attempt_start(user=student, quiz=gc_quiz)
    lock_sql, token_sql = queries._lock_sql("default"), queries._answer_version_token_sql("default")
    statements = [
        (lock_sql, [attempt.pk, student.pk]),
        (token_sql, [attempt.pk, 1]),
        (lock_sql, [attempt.pk, student.pk]),
    ]
    connection.ensure_connection()
    raw = connection.connection
    cursors = [psycopg.Cursor(raw) for _ in statements]  # server-side binding, made once

    def own_prepare():  # common.sql: PREPARE once per connection, then EXECUTEs in one message
        return sql.one_message_transaction(statements)

    def psycopg_pipeline():  # psycopg prepares each statement; the pipeline sends them together
        with raw.pipeline():
            raw.execute("BEGIN")
            for cursor, (text, params) in zip(cursors, statements, strict=True):
                cursor.execute(text, params, prepare=True)
            raw.execute("COMMIT")
        return [cursor.fetchall() for cursor in cursors]

    def plain_text():  # one message, parsed and planned each time
        with connection.cursor() as cursor:
            texts = ["BEGIN", *[text for text, _params in statements], "COMMIT"]
            cursor.execute("; ".join(texts), [param for _text, params in statements for param in params])

    assert own_prepare()[0] == psycopg_pipeline()[0]
    for name, function in [("own PREPARE", own_prepare), ("psycopg pipeline", psycopg_pipeline), ("text", plain_text)]:
        print(f"\n{name:18} {best(function):7.1f} us per transaction")
