"""Through a real PgBouncer in transaction pooling mode (tests/pgbouncer.py), default settings.

PgBouncer gives each transaction whichever of its few server connections is free (a
pool of 5 here, for 8 gunicorn threads and up to 50 test threads), so nothing a
connection leaves in its session (a prepared statement, a cursor, a ``SET``) may be
relied on by the next transaction. These tests run the student paths and the race tests
through it:

- 20 students take a whole quiz at once against gunicorn (4 workers x 2 threads) whose
  DATABASE_URL is PgBouncer's: 10 through the API, 10 through the web pages. No 5xx,
  every acknowledged answer stored exactly once, every score right.
- the race tests of test_races.py again, their threads' connections and the live
  server's going through PgBouncer (``live_api`` is the PgBouncer-backed server here);
- what Django itself leaves on a connection: its ``SET TIME ZONE``, server-side cursors
  (``.iterator()``), psycopg's own prepared statements with server-side binding.
"""

import re
import secrets
import threading
from collections import Counter

import psycopg
import pytest
import requests
from django.contrib.auth import get_user_model
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from common import sql as fixed_sql
from quizzes.accounts import queries as account_queries
from tests import figures
from tests.concurrency import FAULT_REPORT, HTTP_TIMEOUT, requires_postgresql, run_together, unexpected
from tests.concurrency import test_races as races
from tests.pgbouncer import POOL_SIZE

pytestmark = requires_postgresql

QUIZ = "gradient-checkpointing"
STUDENTS = 20
CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
ATTEMPT_URL = re.compile(r"/en/attempts/(\d+)/$")


@pytest.fixture(autouse=True)
def default_through_pgbouncer(pgbouncer):
    """This process's ``default`` connections (every thread's) go through PgBouncer during the test.

    Each thread's connection is made from the alias's settings dict, shared by all threads:
    pointing it at PgBouncer's port (same server, same test database behind it) reroutes
    every connection opened from now on; the one open in this thread is closed first.
    """
    settings_dict = connections["default"].settings_dict
    saved = {key: settings_dict[key] for key in ("HOST", "PORT", "DISABLE_SERVER_SIDE_CURSORS")}
    connection.close()
    settings_dict.update(HOST=pgbouncer.host, PORT=str(pgbouncer.port))
    try:
        yield
    finally:
        connection.close()
        settings_dict.update(saved)
        pgbouncer.disconnect(
            settings_dict["NAME"]
        )  # its server connections would keep the test database from being dropped


@pytest.fixture
def live_api(live_api_pgbouncer):
    """The race tests' live server, here the one whose database connections go through PgBouncer."""
    return live_api_pgbouncer


# The race tests of test_races.py, through PgBouncer ---------------------------------------------

test_fifty_different_choices_for_one_question_record_one_answer = (
    races.test_fifty_different_choices_for_one_question_record_one_answer
)
test_fifty_starts_by_one_student_make_one_attempt = races.test_fifty_starts_by_one_student_make_one_attempt
test_fifty_finishes_of_one_attempt_make_one_transition = races.test_fifty_finishes_of_one_attempt_make_one_transition
test_answers_racing_the_finish_are_either_graded_or_refused = (
    races.test_answers_racing_the_finish_are_either_graded_or_refused
)
test_twenty_students_answering_a_whole_quiz_at_once = races.test_twenty_students_answering_a_whole_quiz_at_once
test_max_attempts_holds_under_fifty_concurrent_start_finish_loops = (
    races.test_max_attempts_holds_under_fifty_concurrent_start_finish_loops
)
test_http_fifty_different_choices_for_one_question = races.test_http_fifty_different_choices_for_one_question
test_http_fifty_starts_make_one_attempt = races.test_http_fifty_starts_make_one_attempt
test_http_fifty_finishes_give_one_result = races.test_http_fifty_finishes_give_one_result


# Twenty students take a whole quiz, through the API and the web pages ---------------------------


