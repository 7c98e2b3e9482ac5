"""No input gives a 5xx: malformed cookies, headers, bodies and paths, on every kind of page.

A value that no request of ours carries (a NUL, which PostgreSQL refuses in any text parameter;
non-ASCII; 10 kB) is treated as absent or wrong before it reaches a query: a session cookie that
cannot be a session key is no session (common/sessions/), a malformed API token is a wrong one
(quizzes/api/authentication.py), an LTI issuer or client id that cannot be stored finds no
registration (quizzes/integrations/lti/tool.py).
"""

import base64
import json
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import translation
from django.utils.translation import gettext
from rest_framework.authtoken.models import Token

from common.sessions import cached_db as cached_db_sessions
from common.sessions import db as db_sessions
from quizzes.api.idempotency import HEADER as IDEMPOTENCY_HEADER
from quizzes.models import Attempt, Quiz
from tests.api import SCHEMA_URL, TOKEN_URL, answers_url, assert_error, attempt_url, right, small_content
from tests.factories import AttemptFactory

QUIZ = "gradient-checkpointing"
NUL_SESSION = "\x00aaaaaaa"  # the cookie: 8 characters, so Django's own check lets it through


def wire(text: str) -> str:
    """``text`` sent as UTF-8 in a header, as a WSGI server hands it over (PEP 3333: Latin-1)."""
    return text.encode().decode("latin-1")


