"""The xAPI statements of an attempt, as built from its records (no LRS)."""

import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from quizzes.attempts.services import attempt_answer_submit, attempt_finish, attempt_start
from quizzes.integrations.xapi.statements import duration, registration, statement_id, statements_build
from quizzes.models import Choice, OutboxMessage, QuestionKind

Kind = OutboxMessage.Kind
SITE = "https://quiz.example.org"
START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def xapi(settings):
    settings.XAPI_ENDPOINT = "http://127.0.0.1:9/xAPI/"
    settings.LMS_SITE_URL = SITE


def submit(attempt, choice, language="ur"):
    answer, _new = attempt_answer_submit(
        user=attempt.user, attempt_id=attempt.pk, question_id=choice.question_id, choice_id=choice.pk, language=language
    )
    return answer


@pytest.fixture
def taken(student, gc_quiz):
    """An attempt started at START, answered right (in Urdu, 12.5 s later), then wrong (in
    Indonesian, 1 min 3 s after that), finished at START + 2 min."""
    questions = list(gc_quiz.questions.order_by("position")[:2])
    with time_machine.travel(START, tick=False) as clock:
        attempt, _created = attempt_start(user=student, quiz=gc_quiz)
        clock.shift(timedelta(seconds=12.5))
        right = submit(attempt, questions[0].choices.get(is_correct=True))
        clock.shift(timedelta(seconds=63))
        wrong = submit(attempt, questions[1].choices.filter(is_correct=False).first(), language="id")
        clock.move_to(START + timedelta(minutes=2))
        attempt = attempt_finish(attempt=attempt)
    return attempt, right, wrong


def built():
    messages = list(OutboxMessage.objects.order_by("id"))
    statements = statements_build(messages)
    return {(m.kind, m.subject_id): statements[m.pk] for m in messages}


def test_the_start(taken, student, gc_quiz):
    attempt, _right, _wrong = taken
    started = built()[Kind.XAPI_STARTED, attempt.pk]
    assert started["id"] == statement_id(Kind.XAPI_STARTED, str(attempt.pk))
    assert uuid.UUID(started["id"]).version == 5
    assert started["actor"] == {
        "objectType": "Agent",
        "name": student.username,
        "account": {"homePage": SITE, "name": str(student.pk)},
    }
    assert started["verb"]["id"] == "http://adlnet.gov/expapi/verbs/initialized"
    quiz = started["object"]
    assert quiz["id"] == f"{SITE}/quizzes/{gc_quiz.slug}"
    assert quiz["definition"]["type"] == "http://adlnet.gov/expapi/activities/assessment"
    assert quiz["definition"]["name"]["en"] == gc_quiz.title_en
    assert quiz["definition"]["name"]["ur"] == gc_quiz.title_ur and gc_quiz.title_ur
    assert set(quiz["definition"]["name"]) <= {"en", "ur", "sn", "id"}
    assert started["timestamp"] == "2026-03-01T09:00:00.000000Z"
    context = started["context"]
    assert context["registration"] == registration(attempt.pk)
    assert context["contextActivities"]["grouping"][0]["id"] == f"{SITE}/courses/memory-efficient-training"
    assert context["extensions"] == {f"{SITE}/xapi/extensions/practice": False}
    assert started["version"] == "1.0.3"


def test_each_answer(taken, gc_quiz):
    attempt, right, wrong = taken
    statements = built()
    first, second = statements[Kind.XAPI_ANSWERED, right.pk], statements[Kind.XAPI_ANSWERED, wrong.pk]
    assert first["verb"]["id"] == "http://adlnet.gov/expapi/verbs/answered"
    assert first["result"] == {"success": True, "response": str(right.choice_id), "duration": "PT12.5S"}
    assert second["result"] == {"success": False, "response": str(wrong.choice_id), "duration": "PT1M3S"}
    assert first["context"]["language"] == "ur" and second["context"]["language"] == "id"
    assert first["timestamp"] == "2026-03-01T09:00:12.500000Z"
    assert first["context"]["registration"] == second["context"]["registration"] == registration(attempt.pk)
    assert first["context"]["contextActivities"]["parent"][0]["id"] == f"{SITE}/quizzes/{gc_quiz.slug}"
    assert first["context"]["extensions"] == {
        f"{SITE}/xapi/extensions/question-version": right.version.number,
        f"{SITE}/xapi/extensions/practice": False,
    }
    question = first["object"]
    version = right.version
    assert question["id"] == f"{SITE}/quizzes/{gc_quiz.slug}/questions/{right.question_id}"
    definition = question["definition"]
    assert definition["type"] == "http://adlnet.gov/expapi/activities/cmi.interaction"
    assert definition["interactionType"] == "choice"
    assert definition["description"]["en"] == version.texts["text_en"]
    assert definition["description"]["ur"] == version.texts["text_ur"]
    assert [c["id"] for c in definition["choices"]] == [str(c["id"]) for c in version.choices]
    assert definition["choices"][0]["description"]["sn"] == version.choices[0]["text_sn"]
    assert definition["correctResponsesPattern"] == [str(version.correct_choice_id)] == [str(right.choice_id)]


