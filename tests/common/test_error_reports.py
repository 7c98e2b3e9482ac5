"""Errors to Sentry (lms/error_reports.py): off without SENTRY_DSN; with it, an unhandled error
reaches a Sentry endpoint (a loopback stand-in that keeps what it is sent) with its exception and
the request's id, and none of the request's credentials, cookies or body."""

import gzip
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import brotli
import pytest

from lms.error_reports import error_reports_init
from tests.common.logging_urls import FAILURE

pytestmark = pytest.mark.database_independent

PROJECT_DIR = Path(__file__).resolve().parents[2]

SECRETS = ("token-secret-123", "cookie-secret-456", "password-secret-789")


class _Sentry(BaseHTTPRequestHandler):
    received: list[bytes] = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        encoding = self.headers.get("Content-Encoding")
        if encoding == "gzip":
            body = gzip.decompress(body)
        elif encoding == "br":
            body = brotli.decompress(body)
        self.received.append(body)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def sentry_endpoint():
    _Sentry.received = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Sentry)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://publickey@127.0.0.1:{server.server_address[1]}/1", _Sentry.received
    finally:
        server.shutdown()


def test_without_a_dsn_nothing_starts():
    assert error_reports_init({}) is False
    assert error_reports_init({"SENTRY_DSN": "  "}) is False


# A process of its own: the settings start Sentry as a site's do, and its patches of Django stay
# out of the test process.
FAILING_REQUEST = f"""
import django, sentry_sdk
django.setup()
from django.test import Client
from django.test.utils import override_settings, setup_test_environment
setup_test_environment()
assert sentry_sdk.get_client().options["send_default_pii"] is False
with override_settings(ROOT_URLCONF="tests.common.logging_urls", DEBUG=False):
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION="Token {SECRETS[0]}")
    client.cookies["sessionid"] = "{SECRETS[1]}"
    response = client.post("/test-only/fails/", {{"password": "{SECRETS[2]}"}}, HTTP_X_REQUEST_ID="report-me-42")
sentry_sdk.flush(timeout=10)
print(response.status_code, response["X-Request-ID"])
"""


def test_an_unhandled_error_reaches_sentry_without_personal_data(sentry_endpoint):
    dsn, received = sentry_endpoint
    env = {**os.environ, "SENTRY_DSN": dsn, "DJANGO_SETTINGS_MODULE": "lms.settings_test", "DATABASE_URL": ""}
    run = subprocess.run(
        [sys.executable, "-c", FAILING_REQUEST], cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=120
    )

    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.split() == ["500", "report-me-42"]
    sent = b"".join(received).decode()
    assert "RuntimeError" in sent and FAILURE in sent and "report-me-42" in sent
    assert not [secret for secret in SECRETS if secret in sent]
