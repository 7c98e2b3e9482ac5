"""Faults under load, against the live gunicorn: killed database connections, SIGKILLed workers.

Clients (threads) submit every answer of 10 students while the fault is
injected at fixed points of the load's progress. A request that fails (a
broken connection or a 5xx) is retried with the same body, as a client would.
The server may fail a request in flight, but must never lose an answer it
acknowledged, never record one twice, and must recover by itself.
"""

import os
import queue
import signal
import threading
import time
from dataclasses import dataclass

import requests

from tests import figures
from tests.concurrency import (
    FAULT_REPORT,
    WORKERS,
    Delivery,
    admin_connect,
    post_with_retry,
    requires_postgresql,
    run_together,
)

pytestmark = requires_postgresql

QUIZ = "gradient-checkpointing"
STUDENTS = 10
CLIENTS = 8
LOAD_TIMEOUT = 25.0
RECOVERY_LIMIT = 5.0


@dataclass
class Job:
    student: int
    token: str
    attempt: int
    question: int
    choice: int
    correct: bool
    delivery: Delivery | None = None


def start_attempts(live_api, students) -> list[int]:
    attempts = []
    with requests.Session() as session:
        for _name, token in students:
            delivery = post_with_retry(session, live_api.api(f"quizzes/{QUIZ}/attempts/"), token=token)
            assert delivery.status == 201, delivery.tries
            attempts.append(delivery.response.json()["id"])
    return attempts


def plan(live_api, students, attempts) -> list[Job]:
    """Every answer of every student; student n gets their first n % 9 questions right."""
    jobs = []
    for position in range(8):  # interleaved, so that every client serves many students
        for number, ((_name, token), attempt) in enumerate(zip(students, attempts, strict=True)):
            question = live_api.quizzes[QUIZ][position]
            right = question["position"] <= number % 9
            wrong = [choice["id"] for choice in question["choices"] if not choice["correct"]]
            choice = (
                next(choice["id"] for choice in question["choices"] if choice["correct"])
                if right
                else wrong[(number + position) % len(wrong)]
            )
            jobs.append(Job(number, token, attempt, question["id"], choice, right))
    return jobs


def run_load(live_api, jobs: list[Job], inject) -> None:
    """Submit ``jobs`` from CLIENTS threads while ``inject(progress, finished)`` runs in another."""
    work: queue.Queue = queue.Queue()
    for job in jobs:
        work.put(job)
    completed = []  # one item per job done (list.append is atomic)
    exited = []  # one item per client thread done, normally or not
    finished = threading.Event()

    def client() -> None:
        with requests.Session() as session:
            while True:
                try:
                    job = work.get_nowait()
                except queue.Empty:
                    return
                job.delivery = post_with_retry(
                    session,
                    live_api.api(f"attempts/{job.attempt}/answers/"),
                    token=job.token,
                    json={"question": job.question, "choice": job.choice},
                    idempotency_key=idempotency_key(job),
                )
                completed.append(job)

    def role(index: int) -> None:
        if index == CLIENTS:
            return inject(lambda: len(completed) / len(jobs), finished)
        try:
            return client()
        finally:
            exited.append(index)
            if len(exited) == CLIENTS:
                finished.set()

    outcomes = run_together(CLIENTS + 1, role, timeout=LOAD_TIMEOUT, uses_db=False)
    errors = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
    assert not errors, errors


def idempotency_key(job: Job) -> str:
    return f"answer-{job.attempt}-{job.question}"


def at_progress(thresholds, progress, finished, action) -> list:
    """Call ``action(fraction)`` once the load passes each threshold; bounded by LOAD_TIMEOUT."""
    done = []
    deadline = time.monotonic() + LOAD_TIMEOUT
    for threshold in thresholds:
        while progress() < threshold and not finished.is_set() and time.monotonic() < deadline:
            time.sleep(0.002)
        fraction = progress()
        if fraction >= 1 or finished.is_set() or time.monotonic() >= deadline:
            break
        done.append((fraction, time.monotonic(), action(fraction)))
    return done


