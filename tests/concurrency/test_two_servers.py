"""Two gunicorn servers sharing one PostgreSQL database and one Redis (docs/performance.md).

A load balancer may send a student's requests to either server, and a double
click to both at once. Every answer here is sent to both servers at the same
moment: exactly one records it (201), the other returns the same feedback
(200), and the database holds one row per (attempt, question), none lost.
And the quiz content cached in Redis follows an edit on both servers at once.
PostgreSQL only (the row locks are what is tested); Redis db 14 (or TEST_REDIS_DB), keys under
a prefix of this module's own, deleted at the end.
"""

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from psycopg import sql

from quizzes.content.cache import VERSION_RECHECK
from tests.concurrency import admin_connect, admin_params, requires_postgresql
from tests.processes import free_port as _free_port

# On one xdist worker with the other tests on Redis (tests/conftest.py).
pytestmark = [requires_postgresql, pytest.mark.xdist_group("redis")]

PROJECT_DIR = Path(__file__).resolve().parent.parent.parent
FIXTURE_FILES = sorted(str(path) for path in (PROJECT_DIR / "fixtures").glob("*.json"))
REDIS_URL = f"redis://127.0.0.1:6379/{os.environ.get('TEST_REDIS_DB', '14')}"
STUDENTS = 12
GC = "gradient-checkpointing"

SETUP = """
import json, os
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.authtoken.models import Token
from quizzes.models import Course, Quiz
from quizzes.enrollment.services import enrollment_create

call_command("loaddata", *json.loads(os.environ["TWO_FIXTURES"]), verbosity=0)
course = Course.objects.get(slug="memory-efficient-training")
tokens = []
for number in range(int(os.environ["TWO_STUDENTS"])):
    user = get_user_model().objects.create_user(f"two-{number:02d}")
    enrollment_create(user=user, course=course)
    tokens.append(Token.objects.create(user=user).key)
quiz = Quiz.objects.get(slug="gradient-checkpointing")
questions = [
    {"id": q.pk, "choices": [c.pk for c in q.choices.order_by("position")]}
    for q in quiz.questions.order_by("position")
]
print("TWO=" + json.dumps({"tokens": tokens, "questions": questions}))
"""


def _redis_reachable() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=0.5) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _manage(env, *args) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def two_servers(tmp_path_factory):
    if not _redis_reachable():
        pytest.skip("needs Redis at 127.0.0.1:6379")
    dbname = f"lms_two_{os.getpid()}"
    work = tmp_path_factory.mktemp("two_servers")
    params = admin_params()
    password = f":{params['password']}" if params["password"] else ""
    prefix = f"two-{secrets.token_hex(6)}"
    env = {name: value for name, value in os.environ.items() if not name.startswith("DJANGO_")}
    env.update(
        DJANGO_SETTINGS_MODULE="lms.settings",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(48),
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_NUM_PROXIES="0",
        DJANGO_API_THROTTLE_USER="100000/min",
        DJANGO_API_THROTTLE_ANON="100000/min",
        DATABASE_URL=f"postgres://{params['user']}{password}@{params['host']}:{params['port']}/{dbname}",
        REDIS_URL=REDIS_URL,
        DJANGO_CACHE_KEY_PREFIX=prefix,
        TWO_FIXTURES=json.dumps(FIXTURE_FILES),
        TWO_STUDENTS=str(STUDENTS),
    )
    with admin_connect() as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(dbname)))
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(dbname)))
    servers = []
    try:
        _manage(env, "migrate", "--noinput", "-v0")
        output = _manage(env, "shell", "-v0", "-c", SETUP)
        data = json.loads(next(line for line in output.splitlines() if line.startswith("TWO="))[4:])
        urls = []
        for _ in range(2):
            port = _free_port()
            log = (work / f"gunicorn-{port}.log").open("w")
            command = [sys.executable, "-m", "gunicorn", "lms.wsgi:application", "--workers", "2", "--threads", "2"]
            command += ["--worker-class", "gthread", "--no-control-socket", "--bind", f"127.0.0.1:{port}"]
            servers.append(subprocess.Popen(command, cwd=PROJECT_DIR, env=env, stdout=log, stderr=log))
            urls.append(f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 30
        for url in urls:
            while True:
                try:
                    if requests.get(f"{url}/api/v1/progress/", timeout=2).status_code == 401:
                        break
                except requests.RequestException:
                    pass
                assert time.monotonic() < deadline, f"gunicorn at {url} did not start"
                time.sleep(0.1)
        yield {"urls": urls, "env": env, "dbname": dbname, **data}
    finally:
        for server in servers:
            server.send_signal(signal.SIGINT)
        for server in servers:
            server.wait(timeout=15)
        import redis

        client = redis.Redis.from_url(REDIS_URL)
        keys = list(client.scan_iter(f"{prefix}:*"))
        if keys:
            client.delete(*keys)
        with admin_connect() as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(dbname)))


def _post(url: str, token: str, body=None) -> tuple[int, dict]:
    response = requests.post(url, json=body, headers={"Authorization": f"Token {token}"}, timeout=30)
    return response.status_code, response.json()


