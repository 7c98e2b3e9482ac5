"""Logs (lms/logs.py, common/log_format.py, common/request_id.py): with debug off an unhandled
exception reaches stderr, one record with its traceback, the request's method, path and id, and
the response carries the same id; under gunicorn too; no credential, cookie or password is
written."""

import logging
import os
import re
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from django.core.exceptions import ImproperlyConfigured
from django.test import Client

from common.log_format import redact
from lms.logs import logging_config
from tests.common.logging_urls import FAILURE
from tests.processes import free_port, stop, wait_ready

PROJECT_DIR = Path(__file__).resolve().parents[2]
GUNICORN_CONF = PROJECT_DIR / "deploy" / "gunicorn.conf.py"
NEW_ID = re.compile(r"[0-9a-f]{32}")
RECORD = re.compile(
    r"(?P<time>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) (?P<level>[A-Z]+) (?P<logger>\S+) request_id=(?P<request_id>\S+)"
    r"(?: method=(?P<method>\S+) path=(?P<path>\S+))? (?P<message>.*)"
)


@dataclass
class Record:
    line: str
    more: list[str]  # the lines that continue it (a traceback), as written: indented

    @property
    def fields(self) -> dict:
        match = RECORD.fullmatch(self.line)
        assert match, f"not one of the app's records: {self.line!r}"
        return match.groupdict()


def records(log: str) -> list[Record]:
    """The records of ``log``: a line that starts with a space continues the record above it."""
    found: list[Record] = []
    for line in log.splitlines():
        if line.startswith(" ") and found:
            found[-1].more.append(line)
        else:
            found.append(Record(line, []))
    return found


def errors(log: str) -> list[Record]:
    return [record for record in records(log) if RECORD.fullmatch(record.line) and record.fields["level"] == "ERROR"]


@pytest.fixture
def test_urls(settings):
    settings.ROOT_URLCONF = "tests.common.logging_urls"
    assert not settings.DEBUG


def test_an_unhandled_exception_is_one_error_record_with_its_traceback_and_request(test_urls, capsys):
    response = Client(raise_request_exception=False).post("/test-only/fails/")

    assert response.status_code == 500
    assert NEW_ID.fullmatch(response["X-Request-ID"])
    (error,) = errors(capsys.readouterr().err)
    assert error.fields | {"time": None} == {
        "time": None,
        "level": "ERROR",
        "logger": "django.request",
        "request_id": response["X-Request-ID"],
        "method": "POST",
        "path": "/test-only/fails/",
        "message": "Internal Server Error: /test-only/fails/",
    }
    assert error.more[0] == "  Traceback (most recent call last):"
    assert any(line.endswith("in fails") for line in error.more)
    assert error.more[-1] == f"  RuntimeError: {FAILURE}"


def test_a_newline_in_a_message_or_path_cannot_start_a_record_of_its_own(test_urls, capsys):
    forged = "2026-01-01T00:00:00.000Z ERROR forged request_id=x forged"
    logging.getLogger("quizzes").warning("first line\n%s", forged)
    response = Client().get(f"/test-only/missing%0A{forged.replace(' ', '%20')}")

    assert response.status_code == 404
    written, not_found = records(capsys.readouterr().err)
    assert written.fields["message"] == "first line" and written.more == [f"  {forged}"]
    # The path field is quoted; Django escapes the path in its own message.
    assert not_found.fields["path"] == "/test-only/missing%0A" + forged.replace(" ", "%20")
    assert not_found.more == [] and not_found.fields["message"].startswith("Not Found: /test-only/missing\\n")


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("3f0c9a1e5b7d4c2a8e6f0b1d3c5a7e9f", True),  # nginx's $request_id
        ("report-2026.03_01", True),
        ("x" * 64, True),
        ("x" * 65, False),
        ("two words", False),
        ("id;rm", False),
        ("idé", False),
        ("", False),
    ],
)
def test_a_sane_request_id_is_echoed_and_any_other_replaced(test_urls, capsys, sent, kept):
    response = Client().get("/test-only/answers/", headers={"X-Request-ID": sent})

    assert response.status_code == 200
    if kept:
        assert response["X-Request-ID"] == sent
    else:
        assert NEW_ID.fullmatch(response["X-Request-ID"])


def test_every_response_has_an_id_of_its_own(db):
    client = Client()
    ids = {client.get("/api/v1/progress/")["X-Request-ID"] for _ in range(3)}  # 401: no credentials
    ids.add(client.get("/en/no-such-page/")["X-Request-ID"])
    assert len(ids) == 4 and all(NEW_ID.fullmatch(one) for one in ids)


