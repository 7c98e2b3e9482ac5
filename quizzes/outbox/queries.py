"""The outbox's statement in the answer's transaction, in fixed SQL (``common.sql``).

An answer is the busiest write: its xAPI message is one more INSERT in the message that records
the answer (``quizzes.attempts.queries.answer_write``), not a round trip of its own. It reads
the answer the statement before it wrote (by its time, this request's), so it writes a message
exactly when that answer was recorded, and nothing for a refused one. Its key, the answer's id,
is new: no other statement writes an answer's message, so it needs no ON CONFLICT clause (whose
speculative insertion costs PostgreSQL as much again as the plain INSERT).
"""

from functools import cache

from django.db import DEFAULT_DB_ALIAS

from common.sql import adapted, column, inserted_names, table
from quizzes.models import Answer, OutboxMessage


@cache
def _answer_message_sql(using: str) -> str:
    from_rows = {
        "key": f"CAST(r.{column(Answer, 'id', using)} AS TEXT)",
        "subject_id": f"r.{column(Answer, 'id', using)}",
        "payload": "'{}'",  # an answer never changes: its statement is read from it and its version
    }
    names = inserted_names(OutboxMessage)
    columns = ", ".join(column(OutboxMessage, name, using) for name in names)
    return (
        f"INSERT INTO {table(OutboxMessage, using)} ({columns}) "
        f"SELECT {', '.join(from_rows.get(name, '%s') for name in names)} FROM {table(Answer, using)} r "
        f"WHERE r.{column(Answer, 'attempt_id', using)} = %s AND r.{column(Answer, 'question_id', using)} = %s "
        f"AND r.{column(Answer, 'answered_at', using)} = %s "
        f"RETURNING {column(OutboxMessage, 'id', using)}"
    )


def answer_message_statement(
    *, attempt_id: int, question_id: int, now, using: str = DEFAULT_DB_ALIAS
) -> tuple[str, list]:
    """The INSERT of the xAPI message of the answer to ``question_id`` in ``attempt_id`` recorded at
    ``now`` (by the statement before it in the same transaction), as SQL and parameters."""
    given = {"kind": OutboxMessage.Kind.XAPI_ANSWERED.value, "created_at": now, "due_at": now}
    names = [name for name in inserted_names(OutboxMessage) if name not in ("key", "subject_id", "payload")]
    # Every other column as the model makes a new message (its defaults: pending, no tries...).
    values = [given[name] if name in given else OutboxMessage._meta.get_field(name).get_default() for name in names]
    params = adapted(values, using)
    return _answer_message_sql(using), [*params, *adapted([attempt_id, question_id, now], using)]
