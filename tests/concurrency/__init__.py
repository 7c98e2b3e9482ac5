"""Concurrency and fault-injection tests: PostgreSQL only (but test_freshness.py, on either database).

Races run through the services in threads (each with its own database
connection) and through HTTP against a live gunicorn; faults (killed database
connections, SIGKILLed workers) against the same gunicorn. The helpers here
are shared by test_races.py and test_faults.py; the fixtures are in conftest.py.
"""

import threading
import time
from dataclasses import dataclass, field

import psycopg
import pytest
import requests
from django.conf import settings
from django.db import connection

requires_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason=(
        f"concurrency tests need PostgreSQL (database is {connection.vendor}): select_for_update is a no-op "
        "on SQLite; run with DATABASE_URL=postgres://..."
    ),
)

RACERS = 50
WORKERS = 4  # gunicorn workers of the live server
# Fault-injection outcomes (kills, 5xx seen, recovery), printed at the end of the run by tests/conftest.py
# (which gathers them from every xdist worker).
FAULT_REPORT: list[str] = []
THREAD_TIMEOUT = 60.0
HTTP_TIMEOUT = 15.0


def admin_params() -> dict:
    database = settings.DATABASES["default"]
    return {
        "host": database.get("HOST") or "127.0.0.1",
        "port": int(database.get("PORT") or 5432),
        "user": database.get("USER") or "postgres",
        "password": database.get("PASSWORD") or None,
    }


def admin_connect(dbname: str = "postgres", server: dict | None = None) -> psycopg.Connection:
    """An autocommit connection (not through Django) to the PostgreSQL server of the tests, or of
    ``server`` (admin_params()'s keys)."""
    return psycopg.connect(dbname=dbname, autocommit=True, connect_timeout=5, **(server or admin_params()))


def run_together(count: int, call, *, timeout: float = THREAD_TIMEOUT, uses_db: bool = True) -> list:
    """Run ``call(i)`` for i in 0..count-1, in ``count`` threads released at once by a barrier.

    Returns each thread's outcome: what ``call`` returned, or the exception it
    raised. A thread using the ORM connects before the barrier (so that the
    calls, not the connections, race) and closes its own connection at the end.
    """
    barrier = threading.Barrier(count, timeout=timeout)
    outcomes: list = [None] * count

    def worker(index: int) -> None:
        try:
            if uses_db:
                connection.ensure_connection()
            barrier.wait()
            outcomes[index] = call(index)
        except BaseException as error:  # the outcome of this thread, asserted on by the test
            outcomes[index] = error
        finally:
            if uses_db:
                connection.close()

    threads = [threading.Thread(target=worker, args=(i,), name=f"racer-{i}", daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    stuck = [thread.name for thread in threads if thread.is_alive()]
    assert not stuck, f"{len(stuck)} threads still running after {timeout}s: {stuck[:5]}"
    return outcomes


def unexpected(outcomes: list, *expected: type) -> list:
    """The outcomes that are none of the ``expected`` types (e.g. a crash in a thread)."""
    return [outcome for outcome in outcomes if not isinstance(outcome, expected)]


@dataclass
class Delivery:
    """One logical request and every try it took to get a non-5xx answer."""

    tries: list = field(default_factory=list)  # status codes, or exception class names
    response: requests.Response | None = None
    answered_at: float | None = None  # time.monotonic() of the non-5xx response

    @property
    def status(self) -> int | None:
        return None if self.response is None else self.response.status_code

    @property
    def server_errors(self) -> int:
        return sum(1 for item in self.tries if isinstance(item, int) and item >= 500)

    @property
    def connection_errors(self) -> int:
        return sum(1 for item in self.tries if isinstance(item, str))


def post_with_retry(
    session: requests.Session,
    url: str,
    *,
    token: str,
    json: dict | None = None,
    idempotency_key: str | None = None,
    max_tries: int = 12,
    pause: float = 0.1,
    budget: float = 10.0,
) -> Delivery:
    """POST until a non-5xx response: a 5xx or a broken connection is retried with the same body
    (and the same Idempotency-Key, when given).

    Bounded by ``max_tries`` and by ``budget`` seconds.
    """
    delivery = Delivery()
    headers = {"Authorization": f"Token {token}"}
    if idempotency_key is not None:
        headers["Idempotency-Key"] = idempotency_key
    deadline = time.monotonic() + budget
    for _ in range(max_tries):
        try:
            response = session.post(url, json=json, headers=headers, timeout=HTTP_TIMEOUT)
        except requests.RequestException as error:
            delivery.tries.append(type(error).__name__)
        else:
            delivery.tries.append(response.status_code)
            if response.status_code < 500:
                delivery.response = response
                delivery.answered_at = time.monotonic()
                return delivery
        if time.monotonic() + pause > deadline:
            break
        time.sleep(pause)
    return delivery