def test_credentials_cookies_and_passwords_never_reach_the_log(db, test_urls, capsys):
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION="Token secret123")
    client.cookies["sessionid"] = "sessionkey456xyz"
    for url in ("/test-only/fails/", "/test-only/fails-quoting-credentials/"):
        response = client.post(url, {"username": "student", "password": "hunter2-password"})
        assert response.status_code == 500

    log = capsys.readouterr().err
    assert len(errors(log)) == 2
    assert FAILURE in log and "[redacted]" in log  # the second one's message quoted them
    for secret in ("secret123", "sessionkey456xyz", "hunter2-password"):
        assert secret not in log


def test_the_level_comes_from_the_environment_and_sql_is_never_logged():
    assert logging_config({})["root"]["level"] == "INFO"
    debug = logging_config({"DJANGO_LOG_LEVEL": " debug "})
    assert debug["root"]["level"] == debug["loggers"]["django"]["level"] == "DEBUG"
    assert debug["loggers"]["django.db.backends"]["level"] == "INFO"  # its DEBUG records are SQL with parameters
    assert logging_config({"DJANGO_LOG_LEVEL": "ERROR"})["loggers"]["django.db.backends"]["level"] == "ERROR"
    with pytest.raises(ImproperlyConfigured, match="DJANGO_LOG_LEVEL"):
        logging_config({"DJANGO_LOG_LEVEL": "verbose"})


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("Authorization: Token 0123456789abcdef", "Authorization: [redacted]"),
        ("HTTP_COOKIE': 'sessionid=abc; csrftoken=def'", "HTTP_COOKIE': '[redacted]'"),
        ("sent Bearer eyJhbGciOi.J9x1 to", "sent Bearer [redacted] to"),
        ("password=x&next=/en/", "password=[redacted]&next=/en/"),
        (
            "{'new_password1': ['pw'], 'csrfmiddlewaretoken': ['t']}",
            "{'new_password1': ['[redacted]'], 'csrfmiddlewaretoken': ['[redacted]']}",
        ),
        ('{"correct_choice": 12, "is_correct": true}', '{"correct_choice": [redacted], "is_correct": [redacted]}'),
        ("Invalid token header. No credentials provided.", "Invalid token header. No credentials provided."),
    ],
)
def test_what_looks_like_a_secret_is_redacted_and_prose_is_left(text, written):
    assert redact(text) == written


def test_under_gunicorn_the_traceback_reaches_its_stderr_and_the_access_log_names_the_request(tmp_path):
    port = free_port()
    env = {name: value for name, value in os.environ.items() if not name.startswith(("GUNICORN_", "DJANGO_"))}
    env |= {
        "DJANGO_SETTINGS_MODULE": "tests.common.logging_settings",
        "DJANGO_DEBUG": "0",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "DATABASE_REPLICA_URL": "",
        "REDIS_URL": "",
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_WORKERS": "1",
    }
    url = f"http://127.0.0.1:{port}"
    stdout, stderr = tmp_path / "stdout.log", tmp_path / "stderr.log"
    with stdout.open("wb") as out, stderr.open("wb") as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", str(GUNICORN_CONF), "--no-control-socket"],
            cwd=PROJECT_DIR,
            env=env,
            stdout=out,
            stderr=err,
        )
    try:
        wait_ready(
            lambda: requests.get(f"{url}/test-only/answers/", timeout=5).status_code == 200,
            what="gunicorn did not answer",
            within=60,
            process=process,
            log=lambda: stderr.read_text(errors="replace"),
        )
        response = requests.get(f"{url}/test-only/fails/", headers={"X-Request-ID": "user-report.42"}, timeout=10)
    finally:
        stop(process, signal.SIGTERM)

    assert response.status_code == 500 and response.headers["X-Request-ID"] == "user-report.42"
    log = stderr.read_text(errors="replace")
    (error,) = errors(log)
    assert error.fields["request_id"] == "user-report.42", log
    assert (error.fields["method"], error.fields["path"]) == ("GET", "/test-only/fails/")
    assert "  Traceback (most recent call last):" in error.more and error.more[-1] == f"  RuntimeError: {FAILURE}"
    access = [line for line in stdout.read_text().splitlines() if '"GET /test-only/fails/ HTTP/1.1" 500' in line]
    assert len(access) == 1 and access[0].endswith(" user-report.42"), stdout.read_text()