def pick(quiz: list[dict], student: int, position: int) -> tuple[int, int, bool]:
    """(question id, choice id, right) of a student's answer: student n gets the first n % 9 right."""
    question = quiz[position]
    right = question["position"] <= student % 9
    wrong = [choice["id"] for choice in question["choices"] if not choice["correct"]]
    choice = next(c["id"] for c in question["choices"] if c["correct"]) if right else wrong[(student + position) % 3]
    return question["id"], choice, right


class Student:
    """One student's requests: each status, and the answers the server acknowledged."""

    def __init__(self, server, number: int, name: str, token: str):
        self.server, self.number, self.name, self.token = server, number, name, token
        self.statuses: list[int | str] = []
        self.acknowledged: dict[int, int] = {}  # question id -> choice id
        self.attempt_id: int | None = None
        self.score: int | None = None
        self.session = requests.Session()

    def send(self, method: str, url: str, **options) -> requests.Response | None:
        try:
            response = self.session.request(method, url, timeout=HTTP_TIMEOUT, allow_redirects=False, **options)
        except requests.RequestException as error:
            self.statuses.append(type(error).__name__)
            return None
        self.statuses.append(response.status_code)
        return response

    def take_quiz_by_api(self) -> None:
        headers = {"Authorization": f"Token {self.token}"}
        api = self.server.api
        started = self.send("POST", api(f"quizzes/{QUIZ}/attempts/"), headers=headers)
        if started is None or started.status_code != 201:
            return
        self.attempt_id = started.json()["id"]
        quiz = self.server.quizzes[QUIZ]
        for position in range(len(quiz)):
            question, choice, _right = pick(quiz, self.number, position)
            body = {"question": question, "choice": choice}
            answered = self.send("POST", api(f"attempts/{self.attempt_id}/answers/"), json=body, headers=headers)
            if answered is not None and answered.status_code == 201:
                self.acknowledged[question] = choice
            self.send("POST", api(f"attempts/{self.attempt_id}/answers/"), json=body, headers=headers)  # double click
            if position == 3:
                self.send("GET", api("progress/"), headers=headers)
        finished = self.send("POST", api(f"attempts/{self.attempt_id}/finish/"), headers=headers)
        if finished is not None and finished.status_code == 200:
            self.score = finished.json()["score"]

    def take_quiz_on_the_web(self) -> None:
        csrf_secret = secrets.token_hex(16)  # a CSRF cookie of the client's own, as a browser keeps one
        headers = {"Cookie": f"sessionid={self.server.sessions[self.name]}; csrftoken={csrf_secret}"}
        page = self.server.page
        self.send("GET", page("/en/"), headers=headers)
        quiz_page = self.send("GET", page(f"/en/quizzes/{QUIZ}/"), headers=headers)
        if quiz_page is None or quiz_page.status_code != 200:
            return
        token = CSRF_FIELD.search(quiz_page.text).group(1)
        started = self.send(
            "POST", page(f"/en/quizzes/{QUIZ}/start/"), data={"csrfmiddlewaretoken": token}, headers=headers
        )
        if started is None or started.status_code != 302:
            return
        self.attempt_id = int(ATTEMPT_URL.search(started.headers["Location"]).group(1))
        self.send("GET", page(f"/en/attempts/{self.attempt_id}/"), headers=headers)  # the redirect to question 1
        quiz = self.server.quizzes[QUIZ]
        for position in range(len(quiz)):
            question, choice, _right = pick(quiz, self.number, position)
            url = page(f"/en/attempts/{self.attempt_id}/questions/{quiz[position]['position']}/")
            shown = self.send("GET", url, headers=headers)
            if shown is None or shown.status_code != 200:
                continue
            token = CSRF_FIELD.search(shown.text).group(1)
            form = {"csrfmiddlewaretoken": token, "question": question, "choice": choice}
            answered = self.send("POST", url, data=form, headers=headers)
            if (
                answered is not None
                and answered.status_code == 302
                and answered.headers["Location"].endswith("#feedback")
            ):
                self.acknowledged[question] = choice
            self.send("GET", url, headers=headers)  # the feedback
        finished = self.send(
            "POST",
            page(f"/en/attempts/{self.attempt_id}/finish/"),
            data={"csrfmiddlewaretoken": token},
            headers=headers,
        )
        if finished is not None and finished.status_code == 302:
            self.send("GET", page(finished.headers["Location"]), headers=headers)


