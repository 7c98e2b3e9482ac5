"""An edit reaches every gunicorn worker's pages within 2 s, with no shared cache.

One gunicorn with three sync workers (the suite's settings, no REDIS_URL: each
worker has its own local-memory cache) on a database of its own: a temporary
SQLite file when the suite runs on SQLite, a throwaway PostgreSQL database
next to the suite's when it runs on PostgreSQL. Every worker is warmed on a
student's view of the quiz (the API's quiz, which the content cache serves: an
attempt already started keeps the version it was shown), and requests go on
while a question's text is
edited, (a) through the admin over HTTP by a content editor, (b) with
``manage.py import_quiz`` in a process of its own. From the end of each edit,
no request that starts more than 2 s later may show the old text, and 30
requests in a row, answered by each of the three workers (gunicorn's access
log names the pid that answered each), show the new one.
"""

import json
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from itertools import count
from pathlib import Path

import pytest
import requests
from django.db import connection
from psycopg import sql

from tests.admin_forms import admin_url, form_data
from tests.concurrency import admin_connect, admin_params
from tests.concurrency.conftest import (
    FIXTURE_FILES,
    PROJECT_DIR,
    STARTUP_TIMEOUT,
    LiveApi,
    RaceDatabase,
    _free_port,
    _manage,
)

WORKERS = 3
FRESH_WITHIN = 2.0  # seconds from the end of an edit
IN_A_ROW = 30  # fresh answers in a row that end the wait
CONCURRENCY = 3  # requests in flight at once: a busy sync worker leaves the next one to another
GIVE_UP = 60.0  # seconds: a bound for a slow machine, far above what the checks need
GC = "gradient-checkpointing"

SETUP = """
import json, os
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from rest_framework.authtoken.models import Token
from quizzes.accounts.roles import CONTENT_EDITORS, staff_groups_ensure
from quizzes.attempts.services import attempt_start
from quizzes.enrollment.services import enrollment_create
from quizzes.models import Course, Quiz

call_command("loaddata", *json.loads(os.environ["FRESH_FIXTURES"]), verbosity=0)
User = get_user_model()
student = User.objects.create_user("fresh-student")
enrollment_create(user=student, course=Course.objects.get(slug="memory-efficient-training"))
attempt, _created = attempt_start(user=student, quiz=Quiz.objects.get(slug="gradient-checkpointing"))
editor = User.objects.create_user("fresh-editor", is_staff=True)
editor.groups.add(staff_groups_ensure()[CONTENT_EDITORS])
sessions = {}
for name, user in (("student", student), ("editor", editor)):
    client = Client()
    client.force_login(user)
    sessions[name] = client.cookies[settings.SESSION_COOKIE_NAME].value
print("FRESH=" + json.dumps({
    "attempt": attempt.pk,
    "question": attempt.quiz.questions.get(position=1).pk,
    "sessions": sessions,
    "session_cookie": settings.SESSION_COOKIE_NAME,
    "csrf_cookie": settings.CSRF_COOKIE_NAME,
    "token": Token.objects.create(user=student).key,
}))
"""

PID = re.compile(r"^<(\d+)> probe=(\S+)$")


