"""The site as deployed: nginx (deploy/nginx/lms.conf) in front of gunicorn (deploy/gunicorn.conf.py).

The HTTP race tests of test_races.py run again through nginx (``live_api`` is the deployed
site), beside what nginx itself must do: static files, the body limit, the proxy headers
and a graceful reload.
"""

import signal
import threading
import time

import pytest
import requests

from tests.concurrency import HTTP_TIMEOUT, requires_postgresql
from tests.concurrency import test_races as races

# Its races take 50 database connections: with the concurrency tests, one at a time (tests/conftest.py).
pytestmark = [requires_postgresql, pytest.mark.xdist_group("concurrency")]


@pytest.fixture
def live_api(deployed):
    return deployed


test_http_fifty_different_choices_for_one_question = races.test_http_fifty_different_choices_for_one_question
test_http_fifty_starts_make_one_attempt = races.test_http_fifty_starts_make_one_attempt
test_http_fifty_finishes_give_one_result = races.test_http_fifty_finishes_give_one_result


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


def test_a_graceful_reload_fails_no_request(deployed):
    ((_name, token),) = deployed.students(1)
    statuses, stop = [], threading.Event()

    def hammer():
        with requests.Session() as session:
            while not stop.is_set():
                try:
                    statuses.append(
                        session.get(
                            deployed.api("quizzes/"), headers={"Authorization": f"Token {token}"}, timeout=HTTP_TIMEOUT
                        ).status_code
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
    assert statuses and set(statuses) == {200}, {status for status in statuses if status != 200}
