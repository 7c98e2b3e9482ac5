"""The site as deployed (tests/deploy/stack.py): nginx, gunicorn, PgBouncer, a PostgreSQL primary
and its streaming replica, Redis.

The student flows of test_pgbouncer.py and the HTTP race tests of test_races.py run again
through nginx (``live_api`` is the deployed site); beside them, what the parts must do together:
static files, the body limit, the proxy headers (the client address the login lockout counts,
HTTPS), the reports read from the replica, the cache in Redis, and a graceful reload.
"""

import re
import secrets
import signal
import threading
import time

import pytest
import redis
import requests
from requests.adapters import HTTPAdapter

from tests.concurrency import HTTP_TIMEOUT, requires_postgresql
from tests.concurrency import test_races as races
from tests.concurrency.conftest import _manage
from tests.concurrency.test_pgbouncer import twenty_students_take_a_whole_quiz

# Its races take 50 database connections: with the concurrency tests, one at a time (tests/conftest.py).
pytestmark = [requires_postgresql, pytest.mark.xdist_group("concurrency")]


@pytest.fixture
def live_api(deployed):
    return deployed


test_http_fifty_different_choices_for_one_question = races.test_http_fifty_different_choices_for_one_question
test_http_fifty_starts_make_one_attempt = races.test_http_fifty_starts_make_one_attempt
test_http_fifty_finishes_give_one_result = races.test_http_fifty_finishes_give_one_result

TEACHER, PASSWORD = "deploy-teacher", secrets.token_urlsafe(16)
# A teacher with a password, made on the primary (manage.py with the race database's settings).
MAKE_TEACHER = f"""
from django.contrib.auth import get_user_model
from quizzes.accounts.roles import TEACHERS, staff_groups_ensure
teacher = get_user_model().objects.create_user({TEACHER!r}, password={PASSWORD!r}, is_staff=True)
teacher.groups.add(staff_groups_ensure()[TEACHERS])
"""
GRADEBOOK = "/en/admin/reports/gradebook/memory-efficient-training/"
UP_TO_DATE = "Read from a copy of the database, up to date."


class _From(HTTPAdapter):
    """Connections from a loopback address of the client's choosing (a second machine here)."""

    def __init__(self, address: str):
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        kwargs["source_address"] = (self.address, 0)
        super().init_poolmanager(*args, **kwargs)


def log_in(url: str, username: str, password: str, *, source: str = "127.0.0.1", forwarded: str | None = None):
    """A login form sent to ``url`` from ``source``: the response, not followed.

    The production cookies are Secure, which plain http does not send back: the CSRF cookie is
    the client's own, as a browser keeps one."""
    csrf_secret = secrets.token_hex(16)
    headers = {"Cookie": f"csrftoken={csrf_secret}"}
    if forwarded:
        headers["X-Forwarded-For"] = forwarded
    with requests.Session() as session:
        session.mount("http://", _From(source))
        return session.post(
            f"{url}/en/accounts/login/",
            data={"csrfmiddlewaretoken": csrf_secret, "username": username, "password": password},
            headers=headers,
            allow_redirects=False,
            timeout=HTTP_TIMEOUT,
        )


@pytest.fixture(scope="module")
def teacher(deployed):
    _manage(deployed.database.env, "shell", "-v0", "-c", MAKE_TEACHER)
    deployed.cluster.wait_replayed()
    return TEACHER


def test_twenty_students_take_a_whole_quiz_through_the_whole_stack(deployed):
    twenty_students_take_a_whole_quiz(deployed, deployed.bouncer, "nginx, gunicorn, PgBouncer")
    # The sessions and the throttles' counts are in the stack's Redis.
    assert redis.Redis.from_url(deployed.redis_url).dbsize() > 0


def test_the_login_lockout_counts_the_address_nginx_saw_not_the_one_a_client_claims(deployed, teacher):
    # From a second address, claiming a third: nginx appends the address it saw, which the app takes.
    refused = log_in(deployed.url, teacher, "wrong", source="127.0.0.2", forwarded="203.0.113.9")
    assert refused.status_code == 200  # the form again, with its error
    # Straight to gunicorn (only nginx may do this), the address the proxy reports is the one counted.
    log_in(deployed.gunicorn_url, teacher, "wrong", forwarded="198.51.100.7")
    addresses = {
        address
        for (address,) in deployed.query(
            "SELECT host(ip_address) FROM axes_accessattempt WHERE username = %s", [teacher]
        )
    }
    assert addresses == {"127.0.0.2", "198.51.100.7"}


def test_the_gradebook_is_read_from_the_replica_through_the_stack(deployed, teacher):
    logged_in = log_in(deployed.url, teacher, PASSWORD)
    assert logged_in.status_code == 302, logged_in.text[:500]
    cookie = f"sessionid={logged_in.cookies['sessionid']}"
    page = requests.get(deployed.page(GRADEBOOK), headers={"Cookie": cookie}, timeout=HTTP_TIMEOUT)
    assert page.status_code == 200
    assert UP_TO_DATE in page.text
    # The reads it made went to the replica: PostgreSQL counts the rows a standby's queries returned.
    assert deployed.cluster.replica.scalar(
        "SELECT tup_returned > 0 FROM pg_stat_database WHERE datname = %s", (deployed.dbname,)
    )


