"""Authentication: tokens, 401 on every endpoint, session auth with CSRF."""

import pytest
from django.http import HttpRequest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from quizzes.models import Answer, Attempt, Quiz
from tests.api import (
    PROGRESS_URL,
    QUIZZES_URL,
    TOKEN_URL,
    answers_url,
    assert_error,
    attempt_url,
    finish_url,
    quiz_url,
    right,
    small_content,
    start_url,
)
from tests.factories import DEFAULT_PASSWORD, AttemptFactory, UserFactory

SLUG = "gradient-checkpointing"

# (method, url for an attempt id): every endpoint that needs a user.
ENDPOINTS = {
    "quiz-list": ("get", lambda attempt: QUIZZES_URL),
    "quiz-detail": ("get", lambda attempt: quiz_url(SLUG)),
    "attempt-start": ("post", lambda attempt: start_url(SLUG)),
    "attempt-detail": ("get", lambda attempt: attempt_url(attempt.pk)),
    "answer-create": ("post", lambda attempt: answers_url(attempt.pk)),
    "attempt-finish": ("post", lambda attempt: finish_url(attempt.pk)),
    "progress": ("get", lambda attempt: PROGRESS_URL),
}
POST_ENDPOINTS = {name: spec for name, spec in ENDPOINTS.items() if spec[0] == "post"}


@pytest.fixture
def content(db) -> dict[str, Quiz]:
    return small_content()


@pytest.fixture
def attempt(student, gc_quiz) -> Attempt:
    return AttemptFactory(user=student, quiz=gc_quiz, number=1)


def body_for(name: str, attempt: Attempt) -> dict:
    if name == "answer-create":
        choice = right(attempt.quiz, 1)
        return {"question": choice.question_id, "choice": choice.pk}
    return {}


def snapshot():
    return list(Attempt.objects.order_by("pk").values()), list(Answer.objects.order_by("pk").values())


# Tokens --------------------------------------------------------------------------


def test_token_for_good_credentials(anon, student):
    response = anon.post(TOKEN_URL, {"username": student.username, "password": DEFAULT_PASSWORD}, format="json")

    assert response.status_code == 200
    assert response.json() == {"token": Token.objects.get(user=student).key}


def test_token_is_stable_across_requests(anon, student):
    credentials = {"username": student.username, "password": DEFAULT_PASSWORD}
    first = anon.post(TOKEN_URL, credentials, format="json").json()["token"]
    second = anon.post(TOKEN_URL, credentials, format="json").json()["token"]

    assert first == second


def test_token_from_form_encoded_body(anon, student):
    response = anon.post(TOKEN_URL, {"username": student.username, "password": DEFAULT_PASSWORD})

    assert response.status_code == 200
    assert set(response.json()) == {"token"}


def test_token_authenticates_requests(student):
    client = APIClient()
    token = client.post(TOKEN_URL, {"username": student.username, "password": DEFAULT_PASSWORD}, format="json").json()[
        "token"
    ]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")

    assert client.get(QUIZZES_URL).status_code == 200


@pytest.mark.parametrize(
    "credentials",
    [
        pytest.param({"username": "student-1", "password": "wrong password"}, id="wrong-password"),
        pytest.param({"username": "nobody", "password": DEFAULT_PASSWORD}, id="unknown-user"),
        pytest.param({"username": "STUDENT-1", "password": DEFAULT_PASSWORD}, id="username-case"),
        pytest.param({"username": "student-1", "password": ""}, id="empty-password"),
    ],
)
def test_token_refused_for_bad_credentials(anon, student, credentials):
    response = anon.post(TOKEN_URL, credentials, format="json")

    body = assert_error(response, 400, "invalid")
    assert "token" not in body
    assert not Token.objects.filter(user=student).exists()


def test_token_refused_for_inactive_user(anon, db):
    user = UserFactory(username="gone", is_active=False)

    response = anon.post(TOKEN_URL, {"username": user.username, "password": DEFAULT_PASSWORD}, format="json")

    assert_error(response, 400, "invalid")
    assert not Token.objects.filter(user=user).exists()


@pytest.mark.parametrize(
    ("payload", "missing"),
    [
        pytest.param({}, {"username", "password"}, id="empty"),
        pytest.param({"username": "student-1"}, {"password"}, id="no-password"),
        pytest.param({"password": DEFAULT_PASSWORD}, {"username"}, id="no-username"),
    ],
)
def test_token_missing_fields(anon, student, payload, missing):
    response = anon.post(TOKEN_URL, payload, format="json")

    body = assert_error(response, 400, "invalid")
    assert set(body["errors"]) == missing


def test_token_endpoint_is_post_only(anon):
    assert_error(anon.get(TOKEN_URL), 405, "method_not_allowed")