def test_twenty_students_take_a_whole_quiz_through_pgbouncer(live_api_pgbouncer, pgbouncer):
    twenty_students_take_a_whole_quiz(live_api_pgbouncer, pgbouncer, "PgBouncer")


def twenty_students_take_a_whole_quiz(server, pgbouncer, label: str) -> None:
    """Half through the API, half through the web pages, all at once, on ``server`` whose database
    connections go through ``pgbouncer``: no 5xx, every acknowledged answer stored once, every score right."""
    quiz = server.quizzes[QUIZ]
    students = [Student(server, number, name, token) for number, (name, token) in enumerate(server.students(STUDENTS))]
    log_offset = server.log_size()

    def take(index):
        student = students[index]
        if index % 2:
            student.take_quiz_on_the_web()
        else:
            student.take_quiz_by_api()
        return student

    outcomes = run_together(STUDENTS, take, uses_db=False)
    assert not unexpected(outcomes, Student), unexpected(outcomes, Student)[:3]

    requests_sent = sum(len(student.statuses) for student in students)
    failures = Counter(
        status for student in students for status in student.statuses if not isinstance(status, int) or status >= 500
    )
    server_errors = sum(failures.values())
    attempt_ids = [student.attempt_id for student in students if student.attempt_id is not None]
    rows = server.query(
        "SELECT r.attempt_id, r.question_id, r.choice_id FROM quizzes_answer r WHERE r.attempt_id = ANY(%s)",
        [attempt_ids],
    )
    stored: dict[int, dict[int, list[int]]] = {}
    for attempt_id, question_id, choice_id in rows:
        stored.setdefault(attempt_id, {}).setdefault(question_id, []).append(choice_id)
    intended = STUDENTS * len(quiz)
    recorded = sum(
        1
        for student in students
        for position in range(len(quiz))
        if stored.get(student.attempt_id, {}).get(pick(quiz, student.number, position)[0])
        == [pick(quiz, student.number, position)[1]]
    )
    servers = [row for row in pgbouncer.show("SERVERS") if row["database"] == server.dbname]
    clients = [row for row in pgbouncer.show("CLIENTS") if row["database"] == server.dbname]
    summary = (
        f"{label} (transaction pooling, pool of {POOL_SIZE}): {STUDENTS} students, {requests_sent} requests, "
        f"{server_errors} 5xx or broken {dict(failures)}, {intended - recorded} of {intended} answers lost; "
        f"{len(clients)} client connections on {len(servers)} server connections"
    )
    FAULT_REPORT.append(summary)

    assert server_errors == 0, summary
    assert "Traceback" not in server.log_since(log_offset), summary
    assert recorded == intended, summary
    assert len(servers) <= POOL_SIZE < len(clients)  # the gunicorn threads really shared server connections
    finished = dict(
        server.query("SELECT id, score FROM quizzes_attempt WHERE id = ANY(%s) AND state = 'finished'", [attempt_ids])
    )
    for student in students:
        # Acknowledged means stored, exactly once (one row per question), with the choice sent.
        assert {
            question: choices[0] for question, choices in stored[student.attempt_id].items()
        } == student.acknowledged
        assert all(len(choices) == 1 for choices in stored[student.attempt_id].values())
        expected_score = sum(pick(quiz, student.number, position)[2] for position in range(len(quiz)))
        assert finished[student.attempt_id] == expected_score
        if student.score is not None:
            assert student.score == expected_score
    figures.add("concurrent requests", requests_sent)


# What Django leaves on a connection, through PgBouncer -----------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_fixed_sql_is_sent_as_text_through_pgbouncer(student):
    connection.ensure_connection()
    assert not fixed_sql.prepares(connection)
    with CaptureQueriesContext(connection) as queries:
        for _ in range(3):
            assert account_queries.user_get(student.pk).pk == student.pk
    assert [query["sql"].split()[0] for query in queries.captured_queries] == ["SELECT"] * 3


