"""xAPI statements delivered to a real LRS (ralph, tests/integrations/lrs.py) by send_outbox,
through an outage of the LRS, and resent."""

from collections import Counter
from datetime import timedelta

import pytest
import requests
import time_machine
from django.core.management import call_command
from django.utils import timezone

from quizzes.attempts.services import attempt_answer_submit, attempt_finish, attempt_start
from quizzes.integrations.senders import outbox_senders
from quizzes.integrations.xapi import sender
from quizzes.integrations.xapi.statements import registration, statements_build
from quizzes.models import OutboxMessage
from quizzes.outbox.delivery import Delivered, Refused, Retry, deliver_due
from tests.integrations.lrs import PASSWORD, USERNAME, Lrs, require_lrs

Kind = OutboxMessage.Kind
State = OutboxMessage.State
# Set by the LRS on arrival: not the site's.
LRS_FIELDS = ("stored", "authority")

pytestmark = pytest.mark.xdist_group("lrs")


@pytest.fixture(scope="module")
def ralph():
    require_lrs()
    lrs = Lrs()
    try:
        lrs.start()
        yield lrs
    finally:
        lrs.close()


@pytest.fixture
def lrs(ralph, settings):
    if ralph.process is None:  # a test that stopped it failed before starting it again
        ralph.start()
    ralph.clear()  # ids of rolled-back tests' rows come back: each test starts with an empty LRS
    settings.XAPI_ENDPOINT = ralph.endpoint
    settings.XAPI_USERNAME, settings.XAPI_PASSWORD = USERNAME, PASSWORD
    return ralph


def submit(attempt, question, *, right=True):
    choices = question.choices.filter(is_correct=right)
    answer, _new = attempt_answer_submit(
        user=attempt.user, attempt_id=attempt.pk, question_id=question.pk, choice_id=choices.first().pk, language="sn"
    )
    return answer


def send_outbox():
    call_command("send_outbox", "--once")


def sent_statements() -> dict[str, dict]:
    """What the site would send for every message, by statement id."""
    return {statement["id"]: statement for statement in statements_build(OutboxMessage.objects.all()).values()}


def as_sent(stored: dict) -> dict:
    return {name: value for name, value in stored.items() if name not in LRS_FIELDS}


def test_an_attempt_arrives_whole_and_once(lrs, student, gc_quiz):
    attempt, _created = attempt_start(user=student, quiz=gc_quiz)
    questions = list(gc_quiz.questions.order_by("position"))
    for number, question in enumerate(questions):
        submit(attempt, question, right=number % 2 == 0)
    attempt_finish(attempt=attempt)
    send_outbox()

    assert set(OutboxMessage.objects.values_list("state", flat=True)) == {State.DELIVERED}
    expected = sent_statements()
    assert len(expected) == len(questions) + 2
    stored = lrs.stored()
    assert Counter(statement["id"] for statement in stored) == Counter(dict.fromkeys(expected, 1))
    assert {statement["id"]: as_sent(statement) for statement in stored} == expected
    # And as an analytics team reads them back: the LRS's statements API, by registration.
    found = lrs.get("statements", params={"registration": registration(attempt.pk), "limit": 100}).json()
    back = {statement["id"]: statement for statement in found["statements"]}
    assert back.keys() == expected.keys()
    answers = [s for s in back.values() if s["verb"]["id"].endswith("/answered")]
    assert [s["result"]["success"] for s in sorted(answers, key=lambda s: s["timestamp"])] == [
        number % 2 == 0 for number in range(len(questions))
    ]
    assert {s["context"]["language"] for s in answers} == {"sn"}
    [finish] = [s for s in back.values() if s["verb"]["id"].endswith("/completed")]
    assert finish["result"]["score"]["raw"] == (len(questions) + 1) // 2


def test_an_outage_loses_nothing_and_repeats_nothing(lrs, student, gc_quiz, monkeypatch):
    attempt, _created = attempt_start(user=student, quiz=gc_quiz)
    questions = list(gc_quiz.questions.order_by("position"))
    half = len(questions) // 2
    for question in questions[:half]:
        submit(attempt, question)
    send_outbox()  # the start and the first answers arrive
    assert len(lrs.stored()) == half + 1

    lrs.stop()
    with monkeypatch.context() as offline:
        # The student never waits for the LRS: no HTTP at all while answering and finishing.
        offline.setattr(requests.Session, "request", lambda *args, **kwargs: pytest.fail("HTTP in the answer path"))
        for question in questions[half:]:
            submit(attempt, question)
        attempt_finish(attempt=attempt)
    send_outbox()
    waiting = list(OutboxMessage.objects.filter(state=State.PENDING))
    assert len(waiting) == len(questions) - half + 1
    assert all(m.tries == 1 and m.due_at > timezone.now() and "ConnectionError" in m.last_error for m in waiting)

    lrs.start()  # the same data directory: what arrived before the outage is still there
    send_outbox()  # nothing is due yet: they wait out their retry
    assert OutboxMessage.objects.filter(state=State.PENDING).count() == len(waiting)
    with time_machine.travel(timezone.now() + timedelta(minutes=2)):
        send_outbox()
    assert not OutboxMessage.objects.filter(state=State.PENDING).exists()
    ids = Counter(statement["id"] for statement in lrs.stored())
    assert ids == Counter(dict.fromkeys(sent_statements(), 1))