def test_the_finish(taken):
    attempt, _right, _wrong = taken
    finished = built()[Kind.XAPI_FINISHED, attempt.pk]
    assert finished["verb"]["id"] == "http://adlnet.gov/expapi/verbs/completed"
    max_score = attempt.max_score
    assert finished["result"] == {
        "completion": True,
        "success": 100 // max_score >= attempt.pass_mark,
        "score": {"raw": 1, "min": 0, "max": max_score, "scaled": 1 / max_score},
        "duration": "PT2M",
    }
    assert finished["timestamp"] == "2026-03-01T09:02:00.000000Z"


def test_the_finish_says_what_was_graded_then(taken):
    # A regrade may change the attempt's row; the statement keeps the score it finished with.
    attempt, _right, _wrong = taken
    message = OutboxMessage.objects.get(kind=Kind.XAPI_FINISHED)
    message.payload = {"score": 3, "max_score": 4, "pass_mark": 75}
    message.save()
    result = built()[Kind.XAPI_FINISHED, attempt.pk]["result"]
    assert (result["success"], result["score"]["scaled"]) == (True, 0.75)
    message.payload = {"score": 2, "max_score": 4, "pass_mark": 75}
    message.save()
    assert built()[Kind.XAPI_FINISHED, attempt.pk]["result"]["success"] is False


@pytest.mark.parametrize(
    ("score", "max_score", "scaled"),
    [
        (7, 8, 0.875),
        (8, 8, 1),
        (2, 3, 0.666667),  # not 0.6666666666666666: to the millionth, as the LTI grade
        (1, 7, 0.142857),
        (0, 8, 0),
        (0, 0, 0),  # an attempt at no question
    ],
)
def test_the_scaled_score_is_exact(taken, score, max_score, scaled):
    attempt, _right, _wrong = taken
    message = OutboxMessage.objects.get(kind=Kind.XAPI_FINISHED)
    message.payload = {"score": score, "max_score": max_score, "pass_mark": 50}
    message.save()
    result = built()[Kind.XAPI_FINISHED, attempt.pk]["result"]
    assert result["score"] == {"raw": score, "min": 0, "max": max_score, "scaled": scaled}
    assert json.dumps(result["score"]).endswith(f'"scaled": {scaled}}}')  # as sent: 1, not 1.0


def test_a_second_build_is_the_same_statement(taken, student):
    first = built()
    student.username = "renamed"  # the account, not the name, identifies the student
    assert built() == first
    ids = [statement["id"] for statement in first.values()]
    assert len(set(ids)) == len(ids) == 4


def test_practice_attempts_are_marked(student, gc_quiz):
    attempt, _created = attempt_start(user=student, quiz=gc_quiz)
    attempt.is_practice = True
    attempt.save(update_fields=["is_practice"])
    [statement] = built().values()
    assert statement["context"]["extensions"][f"{SITE}/xapi/extensions/practice"] is True


def test_a_message_whose_records_are_gone_builds_nothing(taken):
    attempt, _right, _wrong = taken
    messages = list(OutboxMessage.objects.all())
    attempt.delete()
    assert statements_build(messages) == {}


def test_a_batch_costs_a_few_queries(django_assert_max_num_queries, content, gc_quiz):
    from tests.factories import EnrollmentFactory, UserFactory

    questions = list(gc_quiz.questions.order_by("position"))
    for number in range(8):
        user = UserFactory(username=f"s{number}")
        EnrollmentFactory(user=user, course=gc_quiz.course)
        attempt, _created = attempt_start(user=user, quiz=gc_quiz)
        for question in questions[:5]:
            submit(attempt, question.choices.first())
        attempt_finish(attempt=attempt)
    messages = list(OutboxMessage.objects.order_by("id")[:50])
    assert len(messages) == 50
    with django_assert_max_num_queries(3):
        statements_build([m for m in messages if m.kind == Kind.XAPI_ANSWERED])
    with django_assert_max_num_queries(4):
        assert len(statements_build(messages)) == 50


@pytest.mark.parametrize(
    ("elapsed", "expected"),
    [
        (timedelta(0), "PT0S"),
        (timedelta(seconds=0.004), "PT0S"),
        (timedelta(seconds=7.25), "PT7.25S"),
        (timedelta(minutes=3), "PT3M"),
        (timedelta(hours=2, seconds=1.5), "PT2H1.5S"),
        (timedelta(days=1, minutes=1), "PT24H1M"),
        (timedelta(seconds=-1), "PT0S"),
    ],
)
def test_durations(elapsed, expected):
    assert duration(elapsed) == expected


def test_a_true_or_false_question_is_a_true_false_interaction(student, gc_quiz):
    """xAPI's own interaction for it: no choices, the responses "true" and "false"."""
    question = gc_quiz.questions.order_by("position").first()
    question.choices.all().delete()
    question.kind, question.keep_choice_order = QuestionKind.TRUE_FALSE, True
    question.save()
    Choice.objects.create(question=question, position=1, text_en="True")
    Choice.objects.create(question=question, position=2, text_en="False", is_correct=True)
    attempt, _created = attempt_start(user=student, quiz=gc_quiz)
    answer = submit(attempt, question.choices.get(position=1), language="en")

    statement = built()[Kind.XAPI_ANSWERED, answer.pk]
    definition = statement["object"]["definition"]
    assert definition["interactionType"] == "true-false"
    assert "choices" not in definition
    assert definition["correctResponsesPattern"] == ["false"]
    assert statement["result"]["response"] == "true" and statement["result"]["success"] is False
