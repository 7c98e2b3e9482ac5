"""Production security: deploy checks, TLS behind a proxy, cookies, Content-Security-Policy.

The pages loaded in chromium without a CSP violation: tests/browser/test_csp.py.
"""

import base64
import hashlib
import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.cache import cache
from django.test import Client, override_settings

from quizzes.attempts.services import attempt_start
from tests.factories import DEFAULT_PASSWORD, UserFactory

PROJECT_DIR = Path(__file__).resolve().parents[2]
QUIZ = "gradient-checkpointing"

EXPECTED_CSP = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'"],
    "connect-src": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
    "base-uri": ["'self'"],
    "object-src": ["'none'"],
}


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


def production_env(**extra) -> dict[str, str]:
    """The environment of a production process: debug off, a real secret and host."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("DJANGO_")}
    env.update(
        DJANGO_SETTINGS_MODULE="lms.settings",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(64),
        DJANGO_ALLOWED_HOSTS="quiz.example.org",
        DJANGO_CSRF_TRUSTED_ORIGINS="https://quiz.example.org,https://www.quiz.example.org",
    )
    env.update(extra)
    return env


def run_manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=60
    )


def production_settings(**extra) -> dict:
    names = [
        "DEBUG",
        "SECURE_SSL_REDIRECT",
        "SECURE_PROXY_SSL_HEADER",
        "SECURE_HSTS_SECONDS",
        "SECURE_HSTS_INCLUDE_SUBDOMAINS",
        "SECURE_HSTS_PRELOAD",
        "SESSION_COOKIE_SECURE",
        "SESSION_COOKIE_HTTPONLY",
        "CSRF_COOKIE_SECURE",
        "LANGUAGE_COOKIE_SECURE",
        "CSRF_TRUSTED_ORIGINS",
        "SECURE_REFERRER_POLICY",
        "X_FRAME_OPTIONS",
        "AXES_FAILURE_LIMIT",
        "AXES_COOLOFF_TIME",
        "AXES_LOCKOUT_PARAMETERS",
        "AXES_HANDLER",
        "AXES_CLIENT_IP_CALLABLE",
        "AXES_RESET_ON_SUCCESS",
        "AUTHENTICATION_BACKENDS",
        "REST_FRAMEWORK",
        "API_THROTTLE_LOCAL_SHARE",
    ]
    code = (
        "import json; from django.conf import settings; "
        f"print(json.dumps({{name: getattr(settings, name) for name in {names!r}}}, default=str))"
    )
    result = run_manage("shell", "-v0", "-c", code, env=production_env(**extra))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def parse_csp(header: str) -> dict[str, list[str]]:
    directives = {}
    for part in header.split(";"):
        name, *sources = part.split()
        directives[name] = sources
    return directives


def assert_strict_csp(response, **extra_sources) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    assert "unsafe-inline" not in header and "unsafe-eval" not in header, header
    directives = parse_csp(header)
    expected = {name: list(sources) for name, sources in EXPECTED_CSP.items()}
    for name, sources in extra_sources.items():
        expected[name.replace("_", "-")] += sources
    assert directives == expected
    return directives


# Deploy settings ------------------------------------------------------------------


def test_deploy_check_is_clean_with_production_env():
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", env=production_env())

    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_deploy_check_fails_without_a_real_secret():
    result = run_manage(
        "check", "--deploy", "--fail-level", "WARNING", env=production_env(DJANGO_SECRET_KEY="short-secret")
    )

    assert result.returncode != 0
    assert "security.W009" in result.stdout + result.stderr


def test_production_settings():
    values = production_settings()

    assert values["DEBUG"] is False
    assert values["SECURE_SSL_REDIRECT"] is True
    assert values["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert values["SECURE_HSTS_SECONDS"] == 365 * 24 * 3600
    assert values["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert values["SECURE_HSTS_PRELOAD"] is True
    assert values["SESSION_COOKIE_SECURE"] is True
    assert values["SESSION_COOKIE_HTTPONLY"] is True
    assert values["CSRF_COOKIE_SECURE"] is True
    assert values["CSRF_TRUSTED_ORIGINS"] == ["https://quiz.example.org", "https://www.quiz.example.org"]
    assert values["SECURE_REFERRER_POLICY"] == "same-origin"
    assert values["X_FRAME_OPTIONS"] == "DENY"
    # Failed logins lock a username out from one address (5 in 15 min), counted in the database.
    assert (values["AXES_FAILURE_LIMIT"], values["AXES_COOLOFF_TIME"]) == (5, "0:15:00")
    assert values["AXES_LOCKOUT_PARAMETERS"] == [["username", "ip_address"]]
    assert values["AXES_HANDLER"] == "quizzes.accounts.lockout.LockoutDatabaseHandler"
    assert values["AXES_CLIENT_IP_CALLABLE"] == "quizzes.accounts.lockout.client_address"
    assert values["AXES_RESET_ON_SUCCESS"] is True
    assert values["AUTHENTICATION_BACKENDS"][0] == "axes.backends.AxesStandaloneBackend"
    assert values["REST_FRAMEWORK"]["DEFAULT_THROTTLE_RATES"] == {"user": "600/min", "anon": "60/min"}
    assert values["API_THROTTLE_LOCAL_SHARE"] == 0.01
    assert values["REST_FRAMEWORK"]["NUM_PROXIES"] == 1
    assert values["LANGUAGE_COOKIE_SECURE"] is True


def test_ssl_redirect_can_be_turned_off_and_rates_set_by_env():
    values = production_settings(
        DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_API_THROTTLE_USER="10/min",
        DJANGO_API_THROTTLE_ANON="5/min",
        DJANGO_API_THROTTLE_LOCAL_SHARE="0",
    )

    assert values["SECURE_SSL_REDIRECT"] is False
    assert values["REST_FRAMEWORK"]["DEFAULT_THROTTLE_RATES"] == {"user": "10/min", "anon": "5/min"}
    assert values["API_THROTTLE_LOCAL_SHARE"] == 0


# Behind the TLS-terminating proxy -----------------------------------------------


@override_settings(SECURE_SSL_REDIRECT=True)
def test_plain_http_is_redirected_to_https(db):
    response = Client().get("/en/accounts/login/?next=/en/")

    assert response.status_code == 301
    assert response["Location"] == "https://testserver/en/accounts/login/?next=/en/"


@override_settings(SECURE_SSL_REDIRECT=True)
def test_api_over_plain_http_is_redirected_to_https(db):
    response = Client().get("/api/v1/quizzes/")

    assert response.status_code == 301
    assert response["Location"] == "https://testserver/api/v1/quizzes/"


@override_settings(SECURE_SSL_REDIRECT=True)
def test_forwarded_https_is_secure_and_gets_hsts(db):
    response = Client().get("/en/accounts/login/", HTTP_X_FORWARDED_PROTO="https")

    assert response.status_code == 200
    assert response.wsgi_request.is_secure()
    assert response["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains; preload"
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Content-Type-Options"] == "nosniff"


@override_settings(SECURE_SSL_REDIRECT=True)
def test_forwarded_http_is_redirected(db):
    response = Client().get("/en/accounts/login/", HTTP_X_FORWARDED_PROTO="http")

    assert response.status_code == 301
    assert response["Location"].startswith("https://")


@override_settings(SECURE_SSL_REDIRECT=True)
def test_login_cookies_are_secure_and_session_cookie_http_only(db):
    user = UserFactory(username="cookie-user")
    client = Client(HTTP_X_FORWARDED_PROTO="https")

    page = client.get("/en/accounts/login/")
    response = client.post(
        "/en/accounts/login/",
        {"username": user.username, "password": DEFAULT_PASSWORD, "csrfmiddlewaretoken": page.context["csrf_token"]},
    )

    assert response.status_code == 302
    csrf_cookie = page.cookies["csrftoken"]
    session_cookie = response.cookies["sessionid"]
    assert csrf_cookie["secure"] is True
    assert session_cookie["secure"] is True
    assert session_cookie["httponly"] is True


# Content-Security-Policy ----------------------------------------------------------


@pytest.fixture
def question_url(student, gc_quiz) -> str:
    attempt, _created = attempt_start(user=student, quiz=gc_quiz)
    return f"/en/attempts/{attempt.pk}/questions/1/"


@pytest.mark.parametrize(
    "url",
    [
        "/en/accounts/login/",
        "/ur/accounts/login/",
        "/en/admin/login/",
        "/api/v1/quizzes/",
        "/api/v1/schema/",
        "/static/quizzes/site.css",
    ],
)
def test_csp_on_anonymous_responses(client, db, url):
    assert_strict_csp(client.get(url))


@pytest.mark.parametrize("url", ["/en/no-such-page/", "/ur/no-such-page/", "/api/v1/nothing/", "/static/no.css"])
def test_csp_on_404_pages(client, db, url):
    response = client.get(url)

    assert response.status_code == 404
    assert_strict_csp(response)


def test_csp_on_500_pages(student_client, gc_quiz, monkeypatch):
    def fail(*args, **kwargs):
        raise RuntimeError("broken on purpose")

    monkeypatch.setattr("quizzes.api.views.QuizListView.get_queryset", fail)
    monkeypatch.setattr("django.contrib.auth.views.LoginView.get", fail)
    anonymous = Client(raise_request_exception=False)
    student_client.raise_request_exception = False
    for client, url in [(student_client, "/api/v1/quizzes/"), (anonymous, "/en/accounts/login/")]:
        response = client.get(url)
        assert response.status_code == 500, url
        assert_strict_csp(response)


def test_csp_on_student_pages(student_client, gc_quiz, question_url):
    for url in ["/en/", f"/en/quizzes/{QUIZ}/", question_url, "/ur/"]:
        response = student_client.get(url)
        assert response.status_code == 200, url
        assert_strict_csp(response)
        assert not re.search(r"<script(?![^>]*\bsrc=)", response.content.decode()), url
        assert not re.search(r"<style|\sstyle=", response.content.decode()), url


def test_csp_on_admin_pages(editor, gc_quiz):
    client = Client()
    client.force_login(editor)
    for url in ["/en/admin/", "/en/admin/quizzes/quiz/", f"/en/admin/quizzes/quiz/{gc_quiz.pk}/change/"]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert_strict_csp(response)


def test_csp_on_api_responses(student_client, gc_quiz):
    assert_strict_csp(student_client.get("/api/v1/quizzes/"))
    assert_strict_csp(Client().post("/api/v1/auth/token/", {}, content_type="application/json"))


def test_docs_page_has_no_inline_script_and_its_inline_style_is_allowed_by_hash(client, db):
    response = client.get("/api/v1/docs/")

    html = response.content.decode()
    assert response.status_code == 200
    assert not re.search(r"<script(?![^>]*\bsrc=)", html)
    (style,) = re.findall(r"<style>(.*?)</style>", html, flags=re.DOTALL)
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    style_hash = f"'sha256-{digest}'"
    assert_strict_csp(response, style_src=[style_hash])
    (script_url,) = re.findall(r'<script src="([^"]*\?[^"]*script=[^"]*)"', html)
    script = client.get(script_url.replace("&amp;", "&"))
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle" in script.content.decode()
    assert_strict_csp(script, style_src=[style_hash])


def test_frame_ancestors_and_x_frame_options(client, db):
    response = client.get("/en/accounts/login/")

    assert parse_csp(response["Content-Security-Policy"])["frame-ancestors"] == ["'none'"]
    assert response["X-Frame-Options"] == "DENY"
