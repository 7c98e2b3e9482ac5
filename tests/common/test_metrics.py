"""/metrics (common/metrics.py, quizzes/metrics.py): Prometheus text for allowed addresses only,
the figures moved by what they count, the outbox read when scraped, and the counters of several
gunicorn workers added up (deploy/gunicorn.conf.py's multiprocess directory)."""

import json
import os
import re
import secrets
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone
from prometheus_client import REGISTRY

from quizzes.attempts.services import AttemptError, attempt_answer_submit, attempt_start
from quizzes.models import OutboxMessage
from tests.processes import free_port, stop, wait_ready

PROJECT_DIR = Path(__file__).resolve().parents[2]


def value(name: str, **labels) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def scrape(client=None, **extra) -> str:
    response = (client or Client()).get("/metrics", **extra)
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"].startswith("text/plain; version=")
    return response.content.decode()


def sample(text: str, name: str, **labels) -> float | None:
    """A sample's value in Prometheus text, or None when it is absent."""
    wanted = ",".join(f'{key}="{label}"' for key, label in sorted(labels.items()))
    pattern = rf"^{re.escape(name)}(?:\{{{re.escape(wanted)}\}})? (\S+)$" if wanted else rf"^{re.escape(name)} (\S+)$"
    found = re.search(pattern, text, flags=re.MULTILINE)
    return float(found.group(1)) if found else None


@pytest.mark.django_db
def test_only_allowed_addresses_read_the_metrics(settings):
    assert "# TYPE lms_http_request_duration_seconds histogram" in scrape(REMOTE_ADDR="127.0.0.1")
    assert Client().get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 404
    assert Client().get("/metrics", REMOTE_ADDR="not an address").status_code == 404
    settings.METRICS_ALLOWED_NETWORKS = ["10.0.0.0/8"]
    from common import metrics

    metrics._allowed_networks.cache_clear()
    try:
        assert Client().get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 200
        assert Client().get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 404
    finally:
        metrics._allowed_networks.cache_clear()


def test_an_answer_a_start_a_refusal_and_a_request_are_counted(student, gc_quiz, student_client):
    before = {
        "answers": value("lms_answers_recorded_total"),
        "started": value("lms_attempts_started_total", practice="false"),
        "refused": value("lms_refusals_total", code="already_answered"),
        "requests": value("lms_http_requests_total", route="quizzes:dashboard", method="GET", status="200"),
    }
    attempt, _new = attempt_start(user=student, quiz=gc_quiz)
    question = gc_quiz.questions.get(position=1)
    right, wrong = question.choices.get(is_correct=True), question.choices.filter(is_correct=False).first()
    attempt_answer_submit(
        user=student, attempt_id=attempt.pk, question_id=question.pk, choice_id=right.pk, language="en"
    )
    attempt_answer_submit(
        user=student, attempt_id=attempt.pk, question_id=question.pk, choice_id=right.pk, language="en"
    )
    with pytest.raises(AttemptError):
        attempt_answer_submit(
            user=student, attempt_id=attempt.pk, question_id=question.pk, choice_id=wrong.pk, language="en"
        )
    assert student_client.get("/en/").status_code == 200

    assert value("lms_answers_recorded_total") == before["answers"] + 1  # the replay is not counted again
    assert value("lms_attempts_started_total", practice="false") == before["started"] + 1
    assert value("lms_refusals_total", code="already_answered") == before["refused"] + 1
    requests = value("lms_http_requests_total", route="quizzes:dashboard", method="GET", status="200")
    assert requests == before["requests"] + 1


@pytest.mark.django_db
def test_the_outbox_backlog_is_read_when_scraped(settings):
    now = timezone.now()
    OutboxMessage.objects.create(
        kind=OutboxMessage.Kind.LTI_SCORE,
        key="a",
        subject_id=1,
        created_at=now - timezone.timedelta(minutes=5),
        due_at=now,
    )
    OutboxMessage.objects.create(
        kind=OutboxMessage.Kind.LTI_SCORE,
        key="b",
        subject_id=2,
        created_at=now,
        due_at=now,
        state=OutboxMessage.State.DELIVERED,
        delivered_at=now,
    )
    text = scrape(REMOTE_ADDR="127.0.0.1")
    assert sample(text, "lms_outbox_pending", kind="lti.score") == 1
    assert sample(text, "lms_outbox_pending", kind="xapi.answered") == 0
    assert 299 <= sample(text, "lms_outbox_oldest_pending_age_seconds") <= 400