def hashed_css(deployed) -> str:
    path = next(
        path for path in deployed.static_root.rglob("*.css") if path.suffixes[-2:-1] and len(path.suffixes[-2]) == 13
    )
    return "/static/" + str(path.relative_to(deployed.static_root))


def test_nginx_serves_hashed_static_files_gzipped_and_cached_for_good(deployed):
    response = requests.get(
        deployed.page(hashed_css(deployed)), headers={"Accept-Encoding": "gzip"}, timeout=HTTP_TIMEOUT
    )
    assert response.status_code == 200
    assert response.headers["Content-Encoding"] == "gzip"
    assert "immutable" in response.headers["Cache-Control"]
    assert response.headers["Server"].startswith("nginx")


def test_an_upload_over_the_body_limit_is_refused_by_nginx(deployed):
    response = requests.post(deployed.page("/en/admin/"), data=b"x" * (7 * 1024 * 1024), timeout=HTTP_TIMEOUT)
    assert response.status_code == 413


def test_the_app_trusts_the_forwarded_proto_nginx_sets_and_no_other(deployed):
    # Straight to gunicorn, the header a TLS-terminating nginx sets makes the request secure (HSTS is
    # only sent on secure requests); through this plain-http nginx a client's own header is replaced.
    secure = requests.get(
        f"{deployed.gunicorn_url}/en/accounts/login/", headers={"X-Forwarded-Proto": "https"}, timeout=HTTP_TIMEOUT
    )
    assert "Strict-Transport-Security" in secure.headers
    forged = requests.get(
        deployed.page("/en/accounts/login/"), headers={"X-Forwarded-Proto": "https"}, timeout=HTTP_TIMEOUT
    )
    assert forged.status_code == 200 and "Strict-Transport-Security" not in forged.headers


def test_each_request_has_nginxs_id_in_the_response_and_gunicorns_access_log(deployed):
    offset = deployed.log_size()
    response = requests.get(
        deployed.page("/en/accounts/login/"), headers={"X-Request-ID": "a-client-s-own"}, timeout=HTTP_TIMEOUT
    )
    request_id = response.headers["X-Request-ID"]
    assert response.status_code == 200 and re.fullmatch(r"[0-9a-f]{32}", request_id)  # nginx's $request_id

    def logged():
        return any(
            '"GET /en/accounts/login/ HTTP/1.' in line and line.endswith(f" {request_id}")
            for line in deployed.log_since(offset).splitlines()
        )

    # gunicorn writes the access line once the response has gone: it may reach the log a moment
    # after the client has read the response.
    deadline = time.monotonic() + 10
    while not logged() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert logged(), deployed.log_since(offset)


def test_a_graceful_reload_fails_no_request(deployed):
    """Reads and answers (POSTs, which nginx never sends twice) while every worker is replaced."""
    ((_name, token),) = deployed.students(1)
    headers = {"Authorization": f"Token {token}"}
    started = requests.post(
        deployed.api("quizzes/gradient-checkpointing/attempts/"), headers=headers, timeout=HTTP_TIMEOUT
    )
    question = deployed.quizzes["gradient-checkpointing"][0]
    # The same answer again and again: recorded once (201), the same feedback after (200).
    answer = {"question": question["id"], "choice": question["choices"][0]["id"]}
    answer_url = deployed.api(f"attempts/{started.json()['id']}/answers/")
    statuses, stop = [], threading.Event()

    def hammer():
        with requests.Session() as session:
            while not stop.is_set():
                try:
                    statuses.append(
                        session.get(deployed.api("quizzes/"), headers=headers, timeout=HTTP_TIMEOUT).status_code
                    )
                    statuses.append(
                        session.post(answer_url, json=answer, headers=headers, timeout=HTTP_TIMEOUT).status_code
                    )
                except requests.RequestException as error:
                    statuses.append(type(error).__name__)

    threads = [threading.Thread(target=hammer) for _ in range(4)]
    for thread in threads:
        thread.start()
    old_workers = set(deployed.worker_pids())
    deployed.process.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (
        set(deployed.worker_pids()) & old_workers or len(deployed.worker_pids()) < 4
    ):
        time.sleep(0.05)  # polling until the new workers serve
    stop.set()
    for thread in threads:
        thread.join(HTTP_TIMEOUT + 5)
    assert not set(deployed.worker_pids()) & old_workers
    assert statuses and set(statuses) == {200, 201}, {status for status in statuses if status not in {200, 201}}
    assert statuses.count(201) == 1


def test_readyz_asks_pgbouncer_redis_and_the_replica_and_nginx_passes_it_by_address(deployed):
    response = requests.get(deployed.page("/readyz"), headers={"Host": "10.0.0.7"}, timeout=HTTP_TIMEOUT)
    assert response.status_code == 200, response.text
    checks = response.json()["checks"]
    assert {name: part["ok"] for name, part in checks.items()} == {"database": True, "cache": True, "replica": True}
