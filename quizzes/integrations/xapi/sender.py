"""Sending xAPI statements to the learning record store named by ``XAPI_ENDPOINT``.

A batch goes as one POST of a JSON array to ``<XAPI_ENDPOINT>/statements``. Statement ids are
fixed by their messages (``statements.statement_id``), so sending one again is harmless, and
an LRS that already holds a statement of that id but not equal to it (ralph compares them: the
username in ``actor.name`` may have changed) answers 409: a statement id we sent is one the
LRS has, so a 409 for it counts as delivered. As the LRS answers for the whole batch, a 409 or
a refusal (one bad statement refuses the batch) is followed by sending each statement alone,
with PUT, to tell which ones it holds or takes and which one it refuses.

What each answer means:

- 200, 204, 409: delivered.
- 400, 413, 422 and any other 4xx not below: refused, with the LRS's body, kept for staff to
  read (and fixed: it is a statement of ours that the LRS will never take).
- 401, 403, 404: retried. They say our settings are wrong (credentials, the endpoint), not the
  statement: once someone mends them, every statement waiting goes, without a staff action.
- 408, 429, 5xx, a timeout or no connection: retried.
"""

import json
import logging

import requests
from django.conf import settings

from quizzes.integrations.xapi.statements import VERSION, statements_build
from quizzes.models import OutboxMessage
from quizzes.outbox.delivery import Delivered, Outcome, Refused, Retry

logger = logging.getLogger(__name__)

# Seconds: to connect, and to wait for the LRS's answer to a batch.
TIMEOUT = (5, 30)
RETRIED_STATUSES = frozenset({401, 403, 404, 408, 429})
# How much of the LRS's answer is kept as the message's error.
ERROR_LENGTH = 2000
GONE = "its attempt or answer no longer exists"


def statements_url() -> str:
    return settings.XAPI_ENDPOINT.rstrip("/") + "/statements"


def xapi_send(messages: list[OutboxMessage]) -> dict[int, Outcome]:
    """The outbox's sender of xAPI messages (``quizzes.outbox.delivery.Sender``)."""
    statements = statements_build(messages)
    outcomes: dict[int, Outcome] = {m.pk: Refused(GONE) for m in messages if m.pk not in statements}
    if not statements:
        return outcomes
    with requests.Session() as session:
        session.auth = (settings.XAPI_USERNAME, settings.XAPI_PASSWORD)
        session.headers.update({"X-Experience-API-Version": VERSION, "Content-Type": "application/json"})
        outcomes.update(_send_batch(session, statements))
    return outcomes


def _send_batch(session: requests.Session, statements: dict[int, dict]) -> dict[int, Outcome]:
    try:
        response = session.post(statements_url(), data=json.dumps(list(statements.values())), timeout=TIMEOUT)
    except requests.RequestException as error:
        return dict.fromkeys(statements, Retry(_error_of(error)))
    if response.status_code in (200, 204):
        return dict.fromkeys(statements, Delivered())
    outcome = _outcome(response, batch=True)
    if outcome is None or (isinstance(outcome, Refused) and len(statements) > 1):
        return {pk: _send_one(session, statement) for pk, statement in statements.items()}
    return dict.fromkeys(statements, outcome)


def _send_one(session: requests.Session, statement: dict) -> Outcome:
    try:
        response = session.put(
            statements_url(), params={"statementId": statement["id"]}, data=json.dumps(statement), timeout=TIMEOUT
        )
    except requests.RequestException as error:
        return Retry(_error_of(error))
    return _outcome(response)


def _outcome(response: requests.Response, *, batch: bool = False) -> Outcome | None:
    """What the LRS's answer says of the statement sent (None for a 409 to a batch: which of its
    statements does the LRS hold?)."""
    status = response.status_code
    if status == 409 and batch:
        return None
    if status in (200, 204, 409):
        return Delivered()
    error = f"{status} {response.reason}: {response.text[:ERROR_LENGTH]}"
    if status in RETRIED_STATUSES or status >= 500 or status < 400:
        if status in (401, 403, 404):
            logger.error("The LRS at %s refused our settings: %s", settings.XAPI_ENDPOINT, error)
        return Retry(error)
    return Refused(error)


def _error_of(error: requests.RequestException) -> str:
    return f"{type(error).__name__}: {error}"[:ERROR_LENGTH]
