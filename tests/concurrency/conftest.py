"""Live gunicorns (production settings) on a throwaway PostgreSQL database.

``race_database`` (session-scoped) creates ``lms_race_<pid>`` on the PostgreSQL server
of the test settings, migrates it (``manage.py migrate``), loads fixtures/*.json and
creates a pool of enrolled students with API tokens and logged-in web sessions (one
``manage.py shell -c``), and drops it at the end. Two servers use it, each handing out
students no other test has used:

- ``live_api``: gunicorn (4 sync workers) connected to PostgreSQL directly; shared
  by test_races.py and test_faults.py.
- ``live_api_pgbouncer``: gunicorn (4 workers x 2 threads) connected through a real
  PgBouncer in transaction mode (``pgbouncer``, tests/pgbouncer.py), with the
  default settings otherwise (static files from the apps: live_settings.py), for the
  API and the web pages; test_pgbouncer.py.

They are only set up for a test that runs, so never on SQLite. Names and ports are
per process (the pid, free ports): parallel workers (pytest-xdist) do not meet.
"""

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path

import pytest
import requests
from psycopg import sql

from tests import pgbouncer as pgbouncer_process
from tests.concurrency import WORKERS, admin_connect, admin_params
from tests.processes import free_port as _free_port
from tests.processes import stop

PROJECT_DIR = Path(__file__).resolve().parent.parent.parent
FIXTURE_FILES = sorted(str(path) for path in (PROJECT_DIR / "fixtures").glob("*.json"))
POOL_SIZE = 64
STARTUP_TIMEOUT = 30.0

# One manage.py process for the fixtures and the students: each Django start costs a second or two.
LOAD_AND_CREATE_STUDENTS = """
import json, os
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.core.management import call_command
from rest_framework.authtoken.models import Token
from quizzes.models import Course, Quiz
from quizzes.enrollment.services import enrollment_create

call_command("loaddata", *json.loads(os.environ["RACE_FIXTURES"]), verbosity=0)
course = Course.objects.get(slug="memory-efficient-training")
tokens, sessions = {}, {}
for number in range(int(os.environ["RACE_STUDENTS"])):
    user = get_user_model()(username=f"racer-{number:03d}")
    user.set_unusable_password()
    user.save()
    enrollment_create(user=user, course=course)
    tokens[user.username] = Token.objects.create(user=user).key
    # Logged in on the web, as the login view would leave the session.
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "quizzes.accounts.backends.StatementModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    sessions[user.username] = session.session_key
quizzes = {
    quiz.slug: [
        {
            "id": question.pk,
            "position": question.position,
            "choices": [{"id": c.pk, "correct": c.is_correct} for c in question.choices.order_by("position")],
        }
        for question in quiz.questions.order_by("position")
    ]
    for quiz in Quiz.objects.filter(course=course)
}
print("STUDENTS=" + json.dumps({"tokens": tokens, "sessions": sessions, "quizzes": quizzes}))
"""


@dataclass
class RaceDatabase:
    """The throwaway database of the live servers, and its students (shared by them)."""

    dbname: str
    env: dict[str, str]
    tokens: dict[str, str]
    sessions: dict[str, str]
    quizzes: dict[str, list[dict]]
    # The PostgreSQL server it is on (admin_params()'s keys): the tests' own unless told otherwise.
    server: dict = field(default_factory=admin_params)
    _next: count = field(default_factory=count)

    def students(self, number: int) -> list[tuple[str, str]]:
        """``number`` students (username, token) no other test has used, on any server."""
        names = sorted(self.tokens)
        picked = [names[next(self._next)] for _ in range(number)]
        return [(name, self.tokens[name]) for name in picked]


@dataclass
class LiveApi:
    url: str
    database: RaceDatabase
    process: subprocess.Popen
    log_path: Path

    @property
    def dbname(self) -> str:
        return self.database.dbname

    @property
    def tokens(self) -> dict[str, str]:
        return self.database.tokens

    @property
    def sessions(self) -> dict[str, str]:
        """Each student's web session key (the ``sessionid`` cookie)."""
        return self.database.sessions

    @property
    def quizzes(self) -> dict[str, list[dict]]:
        return self.database.quizzes

    def students(self, number: int) -> list[tuple[str, str]]:
        """``number`` students (username, token) no other test has used."""
        return self.database.students(number)

    def page(self, path: str) -> str:
        return f"{self.url}/{path.lstrip('/')}"

    def api(self, path: str) -> str:
        return f"{self.url}/api/v1/{path.lstrip('/')}"

    def query(self, statement: str, params=()) -> list[tuple]:
        """Rows from the server's database (a short connection of its own)."""
        with admin_connect(self.dbname, self.database.server) as connection:
            return connection.execute(statement, params).fetchall()

    @property
    def master_pid(self) -> int:
        return self.process.pid

    def worker_pids(self) -> list[int]:
        """The master's live child processes: its workers."""
        children = Path(f"/proc/{self.master_pid}/task/{self.master_pid}/children")
        if children.exists():
            pids = [int(pid) for pid in children.read_text().split()]
        else:
            ps = subprocess.run(["ps", "--ppid", str(self.master_pid), "-o", "pid="], capture_output=True, text=True)
            pids = [int(pid) for pid in ps.stdout.split()]
        return [pid for pid in pids if _alive(pid)]

    def log_size(self) -> int:
        return self.log_path.stat().st_size if self.log_path.exists() else 0

    def log_since(self, offset: int) -> str:
        if not self.log_path.exists():
            return ""
        with self.log_path.open("rb") as log:
            log.seek(offset)
            return log.read().decode(errors="replace")

    def healthy(self, token: str, timeout: float = 2.0) -> bool:
        try:
            response = requests.get(self.api("quizzes/"), headers={"Authorization": f"Token {token}"}, timeout=timeout)
        except requests.RequestException:
            return False
        return response.status_code == 200

    def wait_healthy(self, token: str, within: float) -> float | None:
        """Seconds until a request succeeds (polling every 50 ms), None if not within ``within``."""
        started = time.monotonic()
        while time.monotonic() - started < within:
            if self.healthy(token, timeout=max(0.2, within - (time.monotonic() - started))):
                return time.monotonic() - started
            time.sleep(0.05)
        return None

    def wait_workers(self, number: int = WORKERS, within: float = 10.0) -> float | None:
        started = time.monotonic()
        while time.monotonic() - started < within:
            if len(self.worker_pids()) >= number:
                return time.monotonic() - started
            time.sleep(0.05)
        return None


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in {"Z", "X"}