MALFORMED_COOKIES = {
    "sessionid-nul": ("sessionid", NUL_SESSION),
    "sessionid-nul-inside": ("sessionid", "abcdefgh\x00ijklmnop"),
    "sessionid-non-ascii": ("sessionid", wire("ключключключключ")),
    "sessionid-10kB": ("sessionid", "a" * 10_000),
    "sessionid-spaces-quotes": ("sessionid", '"a b c d e f g h"'),
    "csrftoken-nul": ("csrftoken", "\x00" * 32),
    "django_language-nul": ("django_language", "\x00en"),
    "django_language-garbage": ("django_language", wire("zz-Ω;q=é,,,") * 50),
}
MALFORMED_HEADERS = {
    "token-nul": {"HTTP_AUTHORIZATION": "Token \x00aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
    "token-non-ascii": {"HTTP_AUTHORIZATION": wire("Token ключключ")},
    "token-latin-1": {"HTTP_AUTHORIZATION": "Token caf\xe9"},
    "token-2kB": {"HTTP_AUTHORIZATION": "Token " + "a" * 2_000},
    "idempotency-key-nul": {"HTTP_IDEMPOTENCY_KEY": "\x00"},
    "accept-language-garbage": {"HTTP_ACCEPT_LANGUAGE": wire("\x00;q=x, ,;q=-1, ÿÿ-Ω;q=1e999, ") + "zz-" * 500},
    "x-forwarded-for-garbage": {"HTTP_X_FORWARDED_FOR": "\x00, not-an-address, 999.1.1.1, ::::, " + "1" * 500},
    "user-agent-nul": {"HTTP_USER_AGENT": "\x00" * 10},
    "referer-nul": {"HTTP_REFERER": "https://\x00/"},
}
# (method, path, form data): a page of each kind.
PAGES = [
    ("get", "/en/", None),
    ("get", f"/en/quizzes/{QUIZ}/", None),
    ("get", "/en/attempts/{attempt}/", None),
    ("post", "/en/accounts/login/?next=%00", {"username": "student-1", "password": "wrong", "x\x00": "\x00"}),
    ("post", "/en/accounts/login/", {"username": "\x00", "password": "\x00"}),
    ("post", "/en/admin/login/", {"username": "student-1", "password": "wrong"}),
    ("get", "/en/admin/", None),
    ("get", "/api/v1/quizzes/", None),
    ("get", "/api/v1/attempts/{attempt}/", None),
    ("post", "/api/v1/attempts/{attempt}/answers/", {"question": 1, "choice": 1}),
    ("post", TOKEN_URL, {"username": "student-1", "password": "wrong"}),
    ("post", TOKEN_URL, {"username": "\x00", "password": "\x00"}),
    ("get", "/lti/config.json", None),
    ("get", "/lti/login/?iss=%00&login_hint=%00&target_link_uri=%00&client_id=%00", None),
    ("post", "/lti/login/", {"iss": "\x00", "login_hint": "\x00", "target_link_uri": "\x00", "client_id": "\x00"}),
    ("post", "/lti/launch/", {"id_token": "\x00", "state": "\x00"}),
    ("get", "/sw.js", None),
]


@pytest.fixture
def content(db) -> dict[str, Quiz]:
    return small_content()


@pytest.fixture
def attempt(student, gc_quiz) -> Attempt:
    return AttemptFactory(user=student, quiz=gc_quiz, number=1)


def logged_in_client(user) -> Client:
    """A client whose 500s are responses to count (the test client raises them by default)."""
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def server_errors(client: Client, attempt: Attempt, **headers) -> list[tuple[str, str, int]]:
    """Every page of ``PAGES`` requested; those answered with a 5xx."""
    errors = []
    for method, path, data in PAGES:
        url = path.format(attempt=attempt.pk)
        if method == "get":
            response = client.get(url, **headers)
        elif url.startswith("/api/"):
            response = client.post(url, json.dumps(data), content_type="application/json", **headers)
        else:
            response = client.post(url, data, **headers)
        if response.status_code >= 500:
            errors.append((method, url, response.status_code))
    return errors


# Malformed cookies and headers on every kind of page ----------------------------------------------


@pytest.mark.parametrize("cookie", MALFORMED_COOKIES.values(), ids=MALFORMED_COOKIES.keys())
def test_a_malformed_cookie_gives_no_server_error_anywhere(student, attempt, cookie):
    client = logged_in_client(student)
    name, value = cookie
    client.cookies[name] = value

    assert server_errors(client, attempt) == []


@pytest.mark.parametrize("headers", MALFORMED_HEADERS.values(), ids=MALFORMED_HEADERS.keys())
def test_a_malformed_header_gives_no_server_error_anywhere(student, attempt, headers):
    assert server_errors(logged_in_client(student), attempt, **headers) == []


@pytest.mark.parametrize("headers", MALFORMED_HEADERS.values(), ids=MALFORMED_HEADERS.keys())
def test_a_malformed_header_without_a_session_gives_no_server_error_anywhere(attempt, headers):
    assert server_errors(Client(raise_request_exception=False), attempt, **headers) == []


@pytest.mark.parametrize(
    "value", [v for name, v in MALFORMED_COOKIES.values() if name == "sessionid"], ids=lambda v: repr(v[:12])
)
def test_a_malformed_session_cookie_is_no_session(student, value):
    client = logged_in_client(student)
    client.cookies["sessionid"] = value

    page = client.get(f"/en/quizzes/{QUIZ}/")
    api = client.get("/api/v1/quizzes/")

    assert page.status_code == 302 and "/accounts/login/" in page["Location"]
    assert page.cookies["sessionid"]["max-age"] == 0  # and the browser is told to drop it
    assert_error(api, 401, "not_authenticated")


@pytest.mark.parametrize(
    "key", [NUL_SESSION, "a" * 41, "ABCDEFGHIJKLMNOP", "abcdefg-hijklmno", "abcdefgh ", "ключключ"]
)
@pytest.mark.parametrize("engine", [db_sessions, cached_db_sessions], ids=["db", "cached_db"])
def test_a_session_key_django_could_not_have_made_is_none_and_read_without_a_query(db, engine, key):
    store = engine.SessionStore(key)

    with CaptureQueriesContext(connection) as queries:
        assert store.session_key is None
        assert dict(store.items()) == {}

    assert len(queries) == 0


def test_a_real_session_key_is_still_read(student):
    client = logged_in_client(student)
    key = client.cookies["sessionid"].value

    assert re.fullmatch(r"[a-z0-9]{32}", key)
    assert db_sessions.SessionStore(key).get("_auth_user_id") == str(student.pk)
    assert client.get(f"/en/quizzes/{QUIZ}/").status_code == 200


def test_a_malformed_csrf_cookie_on_a_checked_form_is_refused_not_an_error(db):
    client = Client(raise_request_exception=False, enforce_csrf_checks=True)
    client.cookies["csrftoken"] = "\x00" * 32

    response = client.post("/en/accounts/login/", {"username": "x", "password": "y", "csrfmiddlewaretoken": "\x00"})

    assert response.status_code == 403


# API tokens -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    [
        "\x00" + "a" * 39,
        "a" * 39 + "\x00",
        wire("ключ"),
        "caf\xe9",
        "a" * 2_000,
        "A" * 40,  # Token.generate_key makes lower-case hex only
        "g" * 40,
        "a" * 39,
        "a" * 41,
    ],
    ids=["nul-first", "nul-last", "cyrillic", "latin-1", "2kB", "upper-case", "not-hex", "39", "41"],
)
def test_a_malformed_token_is_401_like_a_wrong_one_and_never_looked_up(student, key):
    client = Client(raise_request_exception=False)

    with CaptureQueriesContext(connection) as queries:
        response = client.get("/api/v1/quizzes/", HTTP_AUTHORIZATION=f"Token {key}")

    body = assert_error(response, 401, "authentication_failed")
    assert body["detail"] in {
        "Invalid token.",
        "Invalid token header. Token string should not contain invalid characters.",
    }
    assert not [query for query in queries if "authtoken_token" in query["sql"]]


