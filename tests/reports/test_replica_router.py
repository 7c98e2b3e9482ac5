"""The replica router's answers: the staff reports read from the replica until they write,
never in a transaction, never elsewhere; the report pages say where they read from.

The test settings have no replica: here the router's answers are recorded (and the reads sent
to the default database), and the replica's lag is a given number."""

import pytest
from django.contrib.auth import get_user_model
from django.db import OperationalError, transaction
from django.http import Http404
from django.test import RequestFactory
from django.urls import reverse

from common import replica
from tests.factories import CourseFactory, UserFactory

# Transactional: the router keeps every read in a transaction on the default database, as a test case is.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def answers(monkeypatch):
    """The router's answer to each read (and whether it was in a report), with a replica
    configured two seconds behind."""
    found = []
    answer = replica.ReplicaRouter.db_for_read

    def recorded(self, model, **hints):
        found.append((replica.status() is not None, answer(self, model, **hints)))
        return None  # read the default database: the test settings have no replica

    monkeypatch.setattr(replica.ReplicaRouter, "db_for_read", recorded)
    monkeypatch.setattr(replica, "configured", lambda: True)
    monkeypatch.setattr(replica, "lag_seconds", lambda: 2.0)
    return found


@pytest.fixture
def teacher_client(client, teacher):
    client.force_login(teacher)
    return client


def _in_report(answers) -> set:
    """The answers to the reads of a report (the session and the permissions are read before)."""
    found = {answer for in_report, answer in answers if in_report}
    assert found, "no read in a report"
    return found


def _read():
    return list(get_user_model().objects.all())


def _request():
    return RequestFactory().get("/")


@pytest.mark.parametrize("name", ["staff:statistics_index", "staff:gradebook_courses"])
def test_the_report_pages_read_from_the_replica_and_say_how_far_behind(answers, teacher_client, name):
    CourseFactory()
    response = teacher_client.get(reverse(name))
    assert response.status_code == 200
    assert _in_report(answers) == {replica.ALIAS}
    assert "Read from a copy of the database, 2 seconds behind." in response.content.decode()


def test_the_gradebook_and_its_csv_read_from_the_replica(answers, teacher_client):
    course = CourseFactory()
    page = teacher_client.get(reverse("staff:gradebook", args=[course.slug]))
    assert page.status_code == 200 and _in_report(answers) == {replica.ALIAS}
    answers.clear()
    export = teacher_client.get(reverse("staff:gradebook_export", args=[course.slug]))
    body = b"".join(export.streaming_content).decode()
    assert _in_report(answers) == {replica.ALIAS}  # the streamed rows too
    assert "copy of the database" not in body


def test_a_replica_up_to_date_is_said_to_be(answers, monkeypatch, teacher_client):
    monkeypatch.setattr(replica, "lag_seconds", lambda: 0.0)
    response = teacher_client.get(reverse("staff:statistics_index"))
    assert "Read from a copy of the database, up to date." in response.content.decode()


def test_a_replica_that_cannot_be_reached_leaves_the_reads_on_the_default_database(
    answers, monkeypatch, teacher_client
):
    def refused():
        raise OperationalError("connection refused")

    monkeypatch.setattr(replica, "lag_seconds", refused)
    response = teacher_client.get(reverse("staff:statistics_index"))
    assert response.status_code == 200
    assert _in_report(answers) == {None}
    assert "The copy of the database is unavailable; read from the main database." in response.content.decode()


def test_a_read_after_a_write_reads_the_default_database(answers):
    @replica.reads_from_replica
    def view(request):
        _read()
        UserFactory()
        _read()

    view(_request())
    assert [answer for _in, answer in answers] == [replica.ALIAS, None]


def test_a_read_in_a_transaction_reads_the_default_database(answers):
    @replica.reads_from_replica
    def view(request):
        with transaction.atomic():
            _read()

    view(_request())
    assert answers == [(True, None)]


def test_other_pages_read_the_default_database(answers, teacher_client, student):
    assert teacher_client.get(reverse("admin:quizzes_course_changelist")).status_code == 200
    _read()
    assert answers and {answer for _in, answer in answers} == {None}
    assert not any(in_report for in_report, _answer in answers)


def test_without_a_replica_nothing_is_routed(teacher_client):
    assert not replica.configured()
    response = teacher_client.get(reverse("staff:statistics_index"))
    assert response.status_code == 200
    assert "copy of the database" not in response.content.decode()
    assert replica.ReplicaRouter().db_for_read(get_user_model()) is None


class _Connections:
    """``connections`` with a replica alias whose errors are told (the test settings have none)."""

    def __init__(self, real, *, replica_failed: bool):
        self.real = real
        self.replica = type("Replica", (), {"errors_occurred": replica_failed, "close": lambda self: None})()

    def __getitem__(self, alias):
        return self.replica if alias == replica.ALIAS else self.real[alias]


def _failing_once(error):
    """A report that reads, fails the first time with ``error``, and reads again the second."""
    calls = []

    @replica.reads_from_replica
    def view(request):
        _read()
        calls.append(replica.status())
        if len(calls) == 1:
            raise error
        return replica.status()

    return view, calls


def test_a_report_the_replica_does_not_have_yet_is_made_again_from_the_default_database(answers):
    view, calls = _failing_once(Http404("not on the copy yet"))
    state = view(_request())
    assert len(calls) == 2
    assert [answer for _in, answer in answers] == [replica.ALIAS, None]
    assert state.missing and not state.unavailable


def test_a_replica_that_breaks_off_while_read_leaves_the_report_to_the_default_database(answers, monkeypatch):
    monkeypatch.setattr(replica, "connections", _Connections(replica.connections, replica_failed=True))
    view, calls = _failing_once(OperationalError("server closed the connection unexpectedly"))
    state = view(_request())
    assert len(calls) == 2
    assert [answer for _in, answer in answers] == [replica.ALIAS, None]
    assert state.unavailable


def test_a_failure_of_the_default_database_is_not_blamed_on_the_replica(answers, monkeypatch):
    monkeypatch.setattr(replica, "connections", _Connections(replica.connections, replica_failed=False))
    view, calls = _failing_once(OperationalError("the main database went away"))
    with pytest.raises(OperationalError):
        view(_request())
    assert len(calls) == 1


def test_a_report_that_wrote_is_not_made_twice(answers):
    @replica.reads_from_replica
    def view(request):
        _read()
        UserFactory()
        raise Http404("gone")

    with pytest.raises(Http404):
        view(_request())
    assert get_user_model().objects.count() == 1
