"""/healthz and /readyz (common/health.py): answered to anyone, by any Host, over http, without a
language prefix; /readyz names the part that fails. At the end, a production gunicorn on a
PostgreSQL of its own (tests/postgres_cluster.py) whose primary and replica are stopped and
started again."""

import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from django.db import connection
from django.test import override_settings

from common import health
from tests import postgres_cluster
from tests.processes import free_port, stop

PROJECT_DIR = Path(__file__).resolve().parents[2]
PROBES = ("/healthz", "/readyz")
LOAD_BALANCER_HOST = "10.0.0.7"  # a probe asks by the server's address, which ALLOWED_HOSTS does not list


def test_healthz_answers_without_the_database(client):
    # No ``db`` fixture: pytest-django refuses any database access here, which would be a 500.
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert "no-store" in response["Cache-Control"]
    assert response["Content-Type"] == "application/json"


def test_healthz_makes_no_query(client, db, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert client.get("/healthz").status_code == 200


@override_settings(DEBUG=False, SECURE_SSL_REDIRECT=True, ALLOWED_HOSTS=["quiz.example.org"])
def test_probes_are_neither_redirected_nor_refused_in_production(client, db):
    # What a page gets in the same setting: sent to https, and refused by address.
    assert client.get("/en/accounts/login/", HTTP_HOST="quiz.example.org").status_code == 301
    assert client.get("/en/accounts/login/", HTTP_HOST=LOAD_BALANCER_HOST).status_code == 400
    for path in PROBES:
        response = client.get(path, HTTP_HOST=LOAD_BALANCER_HOST)
        assert response.status_code == 200, (path, response.status_code)
        assert response.json()["status"] == "ok"
        assert "no-store" in response["Cache-Control"]


@pytest.mark.parametrize("path", PROBES)
def test_probes_have_no_language_prefix_and_no_login(client, db, path):
    response = client.get(path, HTTP_ACCEPT_LANGUAGE="ur", HTTP_COOKIE="django_language=sn")
    assert response.status_code == 200  # not a redirect to /ur/healthz, nor to the login page
    assert "Set-Cookie" not in response  # no session, no language cookie
    assert client.get(f"/en{path}").status_code == 404
    assert client.post(path).status_code == 405


def test_readyz_is_ready_on_this_database(client, db):
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ok" and "failed" not in body
    assert set(body["checks"]) == {"database", "cache"}  # the test settings name no replica
    for part in body["checks"].values():
        assert part["ok"] is True and part["ms"] >= 0
    assert "no-store" in response["Cache-Control"]


def test_readyz_names_the_cache_when_nothing_answers_on_its_port(client, db):
    location = f"redis://127.0.0.1:{free_port()}/0"
    redis_nowhere = {"default": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": location}}
    started = time.monotonic()
    with override_settings(CACHES=redis_nowhere):
        response = client.get("/readyz")
    assert time.monotonic() - started < health.TIMEOUT + 1
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "fail" and body["failed"] == ["cache"]
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["cache"]["ok"] is False and body["checks"]["cache"]["error"]
    assert location.split("//")[1] not in response.content.decode()  # no address in the answer


def _ready_once(client, within: float = 5.0):
    """/readyz until it answers 200 (a part's thread may still be ending)."""
    deadline = time.monotonic() + within
    while (response := client.get("/readyz")).status_code != 200 and time.monotonic() < deadline:
        time.sleep(0.02)
    return response


def test_a_part_that_hangs_is_given_up_at_the_deadline_and_not_asked_again_meanwhile(client, monkeypatch):
    released = threading.Event()
    monkeypatch.setattr(health, "TIMEOUT", 0.2)
    monkeypatch.setattr(health, "parts", lambda: [health.Part("database", lambda: released.wait(10))])
    try:
        started = time.monotonic()
        first = client.get("/readyz")
        assert time.monotonic() - started < 1
        second = client.get("/readyz")
    finally:
        released.set()
    assert first.status_code == 503
    assert first.json()["checks"]["database"]["error"] == health.NO_ANSWER.format(0.2) == "no answer within 0.2 s"
    assert second.status_code == 503
    assert second.json()["checks"]["database"]["error"] == health.STILL_RUNNING
    assert _ready_once(client).json()["checks"]["database"]["ok"] is True


def test_a_part_not_required_is_named_when_it_fails_but_leaves_the_site_ready(client, monkeypatch):
    def refused():
        raise ConnectionRefusedError("secret@10.1.2.3")

    monkeypatch.setattr(
        health,
        "parts",
        lambda: [health.Part("database", lambda: None), health.Part("replica", refused, required=False)],
    )
    response = client.get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and "failed" not in body
    assert body["checks"]["replica"] == {
        "ok": False,
        "error": "ConnectionRefusedError",
        "ms": body["checks"]["replica"]["ms"],
        "required": False,
    }
    assert "secret" not in response.content.decode()


# A production gunicorn on a PostgreSQL primary and replica of its own --------------------------


@dataclass
class Site:
    url: str
    cluster: postgres_cluster.Cluster
    log_path: Path

    def get(self, path: str) -> requests.Response:
        return requests.get(self.url + path, timeout=health.TIMEOUT + 5, allow_redirects=False)


def _production_env(cluster: postgres_cluster.Cluster) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DJANGO_", "DATABASE_")) and name != "REDIS_URL"
    }
    env.update(
        DJANGO_SETTINGS_MODULE="tests.concurrency.live_settings",  # production's, static files from the apps
        DJANGO_DEBUG="0",  # and so the https redirect on
        DJANGO_SECRET_KEY=f"health-{secrets.token_urlsafe(48)}",
        DJANGO_ALLOWED_HOSTS="quiz.example.org",  # not 127.0.0.1, the address the probes ask
        DATABASE_URL=cluster.primary.url("postgres"),
        DATABASE_REPLICA_URL=cluster.replica.url("postgres"),
    )
    return env


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with postgres_cluster.primary_and_replica() as cluster:
        port = free_port()
        log_path = tmp_path_factory.mktemp("health") / "gunicorn.log"
        command = [sys.executable, "-m", "gunicorn", "lms.wsgi:application", "--bind", f"127.0.0.1:{port}"]
        command += ["--workers", "1", "--worker-class", "gthread", "--threads", "2", "--no-control-socket"]
        with log_path.open("wb") as log:  # gunicorn's log and the app's, both on stderr
            process = subprocess.Popen(
                command, cwd=PROJECT_DIR, env=_production_env(cluster), stdout=subprocess.DEVNULL, stderr=log
            )
        try:
            # As the systemd unit waits for it (ExecStartPost).
            waited = subprocess.run(
                [sys.executable, "deploy/wait_healthy.py", "--bind", f"127.0.0.1:{port}", "--within", "60"],
                cwd=PROJECT_DIR,
                capture_output=True,
                text=True,
                timeout=90,
            )
            assert waited.returncode == 0, waited.stderr + log_path.read_text(errors="replace")[-4000:]
            yield Site(f"http://127.0.0.1:{port}", cluster, log_path)
        finally:
            stop(process, signal.SIGTERM)


CLUSTER_MARKS = (
    # The server under test has a PostgreSQL of its own: run once, in the suite's PostgreSQL pass.
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="runs in the PostgreSQL pass (DATABASE_URL=postgres://...)"
    ),
    pytest.mark.skipif(postgres_cluster.unavailable() is not None, reason=str(postgres_cluster.unavailable())),
    pytest.mark.xdist_group("health_cluster"),  # one xdist worker: the cluster and gunicorn are made once
)