def _manage(env: dict, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args[:2])} failed:\n{result.stdout}\n{result.stderr}")
    return result.stdout


@pytest.fixture(scope="session")
def race_database():
    with race_database_on(admin_params(), f"lms_race_{os.getpid()}") as database:
        yield database


@contextmanager
def race_database_on(params: dict, dbname: str):
    """The race database ``dbname``, made on the PostgreSQL server of ``params`` (admin_params()'s keys)."""
    password = f":{params['password']}" if params["password"] else ""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "lms.settings",
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": f"race-{secrets.token_urlsafe(48)}",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        # API throttles out of the way (both spellings: the brief's, and settings.py's).
        "DJANGO_API_USER_RATE": "100000/min",
        "DJANGO_API_ANON_RATE": "100000/min",
        "DJANGO_API_THROTTLE_USER": "100000/min",
        "DJANGO_API_THROTTLE_ANON": "100000/min",
        "DATABASE_URL": f"postgres://{params['user']}{password}@{params['host']}:{params['port']}/{dbname}",
        "RACE_STUDENTS": str(POOL_SIZE),
        "RACE_FIXTURES": json.dumps(FIXTURE_FILES),
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("REDIS_URL", None)  # the server keeps its (throttle) cache to itself

    drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(dbname))
    with admin_connect(server=params) as admin:
        admin.execute(drop)
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(dbname)))
    try:
        _manage(env, "migrate", "--noinput", "-v0")
        output = _manage(env, "shell", "-v0", "-c", LOAD_AND_CREATE_STUDENTS)
        students = json.loads(next(line for line in output.splitlines() if line.startswith("STUDENTS="))[9:])
        yield RaceDatabase(dbname=dbname, env=env, server=params, **students)
    finally:
        with admin_connect(server=params) as admin:
            admin.execute(drop)


@contextmanager
def serving(database: RaceDatabase, log_path: Path, *, env: dict | None = None, threads: int = 1):
    """gunicorn (``WORKERS`` workers, ``threads`` threads each) on ``database`` for the block."""
    port = _free_port()
    command = [sys.executable, "-m", "gunicorn", "lms.wsgi:application", "--bind", f"127.0.0.1:{port}"]
    command += ["--workers", str(WORKERS), "--no-control-socket", "--timeout", "30", "--graceful-timeout", "5"]
    if threads > 1:
        command += ["--worker-class", "gthread", "--threads", str(threads)]
    command += ["--error-logfile", str(log_path)]
    process = subprocess.Popen(
        command,
        cwd=PROJECT_DIR,
        env={**database.env, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        server = LiveApi(url=f"http://127.0.0.1:{port}", database=database, process=process, log_path=log_path)
        probe_token = next(iter(server.tokens.values()))
        if server.wait_healthy(probe_token, within=STARTUP_TIMEOUT) is None or server.wait_workers() is None:
            raise RuntimeError(f"gunicorn did not come up:\n{server.log_since(0)[-4000:]}")
        yield server
    finally:
        stop(process, signal.SIGQUIT, timeout=10)  # quick shutdown: idle workers don't linger


@pytest.fixture(scope="session")
def live_api(race_database, tmp_path_factory):
    with serving(race_database, tmp_path_factory.mktemp("live_api") / "gunicorn.log") as server:
        yield server


@pytest.fixture(scope="session")
def pgbouncer():
    """A PgBouncer (transaction pooling, a pool of 5) in front of the tests' PostgreSQL server."""
    reason = pgbouncer_process.unavailable()
    if reason:
        pytest.skip(reason)
    params = admin_params()
    with pgbouncer_process.running(
        server_host=params["host"], server_port=params["port"], user=params["user"], password=params["password"]
    ) as bouncer:
        yield bouncer


@pytest.fixture(scope="session")
def live_api_pgbouncer(race_database, pgbouncer, tmp_path_factory):
    """gunicorn, 4 workers x 2 threads, whose DATABASE_URL is PgBouncer's; the default settings otherwise."""
    params = admin_params()
    password = f":{params['password']}" if params["password"] else ""
    database_url = f"postgres://{params['user']}{password}@{pgbouncer.host}:{pgbouncer.port}/{race_database.dbname}"
    log_path = tmp_path_factory.mktemp("live_api_pgbouncer") / "gunicorn.log"
    # It serves the web pages too: their static files from the apps (live_settings.py).
    env = {"DATABASE_URL": database_url, "DJANGO_SETTINGS_MODULE": "tests.concurrency.live_settings"}
    with serving(race_database, log_path, env=env, threads=2) as server:
        yield server
