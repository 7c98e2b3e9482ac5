"""The outbox: messages written in the transaction of what they report, and their delivery."""

from datetime import timedelta

import pytest
import time_machine
from django.core.management import call_command
from django.utils import timezone

from quizzes.attempts.services import AttemptError, attempt_answer_submit, attempt_finish, attempt_start
from quizzes.models import LtiGradeTarget, OutboxMessage
from quizzes.outbox import delivery
from quizzes.outbox.delivery import Delivered, Refused, Retry, deliver_due, outbox_retry, retry_wait
from quizzes.outbox.services import outbox_enqueue

Kind = OutboxMessage.Kind


@pytest.fixture
def xapi(settings):
    settings.XAPI_ENDPOINT = "http://127.0.0.1:9/xAPI/"


def submit(attempt, choice):
    return attempt_answer_submit(
        user=attempt.user, attempt_id=attempt.pk, question_id=choice.question_id, choice_id=choice.pk, language="ur"
    )


def messages(kind=None):
    found = OutboxMessage.objects.order_by("id")
    return list(found.filter(kind=kind) if kind else found)


def test_nothing_is_written_without_an_lrs(student, gc_quiz):
    attempt, _created = attempt_start(user=student, quiz=gc_quiz)
    submit(attempt, gc_quiz.questions.first().choices.first())
    attempt_finish(attempt=attempt)
    assert messages() == []


@pytest.mark.django_db(transaction=True)
def test_an_attempt_reports_its_start_each_answer_and_its_finish(xapi, student, gc_quiz):
    # transaction=True: the answer's statement runs outside any transaction, as in production
    # (on PostgreSQL, the answer's message with BEGIN and COMMIT).
    attempt, _created = attempt_start(user=student, quiz=gc_quiz)
    questions = list(gc_quiz.questions.order_by("position")[:2])
    first, _new = submit(attempt, questions[0].choices.get(is_correct=True))
    second, _new = submit(attempt, questions[1].choices.filter(is_correct=False).first())
    finished = attempt_finish(attempt=attempt)

    [started] = messages(Kind.XAPI_STARTED)
    assert (started.key, started.subject_id, started.state) == (str(attempt.pk), attempt.pk, "pending")
    answered = messages(Kind.XAPI_ANSWERED)
    assert [(m.key, m.subject_id) for m in answered] == [(str(first.pk), first.pk), (str(second.pk), second.pk)]
    assert all(m.payload == {} and m.due_at == m.created_at for m in answered)
    assert answered[0].created_at == first.answered_at
    [done] = messages(Kind.XAPI_FINISHED)
    assert done.payload == {"score": 1, "max_score": finished.max_score, "pass_mark": finished.pass_mark}


@pytest.mark.django_db(transaction=True)
def test_a_refused_or_repeated_answer_writes_no_message(xapi, student, gc_quiz):
    attempt, _created = attempt_start(user=student, quiz=gc_quiz)
    question = gc_quiz.questions.order_by("position").first()
    right = question.choices.get(is_correct=True)
    submit(attempt, right)
    submit(attempt, right)  # the same choice again: the recorded answer, nothing new
    with pytest.raises(AttemptError):
        submit(attempt, question.choices.filter(is_correct=False).first())
    attempt_finish(attempt=attempt)
    with pytest.raises(AttemptError):
        submit(attempt, gc_quiz.questions.order_by("position")[1].choices.first())
    assert len(messages(Kind.XAPI_ANSWERED)) == 1


def test_a_finish_sends_the_grade_to_each_line_item_of_the_student(student, gc_quiz, other_student):
    from lti_tool.models import LtiContext, LtiDeployment, LtiLineItem, LtiRegistration, LtiUser

    registration = LtiRegistration.objects.create(
        name="LMS", issuer="https://lms.example", client_id="c", auth_url="https://lms.example/a",
        token_url="https://lms.example/t", keyset_url="https://lms.example/k",
    )  # fmt: skip
    deployment = LtiDeployment.objects.create(registration=registration, deployment_id="d", is_active=True)
    context = LtiContext.objects.create(deployment=deployment, id_on_platform="course-1")
    item = LtiLineItem.objects.create(context=context, url="https://lms.example/li/1", maximum_score=1, label="GC")
    mine = LtiUser.objects.create(registration=registration, sub="s-1", auth_user=student)
    theirs = LtiUser.objects.create(registration=registration, sub="s-2", auth_user=other_student)
    target = LtiGradeTarget.objects.create(quiz=gc_quiz, lti_user=mine, line_item=item)
    LtiGradeTarget.objects.create(quiz=gc_quiz, lti_user=theirs, line_item=item)

    attempt, _created = attempt_start(user=student, quiz=gc_quiz)
    attempt_finish(attempt=attempt)
    attempt_finish(attempt=attempt)  # finishing again sends nothing again
    [grade] = messages(Kind.LTI_SCORE)
    assert (grade.key, grade.subject_id, grade.payload) == (
        f"{target.pk}:{attempt.pk}",
        attempt.pk,
        {"target": target.pk},
    )


def test_enqueue_names_a_message_once(db):
    assert outbox_enqueue(kind=Kind.XAPI_STARTED, key="7", subject_id=7, payload={"a": 1})
    assert not outbox_enqueue(kind=Kind.XAPI_STARTED, key="7", subject_id=7, payload={"a": 2})
    assert outbox_enqueue(kind=Kind.XAPI_FINISHED, key="7", subject_id=7)
    assert [m.payload for m in messages()] == [{"a": 1}, {}]