def on_the_cluster(test):
    for mark in CLUSTER_MARKS:
        test = mark(test)
    return test


@on_the_cluster
def test_readyz_names_the_database_while_it_is_stopped_and_is_ready_again_when_it_returns(site):
    ready = site.get("/readyz")
    assert ready.status_code == 200, ready.text
    assert {name: part["ok"] for name, part in ready.json()["checks"].items()} == {
        "database": True,
        "cache": True,
        "replica": True,
    }

    site.cluster.stop_primary()
    try:
        started = time.monotonic()
        stopped = site.get("/readyz")
        assert time.monotonic() - started < health.TIMEOUT + 1
        alive = site.get("/healthz")
    finally:
        site.cluster.start_primary()
    assert stopped.status_code == 503, stopped.text
    body = stopped.json()
    assert body["status"] == "fail" and body["failed"] == ["database"]
    assert body["checks"]["database"]["ok"] is False
    assert body["checks"]["database"]["error"] == "OperationalError"
    assert body["checks"]["cache"]["ok"] is True
    assert str(site.cluster.primary.port) not in stopped.text  # no address, no user name
    assert alive.status_code == 200  # the process still serves: nothing to restart
    assert "readyz: database failed: OperationalError: " in site.log_path.read_text()  # the whole error is logged

    back = site.get("/readyz")
    assert back.status_code == 200, back.text
    assert back.json()["checks"]["database"]["ok"] is True


@on_the_cluster
def test_readyz_names_a_stopped_replica_but_stays_ready(site):
    site.cluster.stop_replica()
    try:
        response = site.get("/readyz")
    finally:
        site.cluster.start_replica()
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "ok" and "failed" not in body
    assert body["checks"]["replica"]["ok"] is False and body["checks"]["replica"]["required"] is False
    assert body["checks"]["database"]["ok"] is True
    assert site.get("/readyz").json()["checks"]["replica"]["ok"] is True
