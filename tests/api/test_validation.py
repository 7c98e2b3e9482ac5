"""Bad input is a 400 (or 413/415) JSON error that changes nothing, never a 500."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.exceptions import ValidationError

from quizzes.api.serializers import MAX_ID, AnswerRequestSerializer, answer_request_ids
from quizzes.models import Answer, Attempt, Quiz
from tests.api import (
    PROGRESS_URL,
    QUIZZES_URL,
    TOKEN_URL,
    answers_url,
    assert_error,
    attempt_url,
    finish_url,
    question,
    quiz_url,
    right,
    small_content,
    start,
    start_url,
    wrong,
)
from tests.factories import DEFAULT_PASSWORD

GC = "gradient-checkpointing"
MB = 1024 * 1024


@pytest.fixture
def content(db) -> dict[str, Quiz]:
    return small_content()


def snapshot():
    return list(Attempt.objects.order_by("pk").values()), list(Answer.objects.order_by("pk").values())


@pytest.fixture
def attempt_id(student_api, gc_quiz) -> int:
    return start(student_api, GC)


def post_raw(client, url, body, content_type="application/json"):
    return client.post(url, body, content_type=content_type)


# Unknown fields -------------------------------------------------------------------------


def test_unknown_fields_are_ignored_and_never_reach_the_database(
    student_api, student, other_student, gc_quiz, attempt_id, other_api
):
    others = start(other_api, GC)
    choice = wrong(gc_quiz, 1)
    payload = {
        "question": choice.question_id,
        "choice": choice.pk,
        "correct": True,
        "is_correct": True,
        "correct_choice": choice.pk,
        "user": other_student.pk,
        "attempt": others,
        "score": 99,
        "language": "xx",
        "id": 123456,
        "answered_at": "2000-01-01T00:00:00Z",
    }

    response = student_api.post(answers_url(attempt_id), payload, format="json")

    assert response.status_code == 201
    assert response.json()["correct"] is False
    stored = Answer.objects.get()
    assert stored.pk != 123456
    assert stored.is_correct is False  # follows the choice
    assert stored.attempt_id == attempt_id
    assert stored.attempt.user == student
    assert stored.language == "en"
    assert stored.answered_at.year > 2000
    assert Attempt.objects.get(pk=attempt_id).score is None
    assert not Answer.objects.filter(attempt_id=others).exists()


def test_unknown_fields_on_token_are_ignored(anon, student):
    response = anon.post(
        TOKEN_URL,
        {"username": student.username, "password": DEFAULT_PASSWORD, "user": 1, "token": "chosen"},
        format="json",
    )

    assert response.status_code == 200
    assert response.json()["token"] != "chosen"


# Malformed bodies ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("{bad", id="broken"),
        pytest.param('{"question": 1,', id="truncated"),
        pytest.param("{'question': 1, 'choice': 1}", id="single-quotes"),
        pytest.param('{"question": NaN, "choice": 1}', id="nan"),
        pytest.param('{"question": Infinity, "choice": 1}', id="infinity"),
        pytest.param(b"\xff\xfe{}", id="not-utf8"),
        pytest.param('{"question": 1} trailing', id="trailing"),
        pytest.param("1" * 5000, id="5000-digit-number"),
    ],
)
def test_malformed_json_is_parse_error(student_api, attempt_id, body):
    before = snapshot()

    assert_error(post_raw(student_api, answers_url(attempt_id), body), 400, "parse_error")
    assert snapshot() == before


def test_malformed_json_on_token_is_parse_error(anon, student):
    assert_error(post_raw(anon, TOKEN_URL, "{bad"), 400, "parse_error")


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("null", id="null"),
        pytest.param("[]", id="list"),
        pytest.param("[1, 2]", id="pair"),
        pytest.param('"question"', id="string"),
        pytest.param("42", id="number"),
        pytest.param("true", id="boolean"),
        pytest.param("{}", id="empty-object"),
        pytest.param("", id="empty-body"),
    ],
)
def test_body_that_is_not_an_answer_object_is_400(student_api, attempt_id, body):
    before = snapshot()

    response = post_raw(student_api, answers_url(attempt_id), body)

    error = assert_error(response, 400, "invalid")
    assert isinstance(error["errors"], dict) and error["errors"]
    assert snapshot() == before


# Wrong types and out-of-range numbers ------------------------------------------------------------

# Values as JSON text, so that literals json.dumps cannot write are included. A number too large
# for a float (1e400) is refused by the parser, as Infinity is: tests/common/test_malformed_input.py.
WRONG_TYPES = [
    pytest.param(json.dumps(value), id=name)
    for name, value in [
        ("string", "abc"),
        ("empty-string", ""),
        ("sql", "1 OR 1=1"),
        ("hex-string", "0x10"),
        ("list", [1]),
        ("empty-list", []),
        ("object", {"id": 1}),
        ("null", None),
        ("float", 1.5),
        ("true", True),
        ("false", False),
        ("long-string", "x" * 2000),
    ]
]
OUT_OF_RANGE = [
    pytest.param(str(2**70), id="2**70"),
    pytest.param(str(2**63), id="2**63"),
    pytest.param("-1", id="minus-1"),
    pytest.param("0", id="zero"),
    pytest.param(str(-(2**70)), id="minus-2**70"),
    pytest.param("-0", id="minus-zero"),
]


@pytest.mark.parametrize("field", ["question", "choice"])
@pytest.mark.parametrize("value", WRONG_TYPES + OUT_OF_RANGE)
def test_wrong_value_is_400_invalid(student_api, gc_quiz, attempt_id, field, value):
    choice = right(gc_quiz, 1)
    payload = {"question": str(choice.question_id), "choice": str(choice.pk), field: value}
    before = snapshot()

    body = "{" + f'"question": {payload["question"]}, "choice": {payload["choice"]}' + "}"
    response = post_raw(student_api, answers_url(attempt_id), body)

    error = assert_error(response, 400, "invalid")
    assert list(error["errors"]) == [field]
    assert all(isinstance(message, str) for message in error["errors"][field])
    assert snapshot() == before


@pytest.mark.parametrize("field", ["question", "choice"])
def test_missing_field_is_400_invalid(student_api, gc_quiz, attempt_id, field):
    choice = right(gc_quiz, 1)
    payload = {"question": choice.question_id, "choice": choice.pk}
    del payload[field]

    error = assert_error(student_api.post(answers_url(attempt_id), payload, format="json"), 400, "invalid")

    assert list(error["errors"]) == [field]
    assert not Answer.objects.exists()


@pytest.mark.parametrize(
    "literal",
    [
        pytest.param(lambda pk: f'"{pk}"', id="numeric-string"),
        pytest.param(lambda pk: f"{pk}.0", id="integral-float"),
        pytest.param(lambda pk: f"{pk}e0", id="exponent"),
    ],
)
def test_numeric_string_or_integral_float_id_is_400(student_api, gc_quiz, attempt_id, literal):
    choice = right(gc_quiz, 1)
    body = "{" + f'"question": {literal(choice.question_id)}, "choice": {literal(choice.pk)}' + "}"

    response = post_raw(student_api, answers_url(attempt_id), body)

    assert_error(response, 400, "invalid")
    assert not Answer.objects.exists()


# Sizes and content types ---------------------------------------------------------------------------


def test_huge_answer_body_is_refused(student_api, gc_quiz, attempt_id):
    choice = right(gc_quiz, 1)
    body = json.dumps({"question": choice.question_id, "choice": choice.pk, "padding": "x" * (3 * MB)})

    response = post_raw(student_api, answers_url(attempt_id), body)

    assert response.status_code in (400, 413)
    assert_error(response, response.status_code)
    assert not Answer.objects.exists()


@pytest.mark.parametrize("content_type", ["application/json", "application/x-www-form-urlencoded"])
def test_huge_token_body_is_refused(anon, student, content_type):
    if content_type == "application/json":
        body = json.dumps({"username": "x" * (3 * MB), "password": "x"})
    else:
        body = f"username={'x' * (3 * MB)}&password=x"

    response = post_raw(anon, TOKEN_URL, body, content_type)

    assert response.status_code in (400, 413)
    assert_error(response, response.status_code)


def test_body_just_under_the_limit_is_accepted(student_api, gc_quiz, attempt_id):
    choice = right(gc_quiz, 1)
    body = json.dumps({"question": choice.question_id, "choice": choice.pk, "padding": "x" * (2 * MB)})

    assert post_raw(student_api, answers_url(attempt_id), body).status_code == 201


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "application/xml", "multipart/form-data"]
)
def test_wrong_content_type_is_415(student_api, gc_quiz, attempt_id, content_type):
    choice = right(gc_quiz, 1)
    body = json.dumps({"question": choice.question_id, "choice": choice.pk})
    if content_type == "multipart/form-data":
        content_type += "; boundary=xyz"

    response = post_raw(student_api, answers_url(attempt_id), body, content_type)

    assert_error(response, 415, "unsupported_media_type")
    assert not Answer.objects.exists()


def test_token_wrong_content_type_is_415(anon, student):
    body = json.dumps({"username": student.username, "password": DEFAULT_PASSWORD})

    assert_error(post_raw(anon, TOKEN_URL, body, "text/plain"), 415, "unsupported_media_type")


def test_json_with_charset_is_accepted(student_api, gc_quiz, attempt_id):
    choice = right(gc_quiz, 1)
    body = json.dumps({"question": choice.question_id, "choice": choice.pk})

    assert post_raw(student_api, answers_url(attempt_id), body, "application/json; charset=utf-8").status_code == 201


@pytest.mark.parametrize("body", ["[" * 100_000, '{"a":' * 50_000], ids=["arrays", "objects"])
def test_deeply_nested_json_is_400_not_500(student_api, attempt_id, body):
    student_api.raise_request_exception = False

    response = post_raw(student_api, answers_url(attempt_id), body)

    assert_error(response, 400, "parse_error")


def test_deeply_nested_json_on_token_is_400_not_500(anon, student):
    anon.raise_request_exception = False

    assert_error(post_raw(anon, TOKEN_URL, "[" * 100_000), 400, "parse_error")


# Languages and unknown paths ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("get", lambda pk: QUIZZES_URL),
        ("get", lambda pk: quiz_url(GC)),
        ("post", lambda pk: start_url(GC)),
        ("get", lambda pk: attempt_url(pk)),
        ("post", lambda pk: answers_url(pk)),
        ("post", lambda pk: finish_url(pk)),
        ("get", lambda pk: PROGRESS_URL),
    ],
    ids=["list", "detail", "start", "attempt", "answer", "finish", "progress"],
)
def test_unknown_language_is_400_everywhere_and_changes_nothing(student_api, gc_quiz, attempt_id, method, url):
    choice = right(gc_quiz, 1)
    before = snapshot()

    if method == "get":
        response = student_api.get(f"{url(attempt_id)}?lang=klingon")
    else:
        payload = {"question": choice.question_id, "choice": choice.pk}
        response = student_api.post(f"{url(attempt_id)}?lang=klingon", payload, format="json")

    body = assert_error(response, 400, "unknown_language")
    assert "klingon" in body["detail"]
    assert snapshot() == before


def test_unknown_language_message_is_bounded(student_api, content):
    body = assert_error(student_api.get(QUIZZES_URL, {"lang": "x" * 10_000}), 400, "unknown_language")

    assert len(body["detail"]) < 200


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/nope/",
        "/api/nope/",
        "/api/",
        "/api/v2/quizzes/",
        "/api/v1/quizzes/a/b/c/",
        "/api/v1/attempts/1/nope/",
        "/api/v1/quizzes/not a slug/",
    ],
)
@pytest.mark.parametrize("authenticated", [True, False])
def test_unknown_api_path_is_404_json(student_api, anon, content, path, authenticated):
    client = student_api if authenticated else anon

    assert_error(client.get(path), 404, "not_found")


def test_answer_posted_twice_with_one_bad_field_records_nothing(student_api, gc_quiz, attempt_id):
    """A body whose second field is bad does not half-apply the first."""
    payload = {"question": question(gc_quiz, 1).pk, "choice": "nope"}

    assert_error(student_api.post(answers_url(attempt_id), payload, format="json"), 400, "invalid")
    assert not Answer.objects.exists()


# The answer's body read directly agrees with the serializer ----------------------------------


def by_serializer(data):
    body = AnswerRequestSerializer(data=data)
    if body.is_valid():
        return body.validated_data["question"], body.validated_data["choice"]
    return body.errors


def directly(data):
    try:
        return answer_request_ids(data)
    except ValidationError as error:
        return error.detail


ID_VALUES = st.one_of(
    st.integers(min_value=-2, max_value=3),
    st.sampled_from([MAX_ID - 1, MAX_ID, MAX_ID + 1, 2**70, True, False, 1.0, 2.5, "1", "", None, [1], {"id": 1}]),
)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.fixed_dictionaries({"question": ID_VALUES, "choice": ID_VALUES}),
        st.dictionaries(st.sampled_from(["question", "choice", "other"]), ID_VALUES),
        st.sampled_from([None, [], [1, 2], "question", 42, True]),
    )
)
def test_the_body_read_directly_is_what_the_serializer_gives(data):
    assert directly(data) == by_serializer(data)