def _three(db):
    for key in ("1", "2", "3"):
        outbox_enqueue(kind=Kind.XAPI_ANSWERED, key=key, subject_id=int(key))
    outbox_enqueue(kind=Kind.LTI_SCORE, key="1:1", subject_id=1)


def test_delivery_records_each_outcome(db):
    _three(db)
    one, two, three = messages(Kind.XAPI_ANSWERED)
    sent = []

    def sender(batch):
        sent.append([m.key for m in batch])
        return {one.pk: Delivered(), two.pk: Retry("503 Service Unavailable"), three.pk: Refused("400 bad")}

    report = deliver_due({Kind.XAPI_ANSWERED: sender})
    assert sent == [["1", "2", "3"]]
    assert (report.delivered, report.retried, report.refused) == (1, 1, 1)
    one, two, three = messages(Kind.XAPI_ANSWERED)
    assert (one.state, one.tries, one.delivered_at is not None) == ("delivered", 1, True)
    assert (two.state, two.tries, two.last_error) == ("pending", 1, "503 Service Unavailable")
    assert two.due_at > timezone.now() + timedelta(seconds=20)
    assert (three.state, three.last_error) == ("failed", "400 bad")
    # Nothing is due now: a second run sends nothing; the grade has no sender and waits.
    assert deliver_due({Kind.XAPI_ANSWERED: sender}).sent == 0
    assert messages(Kind.LTI_SCORE)[0].state == "pending"


def test_a_message_is_retried_with_a_growing_wait_until_delivered(db):
    outbox_enqueue(kind=Kind.XAPI_STARTED, key="1", subject_id=1)
    down = True

    def sender(batch):
        if down:
            raise ConnectionError("connection refused")
        return {m.pk: Delivered() for m in batch}

    waits = []
    with time_machine.travel(timezone.now(), tick=False) as clock:
        for _ in range(4):
            assert deliver_due({Kind.XAPI_STARTED: sender}).retried == 1
            [message] = messages()
            waits.append(message.due_at - timezone.now())
            assert "ConnectionError: connection refused" in message.last_error
            clock.move_to(message.due_at)
        down = False
        assert deliver_due({Kind.XAPI_STARTED: sender}).delivered == 1
    assert waits == sorted(waits) and waits[-1] > waits[0] * 6
    [message] = messages()
    assert (message.state, message.tries) == ("delivered", 5)
    assert deliver_due({Kind.XAPI_STARTED: sender}).sent == 0  # never sent again


def test_the_wait_doubles_up_to_an_hour():
    for tries, seconds in [(1, 30), (2, 60), (3, 120), (10, 3600), (40, 3600)]:
        assert timedelta(seconds=seconds * 0.9) <= retry_wait(tries) <= timedelta(seconds=seconds)


def test_batches_are_taken_until_none_is_due(db):
    for key in range(7):
        outbox_enqueue(kind=Kind.XAPI_ANSWERED, key=str(key), subject_id=key)
    sizes = []

    def sender(batch):
        sizes.append(len(batch))
        return {m.pk: Delivered() for m in batch}

    assert deliver_due({Kind.XAPI_ANSWERED: sender}, batch_size=3).delivered == 7
    assert sizes == [3, 3, 1]


def test_staff_may_send_a_failed_message_again(db):
    _three(db)
    one, two, three = messages(Kind.XAPI_ANSWERED)
    deliver_due({Kind.XAPI_ANSWERED: lambda batch: {one.pk: Delivered(), two.pk: Refused("no"), three.pk: Retry("x")}})
    assert outbox_retry(message_ids=[one.pk, two.pk, three.pk]) == 2
    one, two, three = messages(Kind.XAPI_ANSWERED)
    assert [m.state for m in (one, two, three)] == ["delivered", "pending", "pending"]
    assert two.due_at <= timezone.now() and three.due_at <= timezone.now()


def test_send_outbox_once_reports_what_it_did(db, monkeypatch, capsys):
    _three(db)
    senders = {Kind.XAPI_ANSWERED: lambda batch: {m.pk: Delivered() for m in batch}}
    monkeypatch.setattr("quizzes.management.commands.send_outbox.outbox_senders", lambda: senders)
    call_command("send_outbox", "--once")
    out = capsys.readouterr().out
    assert "Delivered 3, to retry 0, refused 0." in out
    assert delivery.OutboxMessage.objects.filter(state="pending").count() == 1  # the grade: no sender


def test_staff_read_the_outbox_and_send_a_message_again(admin_client, db):
    outbox_enqueue(kind=Kind.XAPI_STARTED, key="1", subject_id=1)
    [message] = messages()
    deliver_due({Kind.XAPI_STARTED: lambda batch: {message.pk: Refused("400 invalid statement")}})
    page = admin_client.get("/en/admin/quizzes/outboxmessage/?state=failed")
    assert page.status_code == 200 and b"xapi.started" in page.content
    assert admin_client.get(f"/en/admin/quizzes/outboxmessage/{message.pk}/change/").status_code == 200
    response = admin_client.post(
        "/en/admin/quizzes/outboxmessage/", {"action": "send_again", "_selected_action": [message.pk]}
    )
    assert response.status_code == 302
    assert messages()[0].state == "pending"