def test_djangos_time_zone_follows_its_connection_across_server_connections(pgbouncer, django_db_blocker):
    """Django sets the session's time zone (USE_TZ, TIME_ZONE = "UTC") once per connection;
    PgBouncer 1.18 tracks TimeZone per client and sets it again on every server connection
    the client's transactions land on, whoever used it before."""
    dbname = connections["default"].settings_dict["NAME"]
    others = [pgbouncer.connect(dbname) for _ in range(POOL_SIZE - 1)]
    try:
        for other in others:
            other.execute("SET TIME ZONE 'Asia/Karachi'")
        seen_by_django, seen_by_others = set(), set()
        with django_db_blocker.unblock():
            for _ in range(4):
                for other in others:
                    pid, zone = other.execute("SELECT pg_backend_pid(), current_setting('TimeZone')").fetchone()
                    assert zone == "Asia/Karachi"
                    seen_by_others.add(pid)
                    with connection.cursor() as cursor:
                        cursor.execute("SELECT pg_backend_pid(), current_setting('TimeZone'), now()")
                        pid, zone, now = cursor.fetchone()
                    assert zone == "UTC" and now.utcoffset().total_seconds() == 0
                    seen_by_django.add(pid)
    finally:
        for other in others:
            other.close()
    assert seen_by_django & seen_by_others  # Django's transactions ran on the others' server connections


@pytest.mark.django_db(transaction=True)
def test_iterator_reads_every_row_while_another_client_takes_the_server_connection(pgbouncer):
    """``.iterator()`` uses a server-side cursor on PostgreSQL, which would be lost with the
    server connection after its first transaction: through a pooler it reads without one."""
    User = get_user_model()
    User.objects.bulk_create(User(username=f"many-{number:02d}") for number in range(12))
    expected = list(User.objects.order_by("pk").values_list("username", flat=True))
    read = []
    with pgbouncer.connect(connections["default"].settings_dict["NAME"], autocommit=False) as other:
        for username in User.objects.order_by("pk").values_list("username", flat=True).iterator(chunk_size=2):
            read.append(username)
            if len(read) == 1:
                other.execute("SELECT 1")  # a transaction holding the server connection the cursor was on
        other.rollback()
    assert read == expected
    assert connection.settings_dict["DISABLE_SERVER_SIDE_CURSORS"] is True


@pytest.mark.django_db(transaction=True)
def test_psycopgs_own_prepared_statements_are_off_through_a_pooler(student, monkeypatch):
    """With server-side binding and OPTIONS' ``prepare_threshold`` (Django's default: None), psycopg
    prepares a query run that many times on its connection, at the protocol level, which
    PgBouncer 1.18 does not follow: through a pooler that is turned off."""
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "server_side_binding", True)
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "prepare_threshold", 2)
    connection.close()
    errors = []

    def reads(_index):
        try:
            for _ in range(12):
                assert get_user_model().objects.get(pk=student.pk).pk == student.pk
        except Exception as error:  # the outcome, asserted below
            errors.append(error)
        return connection.connection.prepare_threshold

    thresholds = run_together(2 * POOL_SIZE, reads)
    assert errors == []
    assert thresholds == [None] * (2 * POOL_SIZE)


def test_a_threads_connection_through_pgbouncer_is_found_pooled(pgbouncer, django_db_blocker):
    found = {}

    def probe():
        with django_db_blocker.unblock():
            connection.ensure_connection()
            found["prepares"] = fixed_sql.prepares(connection)
            found["pid"] = connection.connection.info.backend_pid
            connection.close()

    thread = threading.Thread(target=probe)
    thread.start()
    thread.join(10)
    assert found["prepares"] is False
    # PgBouncer's own cancel key, not a backend's process id.
    with psycopg.connect(host=pgbouncer.host, port=pgbouncer.port, dbname="postgres", user=pgbouncer.user) as other:
        assert other.info.backend_pid != other.execute("SELECT pg_backend_pid()").fetchone()[0]
