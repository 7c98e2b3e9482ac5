"""Errors to Sentry (lms/error_reports.py): off without SENTRY_DSN; with it, an unhandled error
reaches a Sentry endpoint (a loopback stand-in that keeps what it is sent) with its exception and
the request's id, and none of the request's credentials, cookies or body."""

import gzip
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import brotli
import pytest
import sentry_sdk
from django.test import Client

from lms.error_reports import error_reports_init
from tests.common.logging_urls import FAILURE

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
        sentry_sdk.init()  # no DSN: off again for the rest of the suite
        server.shutdown()


def test_without_a_dsn_nothing_starts():
    assert error_reports_init({}) is False
    assert error_reports_init({"SENTRY_DSN": "  "}) is False


def test_an_unhandled_error_reaches_sentry_without_personal_data(db, settings, sentry_endpoint):
    settings.ROOT_URLCONF = "tests.common.logging_urls"
    dsn, received = sentry_endpoint
    assert error_reports_init({"SENTRY_DSN": dsn}) is True
    assert sentry_sdk.get_client().options["send_default_pii"] is False
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Token {SECRETS[0]}")
    client.cookies["sessionid"] = SECRETS[1]

    response = client.post("/test-only/fails/", {"password": SECRETS[2]}, HTTP_X_REQUEST_ID="report-me-42")
    sentry_sdk.flush(timeout=5)

    assert response.status_code == 500 and response["X-Request-ID"] == "report-me-42"
    sent = b"".join(received).decode()
    assert "RuntimeError" in sent and FAILURE in sent and "report-me-42" in sent
    assert not [secret for secret in SECRETS if secret in sent]
