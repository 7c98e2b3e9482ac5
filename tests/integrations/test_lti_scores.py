"""Grades to the LTI platform through the outbox: posted by send_outbox, never by the finish;
the best grade at send time, exact (not its whole percent); retried while the platform is down;
never posted twice."""

from datetime import datetime, timedelta

import pytest
import time_machine
from django.core.management import call_command
from django.utils import timezone

from quizzes.attempts import grading
from quizzes.attempts.services import attempt_answer_submit, attempt_finish, attempt_start, practice_start
from quizzes.integrations.lti.scores import scores_url
from quizzes.models import LtiGradeTarget, OutboxMessage


@pytest.fixture
def target(lti_context, platform, student, gc_quiz):
    from lti_tool.models import LtiLineItem, LtiUser

    line_item = LtiLineItem.objects.create(
        context=lti_context, url=platform.line_item_url(7, "type_id=3"), maximum_score=10, label="GC"
    )
    lti_user = LtiUser.objects.create(registration=lti_context.deployment.registration, sub="s-1", auth_user=student)
    return LtiGradeTarget.objects.create(quiz=gc_quiz, lti_user=lti_user, line_item=line_item)


def take(student, quiz, right: int):
    """Start, answer the first ``right`` questions rightly and the others wrongly, finish."""
    attempt, _created = attempt_start(user=student, quiz=quiz)
    for position, question in enumerate(quiz.questions.order_by("position")):
        choices = question.choices.all()
        choice = choices.get(is_correct=True) if position < right else choices.filter(is_correct=False).first()
        attempt_answer_submit(
            user=student, attempt_id=attempt.pk, question_id=question.pk, choice_id=choice.pk, language="en"
        )
    return attempt_finish(attempt=attempt)


def send_outbox():
    call_command("send_outbox", "--once")


def grades():
    return list(OutboxMessage.objects.filter(kind=OutboxMessage.Kind.LTI_SCORE).order_by("id"))


def test_the_score_endpoint_keeps_the_line_items_query():
    assert (
        scores_url("https://lms.example/li/7/lineitem?type_id=3")
        == "https://lms.example/li/7/lineitem/scores?type_id=3"
    )
    assert scores_url("https://lms.example/li/7/") == "https://lms.example/li/7/scores"


def test_a_finish_posts_nothing_and_send_outbox_posts_the_best_grade_once(platform, target, student, gc_quiz):
    first = take(student, gc_quiz, right=3)
    assert (first.score, first.max_score) == (3, 8)
    take(student, gc_quiz, right=1)
    assert platform.state.requests == [] and platform.state.token_requests == []  # the finish does no HTTP

    send_outbox()
    [post] = platform.state.scores  # two finishes, one target: one post
    assert post.path == "/lineitems/7/lineitem/scores" and post.query == {"type_id": ["3"]}
    assert post.headers["content-type"] == "application/vnd.ims.lis.v1.score+json"
    body = post.body
    assert body["userId"] == "s-1"
    assert body["scoreGiven"] == 3.75  # 3 of 8 of a column out of 10: exact, not 37 % of 10 (3.7)
    assert body["scoreMaximum"] == 10
    assert (body["activityProgress"], body["gradingProgress"]) == ("Completed", "FullyGraded")
    stamp = datetime.fromisoformat(body["timestamp"])
    assert abs(stamp - timezone.now()) < timedelta(minutes=1) and len(body["timestamp"].split(".")[1]) == 9
    assert [m.state for m in grades()] == ["delivered", "delivered"]

    send_outbox()  # never twice
    assert len(platform.state.scores) == 1

    take(student, gc_quiz, right=0)  # a worse attempt later: the best grade still
    send_outbox()
    assert [p.body["scoreGiven"] for p in platform.state.scores] == [body["scoreGiven"]] * 2
    assert len(platform.state.token_requests) == 1  # the token was kept between runs


def test_a_platform_down_is_retried_with_backoff_until_it_takes_the_grade(platform, target, student, gc_quiz):
    platform.down()
    with time_machine.travel(timezone.now(), tick=False) as clock:
        take(student, gc_quiz, right=2)
        waits = []
        for _ in range(3):
            send_outbox()
            [message] = grades()
            assert message.state == "pending" and "ConnectionError" in message.last_error
            waits.append((message.due_at - timezone.now()).total_seconds())
            clock.move_to(message.due_at)
        assert 27 <= waits[0] <= 30 and 54 <= waits[1] <= 60 and 108 <= waits[2] <= 120

        platform.up()
        platform.state.score_status = 503  # up, but busy
        send_outbox()
        [message] = grades()
        assert (message.state, message.tries) == ("pending", 4) and "503" in message.last_error
        clock.move_to(message.due_at)

        platform.state.score_status = 200
        send_outbox()
        send_outbox()
    [message] = grades()
    assert (message.state, message.tries) == ("delivered", 5)
    assert len(platform.state.scores) == 1