def check_answers(live_api, jobs: list[Job]) -> dict:
    """Every acknowledged answer stored as sent, none twice; returns the tally of tries."""
    unacknowledged = [(job.attempt, job.question, job.delivery.tries) for job in jobs if job.delivery.status is None]
    assert not unacknowledged, f"answers never acknowledged despite retries: {unacknowledged[:5]}"
    statuses = {job.delivery.status for job in jobs}
    assert statuses <= {200, 201}, statuses
    for job in jobs:
        # 200 means "recorded already": only a retry of a request whose first reply was lost may get it.
        assert job.delivery.status == 201 or len(job.delivery.tries) > 1, job.delivery.tries
        assert job.delivery.response.json()["choice"] == job.choice

    attempts = sorted({job.attempt for job in jobs})
    duplicates = live_api.query(
        "SELECT attempt_id, question_id, count(*) FROM quizzes_answer WHERE attempt_id = ANY(%s) "
        "GROUP BY attempt_id, question_id HAVING count(*) > 1",
        [attempts],
    )
    assert not duplicates
    stored = {
        (attempt, question): (choice, correct)
        for attempt, question, choice, correct in live_api.query(
            "SELECT attempt_id, question_id, choice_id, is_correct FROM quizzes_answer WHERE attempt_id = ANY(%s)",
            [attempts],
        )
    }
    assert len(stored) == len(jobs)
    for job in jobs:
        assert stored[(job.attempt, job.question)] == (job.choice, job.correct)
    # Each client retried with its Idempotency-Key: one recorded response per answer, and
    # a retry whose first reply was lost got that response replayed.
    keys = live_api.query(
        "SELECT key, count(*) FROM quizzes_idempotencykey WHERE key = ANY(%s) GROUP BY key",
        [[idempotency_key(job) for job in jobs]],
    )
    assert sorted(keys) == sorted((idempotency_key(job), 1) for job in jobs)

    tries = [item for job in jobs for item in job.delivery.tries]
    return {
        "tries": len(tries),
        "5xx": sum(1 for item in tries if isinstance(item, int) and item >= 500),
        "connection errors": sum(1 for item in tries if isinstance(item, str)),
    }


def check_scores(live_api, students, jobs: list[Job]) -> None:
    """Finishing every attempt (retried like the answers) grades exactly the answers stored."""
    with requests.Session() as session:
        for number, (_name, token) in enumerate(students):
            attempt = next(job.attempt for job in jobs if job.student == number)
            delivery = post_with_retry(session, live_api.api(f"attempts/{attempt}/finish/"), token=token)
            assert delivery.status == 200, delivery.tries
            expected = sum(job.correct for job in jobs if job.student == number)
            assert delivery.response.json()["score"] == expected == number % 9


def recovery_seconds(live_api, token: str, jobs: list[Job], last_fault: float) -> float:
    """Seconds from the last fault to the first success after it (a request acknowledged, or a probe)."""
    after = [job.delivery.answered_at - last_fault for job in jobs if (job.delivery.answered_at or 0) > last_fault]
    if after:
        return min(after)
    probe = live_api.wait_healthy(token, within=RECOVERY_LIMIT)
    assert probe is not None, f"no successful request within {RECOVERY_LIMIT}s of the last fault"
    return time.monotonic() - last_fault


def terminate_backends(dbname: str) -> int:
    with admin_connect() as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [dbname],
        ).fetchall()
    return sum(1 for (terminated,) in rows if terminated)


def warm_up(live_api, token: str) -> None:
    """A request to every worker, so that each holds a persistent database connection (CONN_MAX_AGE)."""
    outcomes = run_together(WORKERS * 2, lambda index: live_api.healthy(token, timeout=10), uses_db=False)
    assert all(outcome is True for outcome in outcomes), outcomes