def test_a_resend_of_delivered_statements_counts_as_delivered(lrs, student, gc_quiz, monkeypatch):
    attempt, _created = attempt_start(user=student, quiz=gc_quiz)
    for question in gc_quiz.questions.order_by("position")[:3]:
        submit(attempt, question)
    send_outbox()
    stored = lrs.stored()
    # As after a crash between the LRS's answer and the commit: every message pending again.
    # The username changed since, so each resent statement differs from the stored one by the
    # actor's name, and ralph answers 409 for its id.
    OutboxMessage.objects.update(state=State.PENDING, delivered_at=None)
    student.username = "renamed-student"
    student.save()
    answers = []
    put = requests.Session.put

    def recorded_put(self, *args, **kwargs):
        response = put(self, *args, **kwargs)
        answers.append(response.status_code)
        return response

    monkeypatch.setattr(requests.Session, "put", recorded_put)
    report = deliver_due(outbox_senders())
    assert (report.delivered, report.retried, report.refused) == (4, 0, 0)
    assert answers == [409] * 4  # each batch was answered 409, then each statement alone
    assert lrs.stored() == stored
    # Sent unchanged, the LRS takes the batch (200) and stores nothing again.
    OutboxMessage.objects.update(state=State.PENDING, delivered_at=None)
    student.username = "student-1"
    student.save()
    assert deliver_due(outbox_senders()).delivered == 4
    assert lrs.stored() == stored


def test_a_statement_the_lrs_refuses_is_kept_and_the_others_go(lrs, student, gc_quiz, monkeypatch):
    attempt, _created = attempt_start(user=student, quiz=gc_quiz)
    first, second = (submit(attempt, question) for question in gc_quiz.questions.order_by("position")[:2])
    bad = OutboxMessage.objects.get(kind=Kind.XAPI_ANSWERED, subject_id=first.pk)
    build = sender.statements_build

    def one_broken(messages):
        statements = build(messages)
        if bad.pk in statements:
            del statements[bad.pk]["actor"]
        return statements

    monkeypatch.setattr(sender, "statements_build", one_broken)
    report = deliver_due(outbox_senders())
    # The answers' batch is refused whole (ralph: 422); sent one by one, the good one is taken.
    assert (report.delivered, report.refused) == (2, 1), report.errors
    bad.refresh_from_db()
    assert bad.state == State.FAILED and "Field required" in bad.last_error  # the LRS's reason
    good = OutboxMessage.objects.get(kind=Kind.XAPI_ANSWERED, subject_id=second.pk)
    assert good.state == State.DELIVERED
    assert len(lrs.stored()) == 2


def test_wrong_credentials_are_retried(lrs, settings, student, gc_quiz):
    settings.XAPI_PASSWORD = "wrong"
    attempt_start(user=student, quiz=gc_quiz)
    report = deliver_due(outbox_senders())
    assert (report.retried, report.refused) == (1, 0)
    [message] = OutboxMessage.objects.all()
    assert message.state == State.PENDING and message.last_error.startswith("401 ")
    assert lrs.stored() == []


class FakeResponse:
    def __init__(self, status_code, text=""):
        self.status_code, self.text, self.reason = status_code, text, "Reason"


@pytest.mark.parametrize(
    ("status", "outcome"),
    [(200, Delivered), (500, Retry), (503, Retry), (429, Retry), (403, Retry), (400, Refused), (422, Refused)],
)
def test_what_each_answer_of_the_lrs_means(settings, student, gc_quiz, monkeypatch, status, outcome):
    settings.XAPI_ENDPOINT = "http://127.0.0.1:9/xAPI"  # no trailing slash: the same URL
    calls = []

    def post(self, url, **kwargs):
        calls.append((url, self.headers["X-Experience-API-Version"]))
        return FakeResponse(status, "the LRS's reason")

    monkeypatch.setattr(requests.Session, "post", post)
    attempt_start(user=student, quiz=gc_quiz)
    [message] = OutboxMessage.objects.all()
    [result] = sender.xapi_send([message]).values()
    assert isinstance(result, outcome)
    assert calls == [("http://127.0.0.1:9/xAPI/statements", "1.0.3")]
    if outcome is not Delivered:
        assert result.error == f"{status} Reason: the LRS's reason"


def test_no_lrs_no_sender(settings):
    settings.XAPI_ENDPOINT = ""
    assert list(outbox_senders()) == [OutboxMessage.Kind.LTI_SCORE]  # LTI needs no setting
