"""Idempotency-Key: a retried write is answered once, with the first response."""

import pytest

from quizzes.models import Answer, Attempt, IdempotencyKey
from tests.api import answer, assert_error, finish_url, right, start, start_url, wrong

pytestmark = pytest.mark.django_db
GC = "gradient-checkpointing"


def key(value: str) -> dict:
    return {"HTTP_IDEMPOTENCY_KEY": value}


def test_a_retried_answer_replays_the_first_response(student_api, gc_quiz):
    attempt_id = start(student_api, GC)

    first = answer(student_api, attempt_id, right(gc_quiz, 1), **key("answer-1"))
    retry = answer(student_api, attempt_id, right(gc_quiz, 1), **key("answer-1"))

    assert first.status_code == 201
    assert retry.status_code == 201
    assert retry["Idempotent-Replayed"] == "true"
    assert retry.json() == first.json()
    assert Answer.objects.filter(attempt_id=attempt_id).count() == 1


def test_a_retried_start_is_the_same_new_attempt(student_api):
    first = student_api.post(start_url(GC), format="json", **key("start-1"))
    retry = student_api.post(start_url(GC), format="json", **key("start-1"))

    assert (first.status_code, retry.status_code) == (201, 201)
    assert retry.json()["id"] == first.json()["id"]
    assert Attempt.objects.count() == 1


def test_a_retried_finish_replays_the_result(student_api, gc_quiz):
    attempt_id = start(student_api, GC)
    answer(student_api, attempt_id, right(gc_quiz, 1))

    first = student_api.post(finish_url(attempt_id), format="json", **key("finish-1"))
    retry = student_api.post(finish_url(attempt_id), format="json", **key("finish-1"))

    assert first.status_code == retry.status_code == 200
    assert retry.json() == first.json() == {**first.json(), "score": 1, "max_score": 8}


def test_the_same_key_for_another_request_is_refused(student_api, gc_quiz):
    attempt_id = start(student_api, GC)
    answer(student_api, attempt_id, right(gc_quiz, 1), **key("k"))

    response = answer(student_api, attempt_id, right(gc_quiz, 2), **key("k"))

    assert_error(response, 422, "idempotency_key_reused")
    assert Answer.objects.filter(attempt_id=attempt_id).count() == 1


@pytest.mark.parametrize("value", ["", "has space", "x" * 256, "ключ"])
def test_malformed_keys_are_refused_and_nothing_is_written(student_api, gc_quiz, value):
    attempt_id = start(student_api, GC)

    response = answer(student_api, attempt_id, right(gc_quiz, 1), **key(value))

    assert_error(response, 400, "invalid_idempotency_key")
    assert not Answer.objects.filter(attempt_id=attempt_id).exists()


def test_refusals_are_not_recorded(student_api, gc_quiz):
    attempt_id = start(student_api, GC)
    answer(student_api, attempt_id, right(gc_quiz, 1))

    refused = answer(student_api, attempt_id, wrong(gc_quiz, 1), **key("late"))

    assert_error(refused, 409, "already_answered")
    assert not IdempotencyKey.objects.exists()


def test_keys_belong_to_their_user(student_api, other_api, gc_quiz):
    mine = student_api.post(start_url(GC), format="json", **key("shared"))
    theirs = other_api.post(start_url(GC), format="json", **key("shared"))

    assert (mine.status_code, theirs.status_code) == (201, 201)
    assert mine.json()["id"] != theirs.json()["id"]
    assert "Idempotent-Replayed" not in theirs


def test_without_a_key_nothing_is_recorded(student_api, gc_quiz):
    attempt_id = start(student_api, GC)
    answer(student_api, attempt_id, right(gc_quiz, 1))

    assert not IdempotencyKey.objects.exists()