def test_a_token_the_platform_no_longer_takes_is_renewed(platform, target, student, gc_quiz):
    take(student, gc_quiz, right=1)
    send_outbox()
    platform.revoke_tokens()
    with time_machine.travel(timezone.now(), tick=False) as clock:
        take(student, gc_quiz, right=2)
        send_outbox()
        message = grades()[-1]
        assert message.state == "pending" and "401" in message.last_error
        clock.move_to(message.due_at)
        send_outbox()
    assert [m.state for m in grades()] == ["delivered", "delivered"]
    assert len(platform.state.token_requests) == 2
    assert len(platform.state.scores) == 2


def test_a_grade_the_platform_refuses_is_kept_as_failed_with_its_answer(platform, target, student, gc_quiz):
    platform.state.score_status = 400
    take(student, gc_quiz, right=1)
    send_outbox()
    [message] = grades()
    assert message.state == "failed"
    assert "400" in message.last_error and "userId unknown" in message.last_error
    platform.state.score_status = 200
    send_outbox()  # failed stays failed until staff send it again
    assert platform.state.scores == []


def test_a_tool_key_the_platform_does_not_know_gets_no_token(platform, target, student, gc_quiz):
    platform.state.jwks = {"keys": []}
    take(student, gc_quiz, right=1)
    send_outbox()
    [message] = grades()
    assert message.state == "pending" and "invalid_client" in message.last_error
    assert platform.state.scores == []


def test_a_practice_attempt_sends_no_grade(platform, target, student, gc_quiz):
    attempt = take(student, gc_quiz, right=0)
    practice, _created = practice_start(user=student, attempt_id=attempt.pk)
    attempt_finish(attempt=practice)
    assert len(grades()) == 1


@pytest.mark.parametrize(
    ("right", "maximum", "given"),
    [
        (7, 8, 7),  # the column counts the questions: the score itself
        (7, 100, 87.5),  # not 87, the whole percent the pages show
        (8, 100, 100),
        (0, 100, 0),
    ],
)
def test_the_grade_posted_is_the_exact_score_scaled_to_the_column(
    platform, target, student, gc_quiz, right, maximum, given
):
    target.line_item.maximum_score = maximum
    target.line_item.save(update_fields=["maximum_score"])
    take(student, gc_quiz, right=right)
    send_outbox()
    [post] = platform.state.scores
    assert (post.body["scoreGiven"], post.body["scoreMaximum"]) == (given, maximum)
    assert isinstance(post.body["scoreGiven"], type(given))  # a whole grade is posted as 7, not 7.0


def test_the_best_attempt_is_the_one_with_the_highest_percent(platform, target, student, gc_quiz):
    take(student, gc_quiz, right=5)
    take(student, gc_quiz, right=7)
    take(student, gc_quiz, right=6)
    send_outbox()
    [post] = platform.state.scores
    assert post.body["scoreGiven"] == 8.75  # 7 of 8, of 10


@pytest.mark.parametrize(
    ("score", "max_score", "maximum", "expected"),
    [
        (7, 8, 8, 7),
        (7, 8, 100, 87.5),
        (7, 8, 100.0, 87.5),  # a line item's maximum, as its FloatField reads
        (2, 3, 3, 2),
        (2, 3, 10, 6.666667),  # not a whole number of millionths: to the nearest one
        (1, 3, 0.3, 0.1),  # floats say 0.09999999999999999
        (1, 7, 100, 14.285714),
        (5, 6, 100, 83.333333),
        (3, 8, 10, 3.75),
        (0, 0, 100, 0),  # an attempt at no question: 0, as its percent
        (None, 8, 100, None),  # in progress: no grade
    ],
)
def test_scaled_is_exact(score, max_score, maximum, expected):
    value = grading.scaled(score, max_score, maximum)
    assert value == expected
    assert type(value) is type(expected)  # whole values are ints: a JSON 7, not 7.0