def test_a_real_token_still_authenticates(student):
    client = Client()
    key = Token.objects.create(user=student).key

    assert client.get("/api/v1/quizzes/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 200


# LTI login and launch with garbage ------------------------------------------------------------------


def _segment(value) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


def unsigned_token(header, body) -> str:
    return f"{_segment(header)}.{_segment(body)}.c2lnbmF0dXJl"


HEADER = {"alg": "RS256", "kid": "k1", "typ": "JWT"}
GARBAGE_ID_TOKENS = {
    "nul": "\x00",
    "one-part": "abc",
    "not-base64": "!!!.???.***",
    "body-a-list": unsigned_token(HEADER, [1, 2]),
    "body-a-string": unsigned_token(HEADER, "x"),
    "header-a-list": unsigned_token([1], {"nonce": "n", "iss": "https://platform.example", "aud": "client-1"}),
    "iss-nul": unsigned_token(HEADER, {"nonce": "n", "iss": "\x00", "aud": "client-1"}),
    "aud-nul": unsigned_token(HEADER, {"nonce": "n", "iss": "https://platform.example", "aud": ["\x00"]}),
    "aud-empty-list": unsigned_token(HEADER, {"nonce": "n", "iss": "https://platform.example", "aud": []}),
    "aud-an-object": unsigned_token(HEADER, {"nonce": "n", "iss": "https://platform.example", "aud": {"a": 1}}),
    "iss-a-number": unsigned_token(HEADER, {"nonce": "n", "iss": 1e300, "aud": "client-1"}),
    "iss-10kB": unsigned_token(HEADER, {"nonce": "n", "iss": "i" * 10_000, "aud": "client-1"}),
    "nonce-an-object": unsigned_token(HEADER, {"nonce": {"a": 1}, "iss": "https://platform.example", "aud": "c"}),
}


@pytest.mark.parametrize("id_token", GARBAGE_ID_TOKENS.values(), ids=GARBAGE_ID_TOKENS.keys())
@pytest.mark.parametrize("state", ["s-1", "\x00"])
def test_a_garbage_launch_is_refused_not_an_error(db, id_token, state):
    """The state matches its cookie (as an attacker can arrange), so the id_token itself is read."""
    client = Client(raise_request_exception=False)

    response = client.post(
        "/lti/launch/", {"id_token": id_token, "state": state}, HTTP_COOKIE=f"lti1p3-{state}={state}"
    )

    assert response.status_code in (400, 403), response.content[:300]


@pytest.mark.parametrize(
    "params",
    [
        {"iss": "\x00", "login_hint": "u", "target_link_uri": "https://t.example/", "client_id": "c"},
        {"iss": "https://platform.example", "login_hint": "u", "target_link_uri": "https://t/", "client_id": "\x00"},
        {"iss": "i" * 10_000, "login_hint": "\x00", "target_link_uri": "\x00", "client_id": "c" * 10_000},
        {"iss": "ключ", "login_hint": "ключ", "target_link_uri": "ключ", "lti_message_hint": "\x00"},
    ],
    ids=["iss-nul", "client-id-nul", "10kB", "non-ascii"],
)
@pytest.mark.parametrize("method", ["get", "post"])
def test_a_garbage_login_is_refused_not_an_error(db, params, method):
    client = Client(raise_request_exception=False)

    response = getattr(client, method)("/lti/login/", params)

    assert response.status_code == 400


# JSON 404 under /api/, with DEBUG on and off ---------------------------------------------------------

UNKNOWN_API_PATHS = [
    ("get", "/api/v1/nope/"),
    ("get", "/api/v1/nope"),
    ("get", "/api/nope/"),
    ("get", "/api/"),
    ("get", "/api/v2/quizzes/"),
    ("get", "/api/v1/quizzes/a/b/c/"),
    ("get", "/api/v1/attempts/99999999999999999999/"),
    ("get", "/api/v1/attempts/9223372036854775808/"),
    ("get", "/api/v1/attempts/-1/"),
    ("post", "/api/v1/attempts/99999999999999999999/answers/"),
    ("post", "/api/v1/attempts/99999999999999999999/finish/"),
    ("post", "/api/v1/nope"),
]


@pytest.mark.parametrize("debug", [False, True], ids=["debug-off", "debug-on"])
@pytest.mark.parametrize(("method", "path"), UNKNOWN_API_PATHS)
def test_an_unknown_api_path_is_a_json_404(student, settings, debug, method, path):
    settings.DEBUG = debug
    client = logged_in_client(student)

    response = getattr(client, method)(path, HTTP_ACCEPT_LANGUAGE="id")

    body = assert_error(response, 404, "not_found")
    with translation.override("id"):
        assert body["detail"] == gettext("Not found.") != "Not found."  # the request's language


@pytest.mark.parametrize("debug", [False, True], ids=["debug-off", "debug-on"])
def test_an_unknown_attempt_is_a_json_404(student, settings, debug):
    settings.DEBUG = debug

    assert_error(logged_in_client(student).get(attempt_url(999_999_999)), 404, "not_found")


def test_with_debug_on_a_path_without_its_slash_still_redirects(student, settings):
    settings.DEBUG = True

    response = logged_in_client(student).get("/api/v1/quizzes")

    assert response.status_code == 301 and response["Location"] == "/api/v1/quizzes/"


def test_with_debug_on_pages_keep_django_s_debug_404(student, settings):
    settings.DEBUG = True

    response = logged_in_client(student).get("/en/no-such-page/")

    assert response.status_code == 404 and response["Content-Type"].startswith("text/html")


# Numbers out of range in a JSON body ------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        '{"question": 1e999, "choice": 1}',
        '{"question": 1, "choice": -1e999}',
        '{"question": 1, "choice": 1, "extra": [{"x": 1E+400}]}',
        "1e999",
    ],
)
def test_a_number_that_overflows_is_400_with_a_clear_detail(student, attempt, body):
    client = logged_in_client(student)

    response = client.post(answers_url(attempt.pk), body, content_type="application/json")

    detail = assert_error(response, 400, "parse_error")["detail"]
    assert "out of range" in detail.lower() and re.search(r"1[eE]\+?\d{3}", detail), detail
    assert not attempt.answers.exists()