class Site:
    """The live server, its student's question page, and who answered which request."""

    def __init__(self, server: LiveApi, env: dict, access_log: Path, setup: dict):
        self.server = server
        self.env = env
        self.access_log = access_log
        self.setup = setup
        self.page = f"{server.url}/api/v1/quizzes/gradient-checkpointing/"  # English: no Accept-Language
        self._numbers = count()

    def cookie(self, who: str) -> dict:
        return {"Cookie": f"{self.setup['session_cookie']}={self.setup['sessions'][who]}"}

    def question_text(self, probe: str) -> tuple[float, str]:
        """(when the request started, the question's text) of one request, tagged ``probe``
        in the access log. A new connection each time: nothing keeps it with one worker."""
        started = time.monotonic()
        response = requests.get(self.page, params={"probe": probe}, headers=self.cookie("student"), timeout=15)
        assert response.status_code == 200, (response.status_code, self.server.log_since(0)[-3000:])
        return started, response.json()["questions"][0]["text"]

    def probes(self, tag: str, number: int) -> list[str]:
        return [f"{tag}-{next(self._numbers)}" for _ in range(number)]

    def worker_of(self, probe: str) -> int | None:
        """Who answered ``probe``: gunicorn logs a request once it has answered it, a moment later."""
        give_up = time.monotonic() + 2
        while probe not in (found := self.answered_by([probe])) and time.monotonic() < give_up:
            time.sleep(0.05)
        return found.get(probe)

    def answered_by(self, probes) -> dict[str, int]:
        """The pid of the worker that answered each of ``probes`` (those logged so far)."""
        wanted, found = set(probes), {}
        for line in self.access_log.read_text(errors="replace").splitlines():
            match = PID.match(line)
            if match and match[2] in wanted:
                found[match[2]] = int(match[1])
        return found


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    work = tmp_path_factory.mktemp("freshness")
    env = {name: value for name, value in os.environ.items() if not name.startswith("DJANGO_")}
    env.pop("REDIS_URL", None)  # the embedded default: each worker's cache is its own
    env.update(
        # Production settings but for static files, served from the apps (no collectstatic to run).
        DJANGO_SETTINGS_MODULE="lms.settings_test",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=f"fresh-{secrets.token_urlsafe(48)}",
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_SECURE_SSL_REDIRECT="0",
        FRESH_FIXTURES=json.dumps(FIXTURE_FILES),
        PYTHONUNBUFFERED="1",
    )
    dbname = None
    if connection.vendor == "postgresql":
        # Next to the suite's own test database, named after it.
        dbname = f"{connection.settings_dict['NAME']}_live_{os.getpid()}"
        params = admin_params()
        password = f":{params['password']}" if params["password"] else ""
        env["DATABASE_URL"] = f"postgres://{params['user']}{password}@{params['host']}:{params['port']}/{dbname}"
        with admin_connect() as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(dbname)))
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(dbname)))
    else:
        env["DATABASE_URL"] = f"sqlite:///{work / 'live.sqlite3'}"
    process = None
    try:
        _manage(env, "migrate", "--noinput", "-v0")
        output = _manage(env, "shell", "-v0", "-c", SETUP)
        setup = json.loads(next(line for line in output.splitlines() if line.startswith("FRESH="))[6:])
        port = _free_port()
        error_log, access_log = work / "gunicorn.log", work / "access.log"
        command = [sys.executable, "-m", "gunicorn", "lms.wsgi:application", "--workers", str(WORKERS)]
        command += ["--no-control-socket", "--bind", f"127.0.0.1:{port}", "--timeout", "30"]
        command += ["--error-logfile", str(error_log), "--access-logfile", str(access_log)]
        command += ["--access-logformat", "%(p)s %(q)s"]  # "<pid> probe=..."
        with error_log.open("ab") as log:  # Django's errors too (to stderr)
            process = subprocess.Popen(command, cwd=PROJECT_DIR, env=env, stdout=log, stderr=log)
        database = RaceDatabase(
            dbname=dbname or "", env=env, tokens={"fresh-student": setup["token"]}, sessions={}, quizzes={}
        )
        server = LiveApi(url=f"http://127.0.0.1:{port}", database=database, process=process, log_path=error_log)
        if server.wait_healthy(setup["token"], within=STARTUP_TIMEOUT) is None or server.wait_workers(WORKERS) is None:
            raise RuntimeError(f"gunicorn did not come up:\n{server.log_since(0)[-4000:]}")
        yield Site(server, env, access_log, setup)
    finally:
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGQUIT)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
        if dbname is not None:
            with admin_connect() as admin:
                admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(dbname)))


def warm(site: Site, pool) -> str:
    """Ask for the page until every worker has answered it (and 30 requests at least): the text they show."""
    workers = set(site.server.worker_pids())
    assert len(workers) == WORKERS
    sent, texts = [], set()
    give_up = time.monotonic() + GIVE_UP
    while len(sent) < IN_A_ROW or set(site.answered_by(sent).values()) != workers:
        assert time.monotonic() < give_up, f"the warm-up reached {set(site.answered_by(sent).values())} of {workers}"
        batch = site.probes("warm", CONCURRENCY)
        texts |= {text for _started, text in pool.map(site.question_text, batch)}
        sent += batch
    assert len(texts) == 1, texts
    return texts.pop()


