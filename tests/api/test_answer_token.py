"""An answer's token is checked by the answer's own write (quizzes/api/authentication.py).

No statement reads the token before the write; the write matches only an
attempt of the token's active user. Whatever the token, the answer endpoint
refuses as every other endpoint does, in the same order: 401 before 400
(body, language, Idempotency-Key) and before 404, and writes nothing.
"""

import secrets

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from quizzes.api.authentication import UnverifiedToken, verified_user
from quizzes.models import Answer, Attempt
from tests.api import answers_url, assert_error, quiz_url, right, wrong
from tests.factories import AttemptFactory

SLUG = "gradient-checkpointing"
BAD_TOKENS = ["deleted", "inactive", "unknown"]


@pytest.fixture
def attempt(student, gc_quiz) -> Attempt:
    return AttemptFactory(user=student, quiz=gc_quiz, number=1)


def body(attempt: Attempt, position: int = 1, *, choose=right) -> dict:
    choice = choose(attempt.quiz, position)
    return {"question": choice.question_id, "choice": choice.pk}


def client_with(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def bad_token_client(kind: str, student) -> APIClient:
    """A client whose token fails: deleted since it was issued, of an inactive user, or never issued."""
    if kind == "unknown":
        return client_with("0" * 40)
    token = Token.objects.create(user=student)
    if kind == "deleted":
        token.delete()
    else:
        student.is_active = False
        student.save()
    return client_with(token.key)


DETAILS = {"deleted": "Invalid token.", "unknown": "Invalid token.", "inactive": "User inactive or deleted."}


def snapshot():
    return list(Attempt.objects.order_by("pk").values()), list(Answer.objects.order_by("pk").values())


def assert_refused_401(response, kind: str) -> None:
    assert_error(response, 401, "authentication_failed")
    assert response.json()["detail"] == DETAILS[kind]
    assert response["WWW-Authenticate"] == "Token"


def test_a_valid_token_answers_with_no_statement_before_the_write(student, attempt):
    client = client_with(Token.objects.create(user=student).key)
    client.get(quiz_url(SLUG))  # warms the quiz's content cache
    data = body(attempt)

    with CaptureQueriesContext(connection) as queries:
        response = client.post(answers_url(attempt.pk), data, format="json")

    assert response.status_code == 201, response.content
    control = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE")  # the test's own transaction makes savepoints
    statements = [q["sql"] for q in queries.captured_queries if q["sql"].split()[0].upper() not in control]
    # The lock and the INSERT (one message on PostgreSQL outside a test's transaction: see
    # tests/test_query_counts.py), each matching the attempt of the token's user.
    assert len(statements) == 2
    assert all(Token._meta.db_table in sql and Attempt._meta.db_table in sql for sql in statements)
    assert Answer.objects.filter(attempt=attempt).count() == 1


@pytest.mark.parametrize("kind", BAD_TOKENS)
def test_a_bad_token_writes_nothing(kind, student, attempt):
    client = bad_token_client(kind, student)
    before = snapshot()

    assert_refused_401(client.post(answers_url(attempt.pk), body(attempt), format="json"), kind)
    assert snapshot() == before


@pytest.mark.parametrize("kind", BAD_TOKENS)
@pytest.mark.parametrize(
    "request_",
    [
        pytest.param({"data": {}, "format": "json"}, id="missing-fields"),
        pytest.param({"data": "{not json", "content_type": "application/json"}, id="not-json"),
        pytest.param({"data": "a=1", "content_type": "text/plain"}, id="unsupported-media-type"),
        pytest.param({"data": {"question": "x", "choice": 1}, "format": "json"}, id="invalid-id"),
    ],
)
def test_a_bad_token_is_401_before_a_bad_body(kind, request_, student, attempt):
    client = bad_token_client(kind, student)

    assert_refused_401(client.post(answers_url(attempt.pk), **request_), kind)


@pytest.mark.parametrize("kind", BAD_TOKENS)
def test_a_bad_token_is_401_before_an_unknown_language(kind, student, attempt):
    client = bad_token_client(kind, student)

    assert_refused_401(client.post(answers_url(attempt.pk) + "?lang=xx", body(attempt), format="json"), kind)


@pytest.mark.parametrize("kind", BAD_TOKENS)
@pytest.mark.parametrize("key", ["a-valid-key", "an invalid key"])
def test_a_bad_token_is_401_before_the_idempotency_key(kind, key, student, attempt):
    client = bad_token_client(kind, student)
    before = snapshot()

    response = client.post(answers_url(attempt.pk), body(attempt), format="json", HTTP_IDEMPOTENCY_KEY=key)

    assert_refused_401(response, kind)
    assert snapshot() == before


@pytest.mark.parametrize("kind", BAD_TOKENS)
def test_a_bad_token_is_401_before_a_missing_attempt(kind, student, attempt):
    client = bad_token_client(kind, student)

    assert_refused_401(client.post(answers_url(attempt.pk + 1000), body(attempt), format="json"), kind)


def test_another_students_attempt_is_404_and_untouched(student, other_student, gc_quiz):
    theirs = AttemptFactory(user=other_student, quiz=gc_quiz, number=1)
    client = client_with(Token.objects.create(user=student).key)
    before = snapshot()

    assert_error(client.post(answers_url(theirs.pk), body(theirs), format="json"), 404, "not_found")
    assert_error(client.post(answers_url(theirs.pk), {}, format="json"), 404, "not_found")
    assert snapshot() == before


def test_a_retry_is_answered_from_the_record_and_another_choice_refused(student, attempt):
    client = client_with(Token.objects.create(user=student).key)
    first = client.post(answers_url(attempt.pk), body(attempt), format="json")

    again = client.post(answers_url(attempt.pk), body(attempt), format="json")
    other = client.post(answers_url(attempt.pk), body(attempt, choose=wrong), format="json")

    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert_error(other, 409, "already_answered")
    assert Answer.objects.filter(attempt=attempt).count() == 1


def test_a_token_deactivated_after_an_answer_cannot_answer_again(student, attempt):
    client = client_with(Token.objects.create(user=student).key)
    assert client.post(answers_url(attempt.pk), body(attempt), format="json").status_code == 201
    student.is_active = False
    student.save()
    before = snapshot()

    # Neither a new answer nor a retry of the recorded one (which the unique constraint would catch).
    assert_refused_401(client.post(answers_url(attempt.pk), body(attempt, 2), format="json"), "inactive")
    assert_refused_401(client.post(answers_url(attempt.pk), body(attempt), format="json"), "inactive")
    assert snapshot() == before


def test_a_session_answer_is_checked_as_before(student, other_student, attempt):
    api = APIClient()
    api.force_login(student)
    other = APIClient()
    other.force_login(other_student)

    assert api.post(answers_url(attempt.pk), body(attempt), format="json").status_code == 201
    assert_error(other.post(answers_url(attempt.pk), body(attempt, 2), format="json"), 404, "not_found")


@pytest.fixture
def three_per_minute(settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"user": "3/min", "anon": "100/min"},
    }