def test_every_answer_sent_to_both_servers_is_recorded_once(two_servers):
    urls, tokens, questions = two_servers["urls"], two_servers["tokens"], two_servers["questions"]
    attempts = {}
    for index, token in enumerate(tokens):  # started on either server
        status, body = _post(f"{urls[index % 2]}/api/v1/quizzes/{GC}/attempts/", token)
        assert status == 201, body
        attempts[token] = body["id"]

    # Student i answers question q with choice (i + q) % 4: a known pattern to check the rows against.
    jobs = [
        (url, token, question, question["choices"][(index + number) % len(question["choices"])])
        for index, token in enumerate(tokens)
        for number, question in enumerate(questions)
        for url in urls
    ]

    def answer(job):
        url, token, question, choice = job
        path = f"{url}/api/v1/attempts/{attempts[token]}/answers/"
        return (token, question["id"]), _post(path, token, {"question": question["id"], "choice": choice})

    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(answer, jobs))

    by_pair: dict[tuple, list] = {}
    for pair, outcome in results:
        by_pair.setdefault(pair, []).append(outcome)
    assert len(by_pair) == STUDENTS * len(questions)
    for pair, outcomes in by_pair.items():
        assert sorted(status for status, _body in outcomes) == [200, 201], (pair, outcomes)
        assert outcomes[0][1] == outcomes[1][1], "both servers give the recorded answer's feedback"

    with admin_connect(two_servers["dbname"]) as connection:
        rows = connection.execute(
            "SELECT attempt_id, question_id, choice_id, count(*) OVER (PARTITION BY attempt_id, question_id) "
            "FROM quizzes_answer WHERE attempt_id = ANY(%s)",
            [list(attempts.values())],
        ).fetchall()
    assert len(rows) == STUDENTS * len(questions)
    assert {count for *_ids, count in rows} == {1}
    expected = {
        (attempts[token], question["id"], question["choices"][(index + number) % len(question["choices"])])
        for index, token in enumerate(tokens)
        for number, question in enumerate(questions)
    }
    assert {(attempt, question, choice) for attempt, question, choice, _count in rows} == expected


def test_an_edit_reaches_the_cached_content_of_both_servers(two_servers):
    """The quiz content is cached in Redis: an editor's save() in another process must reach both
    servers within VERSION_RECHECK seconds, and the next attempt (an attempt in progress keeps
    the versions it was shown) is checked and given feedback by the edited version."""
    urls, questions = two_servers["urls"], two_servers["questions"]
    token = two_servers["tokens"][-1]
    status, attempt = _post(f"{urls[0]}/api/v1/quizzes/{GC}/attempts/", token)
    assert status in (200, 201), attempt
    answers = f"/api/v1/attempts/{attempt['id']}/answers/"
    # Not answered by the first test's pattern for this student? Any unanswered question will do.
    recorded = {answer["question"] for answer in attempt["answers"]}
    open_questions = [question for question in questions if question["id"] not in recorded]
    if len(open_questions) < 2:  # the first test answered them all: a fresh attempt after finishing
        _post(f"{urls[1]}/api/v1/attempts/{attempt['id']}/finish/", token)
        status, attempt = _post(f"{urls[1]}/api/v1/quizzes/{GC}/attempts/", token)
        assert status == 201, attempt
        answers = f"/api/v1/attempts/{attempt['id']}/answers/"
        open_questions = questions
    explained, archived_in = open_questions[0], open_questions[1]
    # Warm the cache on both servers (their feedback comes from it).
    for url in urls:
        requests.get(f"{url}/api/v1/attempts/{attempt['id']}/", headers={"Authorization": f"Token {token}"}, timeout=30)
    warmed = time.monotonic()

    edit = f"""
from quizzes.models import Choice, Question
question = Question.objects.get(pk={explained["id"]})
question.explanation_en = "Edited in another process."
question.explanation_ur = ""
question.save()
choice = Choice.objects.get(pk={archived_in["choices"][-1]})
choice.is_archived = True
choice.save()
"""
    _manage(two_servers["env"], "shell", "-v0", "-c", edit)
    # A server confirms its cached content's version at most every VERSION_RECHECK seconds:
    # the edit is promised within that time, not at once (the shell may take less).
    time.sleep(max(0.0, warmed + VERSION_RECHECK - time.monotonic()))

    # Both servers' cached content shows the edit: the archived choice is offered no more.
    for url in urls:
        quiz = requests.get(f"{url}/api/v1/quizzes/{GC}/", headers={"Authorization": f"Token {token}"}, timeout=30)
        (shown,) = [question for question in quiz.json()["questions"] if question["id"] == archived_in["id"]]
        assert archived_in["choices"][-1] not in [choice["id"] for choice in shown["choices"]]
    # The attempt in progress keeps the versions it was shown; the next one has the edit.
    _post(f"{urls[0]}/api/v1/attempts/{attempt['id']}/finish/", token)
    status, attempt = _post(f"{urls[1]}/api/v1/quizzes/{GC}/attempts/", token)
    assert status == 201, attempt
    answers = f"/api/v1/attempts/{attempt['id']}/answers/"
    status, body = _post(
        f"{urls[1]}{answers}?lang=ur", token, {"question": explained["id"], "choice": explained["choices"][0]}
    )
    assert status == 201, body
    assert (body["explanation"], body["explanation_language"]) == ("Edited in another process.", "en")
    status, body = _post(
        f"{urls[0]}{answers}", token, {"question": archived_in["id"], "choice": archived_in["choices"][-1]}
    )
    assert (status, body["code"]) == (400, "choice_not_in_question"), body