class KeptWarm:
    """Requests for the page, one after another, while an edit runs: each worker confirms the
    version it holds up to the moment of the edit, so the wait after it is the recheck's."""

    def __init__(self, site: Site, pool):
        self.site, self.pool, self.running = site, pool, True

    def __enter__(self):
        def keep():
            while self.running:
                self.site.question_text(self.site.probes("during", 1)[0])

        self.futures = [self.pool.submit(keep) for _ in range(CONCURRENCY)]
        return self

    def __exit__(self, *exc):
        self.running = False
        for future in self.futures:
            future.result(timeout=30)


def assert_fresh_everywhere(site: Site, pool, *, old: str, new: str, edited_at: float) -> dict[str, int]:
    """From ``edited_at``: no request started FRESH_WITHIN seconds later shows ``old``, and
    IN_A_ROW requests in a row, answered by every worker, show ``new``. Returns who answered those."""
    workers = set(site.server.worker_pids())
    deadline, give_up = edited_at + FRESH_WITHIN, edited_at + GIVE_UP
    in_a_row: list[str] = []
    while len(in_a_row) < IN_A_ROW or set(site.answered_by(in_a_row).values()) != workers:
        assert time.monotonic() < give_up, f"{len(in_a_row)} fresh in a row, from {site.answered_by(in_a_row)}"
        batch = site.probes("after", CONCURRENCY)
        for probe, (started, text) in zip(batch, pool.map(site.question_text, batch), strict=True):
            assert text in (old, new), text
            if text == new:
                in_a_row.append(probe)
            else:
                late = started - edited_at
                assert started < deadline, f"the old text {late:.2f} s after the edit, from {site.worker_of(probe)}"
                in_a_row.clear()
    answered = site.answered_by(in_a_row)
    assert set(answered.values()) == workers
    return answered


def test_an_admin_edit_reaches_every_worker(site):
    new = f"Edited through the admin, {secrets.token_hex(4)}: what does checkpointing trade?"
    with ThreadPoolExecutor(max_workers=2 * CONCURRENCY) as pool:
        old = warm(site, pool)
        change = f"{site.server.url}{admin_url('quizzes_question_change', site.setup['question'])}"
        form = requests.get(change, headers=site.cookie("editor"), timeout=15)
        assert form.status_code == 200, form.text[:300]
        data = form_data(form.text, "question_form")
        data.update({"text_en": new, "_save": "Save"})
        csrf = f"{site.setup['csrf_cookie']}={form.cookies[site.setup['csrf_cookie']]}"
        cookies = f"{site.cookie('editor')['Cookie']}; {csrf}"
        with KeptWarm(site, pool):
            saved = requests.post(change, data=data, headers={"Cookie": cookies}, allow_redirects=False, timeout=15)
            edited_at = time.monotonic()
        assert saved.status_code == 302, saved.text[:2000]
        assert_fresh_everywhere(site, pool, old=old, new=new, edited_at=edited_at)


def test_an_import_in_another_process_reaches_every_worker(site, tmp_path):
    new = f"Imported with import_quiz, {secrets.token_hex(4)}: what does checkpointing trade?"
    with ThreadPoolExecutor(max_workers=2 * CONCURRENCY) as pool:
        old = warm(site, pool)
        exported = _manage(site.env, "export_quiz", GC, "--language", "en")
        first = f"1. {old}\n"
        assert exported.count(first) == 1, exported[:500]
        quiz_file = tmp_path / "quiz.txt"
        quiz_file.write_text(exported.replace(first, f"1. {new}\n"), encoding="utf-8")
        with KeptWarm(site, pool):
            _manage(site.env, "import_quiz", str(quiz_file), "--quiz", GC, "--language", "en")
            edited_at = time.monotonic()
        assert_fresh_everywhere(site, pool, old=old, new=new, edited_at=edited_at)