def test_a_tokens_requests_share_one_rate_whatever_the_endpoint(three_per_minute, student, attempt):
    client = client_with(Token.objects.create(user=student).key)

    statuses = [
        client.get(quiz_url(SLUG)).status_code,
        client.post(answers_url(attempt.pk), body(attempt, 1), format="json").status_code,
        client.post(answers_url(attempt.pk), body(attempt, 2), format="json").status_code,
    ]
    refused = client.post(answers_url(attempt.pk), body(attempt, 3), format="json")

    assert statuses == [200, 201, 201]
    assert_error(refused, 429, "throttled")
    assert Answer.objects.filter(attempt=attempt).count() == 2
    assert_error(client.get(quiz_url(SLUG)), 429, "throttled")


def test_bad_tokens_do_not_use_up_the_students_rate(three_per_minute, student, attempt):
    client = client_with(Token.objects.create(user=student).key)
    strangers = [client_with(secrets.token_hex(20)) for _ in range(5)]
    data = body(attempt)

    assert [stranger.post(answers_url(attempt.pk), data, format="json").status_code for stranger in strangers] == [
        401
    ] * 5
    assert client.post(answers_url(attempt.pk), data, format="json").status_code == 201


def test_the_rate_key_holds_a_digest_of_the_token_not_the_token(student):
    from quizzes.security import UserRateThrottle

    token = Token.objects.create(user=student)
    key = UserRateThrottle().get_cache_key(_Request(UnverifiedToken(token.key), token.key), view=None)

    assert token.key not in key and key.startswith("throttle_user_token-")
    assert key == UserRateThrottle().get_cache_key(_Request(student, token.key), view=None)


def test_an_unverified_token_has_no_user_id():
    # Nothing can act on a user not yet checked: reading its pk fails loudly.
    with pytest.raises(AttributeError):
        UnverifiedToken("k").pk  # noqa: B018


class _Request:
    def __init__(self, user, auth):
        self.user, self.auth = user, auth


def test_verified_user_checks_and_replaces_an_unverified_token(student):
    token = Token.objects.create(user=student)
    request = _Request(UnverifiedToken(token.key), token.key)

    assert verified_user(request) == student
    assert request.user == student
    assert verified_user(request) is request.user  # a checked user is left as it is