def test_a_number_that_overflows_is_400_on_the_token_endpoint(student):
    client = Client(raise_request_exception=False)

    response = client.post(TOKEN_URL, '{"username": 1e999, "password": "x"}', content_type="application/json")

    assert_error(response, 400, "parse_error")


def test_an_overflowing_number_shown_in_the_detail_is_cut_short(student, attempt):
    number = "1" + "0" * 400 + ".5e999"

    response = logged_in_client(student).post(
        answers_url(attempt.pk), f'{{"question": {number}}}', content_type="application/json"
    )

    assert len(assert_error(response, 400, "parse_error")["detail"]) < 200


def test_small_and_ordinary_numbers_are_still_read(student, attempt, gc_quiz):
    client = logged_in_client(student)
    choice = right(gc_quiz, 1)
    body = f'{{"question": {choice.question_id}, "choice": {choice.pk}, "unused": [1e-999, 2.5, 1e300]}}'

    assert client.post(answers_url(attempt.pk), body, content_type="application/json").status_code == 201


# The Idempotency-Key pattern of the schema is the server's -----------------------------------------


def _json_schema_matches(pattern: str, value: str) -> bool:
    """An anchored JSON Schema (ECMA-262) pattern: ``^`` and ``$`` are the ends of the value."""
    assert pattern.startswith("^") and pattern.endswith("$"), pattern
    return re.fullmatch(pattern[1:-1], value) is not None


@pytest.fixture
def idempotency_pattern(student) -> str:
    schema = logged_in_client(student).get(SCHEMA_URL, {"format": "json"}).json()
    patterns = {
        parameter["schema"]["pattern"]
        for path in schema["paths"].values()
        for operation in path.values()
        for parameter in operation.get("parameters", [])
        if parameter["name"] == IDEMPOTENCY_HEADER
    }
    assert len(patterns) == 1, patterns
    return patterns.pop()


def test_the_idempotency_key_pattern_is_anchored(idempotency_pattern):
    assert idempotency_pattern.startswith("^") and idempotency_pattern.endswith("$")


@pytest.mark.parametrize(
    "key",
    [
        "k",
        "x" * 255,
        "550e8400-e29b-41d4-a716-446655440000",
        "!~{}[]",
        "x" * 256,
        "",
        "has space",
        "key\n",
        "\nkey",
        "tab\tkey",
        wire("ключ"),
        "caf\xe9",
        "\x00",
        "nul\x00",
    ],
)
def test_a_key_the_pattern_accepts_is_accepted_and_one_it_refuses_is_refused(student, idempotency_pattern, key):
    client = logged_in_client(student)

    response = client.post(
        f"/api/v1/quizzes/{QUIZ}/attempts/", content_type="application/json", HTTP_IDEMPOTENCY_KEY=key
    )

    if _json_schema_matches(idempotency_pattern, key):
        assert response.status_code in (200, 201), response.content
    else:
        assert_error(response, 400, "invalid_idempotency_key")