def test_database_connections_killed_during_a_load_of_answers(live_api):
    students = live_api.students(STUDENTS)
    attempts = start_attempts(live_api, students)
    jobs = plan(live_api, students, attempts)
    probe_token = students[0][1]
    warm_up(live_api, probe_token)

    kills = []

    def kill_connections(_fraction):
        return terminate_backends(live_api.dbname)

    def inject(progress, finished):
        kills.extend(at_progress((0.1, 0.3, 0.5, 0.7), progress, finished, kill_connections))

    run_load(live_api, jobs, inject)

    assert len(kills) >= 3, f"the load ended before the kills: {kills}"
    assert all(terminated >= 1 for _fraction, _at, terminated in kills), kills
    tally = check_answers(live_api, jobs)
    recovery = recovery_seconds(live_api, probe_token, jobs, last_fault=kills[-1][1])
    assert recovery <= RECOVERY_LIMIT

    # Connections killed while idle are replaced on the next request (conn_health_checks): no 5xx at all.
    warm_up(live_api, probe_token)
    quiet_kill = terminate_backends(live_api.dbname)
    with requests.Session() as session:
        after_idle_kill = [
            session.get(live_api.api("quizzes/"), headers={"Authorization": f"Token {probe_token}"}, timeout=10)
            for _ in range(WORKERS * 3)
        ]
    assert quiet_kill >= 1
    assert [response.status_code for response in after_idle_kill] == [200] * (WORKERS * 3)

    check_scores(live_api, students, jobs)
    FAULT_REPORT.append(
        f"database connections killed: {len(kills)} rounds during {len(jobs)} answers "
        f"({sum(t for _f, _a, t in kills)} backends terminated); {tally['tries']} tries, {tally['5xx']} 5xx, "
        f"{tally['connection errors']} connection errors; first success {recovery:.2f}s after the last kill; "
        f"idle kill of {quiet_kill} backends: 0 5xx"
    )
    figures.add("fault scenarios survived")


def test_gunicorn_workers_sigkilled_during_a_load_of_answers(live_api):
    students = live_api.students(STUDENTS)
    attempts = start_attempts(live_api, students)
    jobs = plan(live_api, students, attempts)
    probe_token = students[0][1]
    assert live_api.wait_workers(WORKERS, within=RECOVERY_LIMIT) is not None
    warm_up(live_api, probe_token)

    killed = []
    booted = live_api.worker_pids()

    def kill_a_worker(_fraction):
        # A worker that has served requests (not one just respawned and still booting).
        workers = [pid for pid in live_api.worker_pids() if pid in booted and pid not in killed]
        assert workers, "no worker to kill"
        os.kill(workers[0], signal.SIGKILL)
        killed.append(workers[0])
        return workers[0]

    kills = []

    def inject(progress, finished):
        kills.extend(at_progress((0.25, 0.6), progress, finished, kill_a_worker))

    run_load(live_api, jobs, inject)

    assert len(kills) == 2, f"the load ended before the kills: {kills}"
    assert live_api.process.poll() is None, "the gunicorn master died"
    respawned = live_api.wait_workers(WORKERS, within=RECOVERY_LIMIT)
    assert respawned is not None, f"workers not respawned within {RECOVERY_LIMIT}s: {live_api.worker_pids()}"
    assert not set(killed) & set(live_api.worker_pids())
    tally = check_answers(live_api, jobs)
    recovery = recovery_seconds(live_api, probe_token, jobs, last_fault=kills[-1][1])
    assert recovery <= RECOVERY_LIMIT
    assert live_api.wait_healthy(probe_token, within=RECOVERY_LIMIT) is not None

    check_scores(live_api, students, jobs)
    FAULT_REPORT.append(
        f"gunicorn workers SIGKILLed: {len(kills)} during {len(jobs)} answers; {tally['tries']} tries, "
        f"{tally['5xx']} 5xx, {tally['connection errors']} connection errors; first success {recovery:.2f}s "
        f"after the last kill; {WORKERS} worker processes again {respawned:.2f}s after the load"
    )
    figures.add("fault scenarios survived")