def _production_env(tmp_path: Path, port: int) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith(("DJANGO_", "PROMETHEUS_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="lms.settings",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(64),
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_SECURE_SSL_REDIRECT="0",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        GUNICORN_BIND=f"127.0.0.1:{port}",
        GUNICORN_WORKERS="2",
        GUNICORN_ACCESSLOG="",
        REDIS_URL="",
    )
    return env


def _call(url: str, *, method: str = "GET", token: str | None = None, body: dict | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, method=method, data=json.dumps(body).encode() if body is not None else None)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Token {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@pytest.mark.xdist_group("gunicorn-metrics")
def test_the_counters_of_two_gunicorn_workers_are_added_up(tmp_path):
    """An answer through one worker is counted in the metrics any worker serves."""
    port = free_port()
    env = _production_env(tmp_path, port)
    setup = (
        "from django.core.management import call_command; from django.contrib.auth import get_user_model; "
        "from rest_framework.authtoken.models import Token; from quizzes.models import Course, Enrollment; "
        "import glob; call_command('migrate', interactive=False, verbosity=0); "
        "call_command('loaddata', *sorted(glob.glob('fixtures/*.json')), verbosity=0); "
        "user = get_user_model().objects.create_user('counted'); "
        "Enrollment.objects.create(user=user, course=Course.objects.get(slug='memory-efficient-training')); "
        "print(Token.objects.create(user=user).key)"
    )
    token = subprocess.run(
        [sys.executable, "manage.py", "shell", "-v0", "-c", setup],
        cwd=PROJECT_DIR,
        env=env,
        check=True,
        timeout=180,
        capture_output=True,
        text=True,
    ).stdout.strip()
    log = tmp_path / "gunicorn.log"
    command = [sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py", "--no-control-socket"]
    with log.open("w") as output:
        server = subprocess.Popen(command, cwd=PROJECT_DIR, env=env, stdout=output, stderr=output)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(
            lambda: _call(f"{url}/healthz")[0] == 200, what="gunicorn", within=30, process=server, log=log.read_text
        )
        status, body = _call(f"{url}/api/v1/quizzes/gradient-checkpointing/attempts/", method="POST", token=token)
        assert status == 201, body
        attempt = json.loads(body)
        question = attempt["questions"][0]
        status, body = _call(
            f"{url}/api/v1/attempts/{attempt['id']}/answers/",
            method="POST",
            token=token,
            body={"question": question["id"], "choice": question["choices"][0]["id"]},
        )
        assert status == 201, body
        for _scrape in range(8):  # several connections: both workers serve some
            status, text = _call(f"{url}/metrics")
            assert status == 200
            assert sample(text, "lms_answers_recorded_total") == 1
            assert sample(text, "lms_attempts_started_total", practice="false") == 1
        assert sample(text, "lms_http_requests_total", route="api:answer-create", method="POST", status="201") == 1
    finally:
        stop(server, signal.SIGTERM)


def test_a_page_that_says_a_quiz_is_closed_counts_no_refusal(student, gc_quiz, student_client):
    gc_quiz.closes_at = timezone.now() - timezone.timedelta(days=1)
    gc_quiz.save(update_fields=["closes_at"])
    before = value("lms_refusals_total", code="quiz_closed")

    assert student_client.get(f"/en/quizzes/{gc_quiz.slug}/").status_code == 200
    assert value("lms_refusals_total", code="quiz_closed") == before
    with pytest.raises(AttemptError):
        attempt_start(user=student, quiz=gc_quiz)
    assert value("lms_refusals_total", code="quiz_closed") == before + 1