# Unauthenticated -----------------------------------------------------------------


@pytest.mark.parametrize("name", list(ENDPOINTS))
def test_unauthenticated_is_401_everywhere(anon, attempt, name):
    method, url = ENDPOINTS[name]
    before = snapshot()

    response = getattr(anon, method)(url(attempt), body_for(name, attempt), format="json")

    assert_error(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Token"
    assert snapshot() == before


@pytest.mark.parametrize("name", list(ENDPOINTS))
@pytest.mark.parametrize("header", ["Token not-a-real-token", "Token ", "Bearer abc", "Token a b"])
def test_bad_token_is_401_everywhere(anon, attempt, name, header):
    method, url = ENDPOINTS[name]
    anon.credentials(HTTP_AUTHORIZATION=header)
    before = snapshot()

    response = getattr(anon, method)(url(attempt), body_for(name, attempt), format="json")

    if header.startswith("Bearer"):  # another scheme: no credentials of ours at all
        assert_error(response, 401, "not_authenticated")
    else:
        assert_error(response, 401, "authentication_failed")
    assert response["WWW-Authenticate"] == "Token"
    assert snapshot() == before


@pytest.mark.parametrize("name", list(ENDPOINTS))
@pytest.mark.parametrize(
    "failure, detail", [("user deactivated", "User inactive or deleted."), ("token deleted", "Invalid token.")]
)
def test_a_token_that_worked_is_401_everywhere_once_it_fails(student, attempt, name, failure, detail):
    method, url = ENDPOINTS[name]
    client = APIClient()
    token = Token.objects.create(user=student)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert client.get(QUIZZES_URL).status_code == 200
    if failure == "token deleted":
        token.delete()
    else:
        student.is_active = False
        student.save()
    before = snapshot()

    response = getattr(client, method)(url(attempt), body_for(name, attempt), format="json")

    assert_error(response, 401, "authentication_failed")
    assert response.json()["detail"] == detail
    assert response["WWW-Authenticate"] == "Token"
    assert snapshot() == before


# Session authentication ------------------------------------------------------------


def test_session_auth_with_force_login(student, gc_quiz):
    client = APIClient()
    client.force_login(student)

    assert client.get(QUIZZES_URL).status_code == 200
    assert client.get(quiz_url(SLUG)).status_code == 200
    assert client.get(PROGRESS_URL).status_code == 200


def test_session_auth_with_password_login(student, gc_quiz):
    client = APIClient()
    # authenticate() needs the request (the login lockout, django-axes, counts per address).
    assert client.login(request=HttpRequest(), username=student.username, password=DEFAULT_PASSWORD)

    response = client.get(QUIZZES_URL)

    assert response.status_code == 200
    assert [quiz["slug"] for quiz in response.json()["results"]] == [SLUG]


def test_session_auth_after_logout_is_401(student):
    client = APIClient()
    client.force_login(student)
    client.logout()

    assert_error(client.get(QUIZZES_URL), 401, "not_authenticated")


@pytest.mark.parametrize("name", list(POST_ENDPOINTS))
def test_session_post_without_csrf_token_is_refused(student, attempt, name):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(student)
    _method, url = POST_ENDPOINTS[name]
    before = snapshot()

    response = client.post(url(attempt), body_for(name, attempt), format="json")

    body = assert_error(response, 403, "permission_denied")
    assert "CSRF" in body["detail"]
    assert snapshot() == before


@pytest.mark.parametrize("name", list(POST_ENDPOINTS))
def test_session_post_with_wrong_csrf_token_is_refused(student, attempt, name):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(student)
    client.cookies["csrftoken"] = "a" * 32
    _method, url = POST_ENDPOINTS[name]
    before = snapshot()

    response = client.post(url(attempt), body_for(name, attempt), format="json", HTTP_X_CSRFTOKEN="b" * 32)

    assert_error(response, 403, "permission_denied")
    assert snapshot() == before


def test_session_post_with_csrf_token_is_accepted(student, gc_quiz):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(student)
    client.cookies["csrftoken"] = "a" * 32

    response = client.post(start_url(SLUG), format="json", HTTP_X_CSRFTOKEN="a" * 32)

    assert response.status_code == 201
    assert Attempt.objects.filter(user=student, quiz=gc_quiz).count() == 1


def test_session_get_needs_no_csrf_token(student, attempt):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(student)

    assert client.get(attempt_url(attempt.pk)).status_code == 200


def test_token_post_needs_no_csrf_token(student, gc_quiz):
    client = APIClient(enforce_csrf_checks=True)
    token = client.post(TOKEN_URL, {"username": student.username, "password": DEFAULT_PASSWORD}, format="json").json()[
        "token"
    ]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")

    assert client.post(start_url(SLUG), format="json").status_code == 201
