"""Throttling: API rates shared by all workers. (Failed logins: tests/accounts/test_lockout.py.)"""

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from common import throttle
from common.throttle import UnsentCounts, WindowCounter, unsent_requests
from tests.factories import UserFactory

PROJECT_DIR = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    unsent_requests.clear()
    yield
    cache.clear()
    unsent_requests.clear()


class Clock:
    """time.time() under the test's control: the cache's expiry follows it."""

    def __init__(self):
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(time, "time", clock)
    return clock


# API rates (in process) ----------------------------------------------------------------


@pytest.fixture
def api_rates(settings):
    def set_rates(user: str, anon: str) -> None:
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"user": user, "anon": anon}}

    return set_rates


def test_user_rate_then_429_with_retry_after(api_rates, db, clock):
    api_rates(user="3/min", anon="100/min")
    alice, bob = APIClient(), APIClient()
    alice.force_authenticate(UserFactory(username="alice"))
    bob.force_authenticate(UserFactory(username="bob"))

    statuses = [alice.get("/api/v1/progress/").status_code for _ in range(3)]
    refused = alice.get("/api/v1/progress/")

    assert statuses == [200, 200, 200]
    assert refused.status_code == 429
    assert refused.json()["code"] == "throttled"
    assert set(refused.json()) == {"detail", "code"}
    assert refused["Retry-After"] == "60"
    assert bob.get("/api/v1/progress/").status_code == 200
    clock.advance(45)
    assert alice.get("/api/v1/progress/")["Retry-After"] == "15"
    clock.advance(16)
    assert alice.get("/api/v1/progress/").status_code == 200


def test_anonymous_rate_per_address(api_rates, db):
    api_rates(user="100/min", anon="2/min")
    client = APIClient(REMOTE_ADDR="10.0.0.1")

    statuses = [client.get("/api/v1/docs/").status_code for _ in range(3)]

    assert statuses == [200, 200, 429]
    assert APIClient(REMOTE_ADDR="10.0.0.2").get("/api/v1/docs/").status_code == 200


# API rates counted in the worker first (UnsentCounts) ---------------------------------


def shared_count(user) -> int:
    """The user's API requests as the shared count (the cache) has them."""
    return WindowCounter("throttle", 60).count(f"throttle_user_{user.pk}")


@pytest.fixture
def alice_api(db):
    client = APIClient()
    client.force_authenticate(UserFactory(username="alice"))
    return client


def test_far_below_the_rate_a_worker_sends_its_counts_in_batches(api_rates, settings, alice_api):
    api_rates(user="100/min", anon="100/min")
    settings.API_THROTTLE_LOCAL_SHARE = 0.05  # slack 5: four held back, sent with the fifth
    user = alice_api.handler._force_user
    counts = []
    for _ in range(10):
        assert alice_api.get("/api/v1/progress/").status_code == 200
        counts.append(shared_count(user))

    assert counts == [0, 0, 0, 0, 5, 5, 5, 5, 5, 10]


def test_near_the_rate_every_request_is_counted_and_the_limit_is_exact(api_rates, settings, alice_api):
    api_rates(user="20/min", anon="100/min")
    settings.API_THROTTLE_LOCAL_SHARE = 0.25  # slack 5: from the 16th request on, each one is sent
    user = alice_api.handler._force_user
    statuses, counts = [], []
    for _ in range(22):
        statuses.append(alice_api.get("/api/v1/progress/").status_code)
        counts.append(shared_count(user))

    assert statuses == [200] * 20 + [429] * 2
    assert counts == [0, 0, 0, 0, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 15, 16, 17, 18, 19, 20, 21, 22]


def test_with_no_share_every_request_is_counted_at_once(api_rates, settings, alice_api):
    api_rates(user="600/min", anon="100/min")
    settings.API_THROTTLE_LOCAL_SHARE = 0
    user = alice_api.handler._force_user
    for number in range(1, 4):
        alice_api.get("/api/v1/progress/")
        assert shared_count(user) == number


def test_workers_exceed_the_rate_by_less_than_their_slack_each(api_rates, settings, alice_api, monkeypatch):
    """Three workers (their own UnsentCounts, one shared count) take turns: together they let
    through at most the rate plus slack - 1 each, and the rate itself whatever the order."""
    api_rates(user="40/min", anon="100/min")
    settings.API_THROTTLE_LOCAL_SHARE = 0.1  # slack 4
    workers = [UnsentCounts() for _ in range(3)]
    statuses = []
    for number in range(80):
        monkeypatch.setattr(throttle, "unsent_requests", workers[number % 3])
        statuses.append(alice_api.get("/api/v1/progress/").status_code)

    served = statuses.count(200)
    assert 40 <= served <= 40 + 3 * (4 - 1), statuses
    assert statuses.count(429) == 80 - served
    assert statuses[-9:] == [429] * 9  # once each worker has seen the count past the rate


def test_held_back_counts_end_with_the_window(api_rates, settings, alice_api, clock):
    api_rates(user="100/min", anon="100/min")
    settings.API_THROTTLE_LOCAL_SHARE = 0.05  # slack 5
    user = alice_api.handler._force_user
    for _ in range(3):
        alice_api.get("/api/v1/progress/")
    clock.advance(61)
    for _ in range(4):
        alice_api.get("/api/v1/progress/")
    assert shared_count(user) == 0
    alice_api.get("/api/v1/progress/")

    assert shared_count(user) == 5  # the new window's five, not the old window's three too


def test_unsent_counts_keep_a_bounded_number_of_keys(clock):
    counts = UnsentCounts()
    counts.MAX_KEYS = 4
    for key in "abcd":
        assert counts.take(key, window=60, limit=100, slack=5) is None
    clock.advance(30)
    assert counts.take("e", window=10, limit=100, slack=5) is None  # full, none ended: all dropped
    assert set(counts._entries) == {"e"}
    for key in "fgh":
        counts.take(key, window=60, limit=100, slack=5)
    clock.advance(11)  # e ends, but f, g and h are more than half of 4: all dropped
    counts.take("i", window=60, limit=100, slack=5)
    assert set(counts._entries) == {"i"}
    for key in "jkl":
        counts.take(key, window=5, limit=100, slack=5)
    clock.advance(6)  # j, k and l end: i alone is left, and kept
    counts.take("m", window=60, limit=100, slack=5)
    assert set(counts._entries) == {"i", "m"}
    amount, _entry = counts.take("i", window=60, limit=100, slack=2)
    assert amount == 2  # i's held-back request goes with this one


# API rates across servers: two gunicorn, two workers each, one Redis -----------------------

# TEST_REDIS_DB: another database for each checkout whose tests run at the same time.
REDIS_HOST, REDIS_PORT, REDIS_DB = "127.0.0.1", 6379, int(os.environ.get("TEST_REDIS_DB", "9"))
REDIS_URL = f"redis://{REDIS_HOST}:{REDIS_PORT}/{REDIS_DB}"
RATE = 10
# Run in parallel (make test), the tests on Redis run on one worker, one after the other: one
# empties Redis' script cache (server-wide), others count on the script being loaded (tests/conftest.py).
on_redis = pytest.mark.xdist_group("redis")


def _redis_reachable() -> bool:
    try:
        with socket.create_connection((REDIS_HOST, REDIS_PORT), timeout=0.5) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _request(url: str, token: str | None = None) -> tuple[int, dict, dict]:
    headers = {"X-Forwarded-Proto": "https", "Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as response:
            return response.status, dict(response.headers), json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read() or b"null")


def _production_env(tmp_path: Path, prefix: str) -> dict[str, str]:
    """The environment of a production process (lms.settings) on Redis and a fresh SQLite file."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("DJANGO_")}
    env.update(
        DJANGO_SETTINGS_MODULE="lms.settings",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(64),
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        REDIS_URL=REDIS_URL,
        DJANGO_CACHE_KEY_PREFIX=prefix,
    )
    return env


def _delete_prefixed(prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    keys = list(client.scan_iter(f"{prefix}:*"))
    if keys:
        client.delete(*keys)


@pytest.fixture(scope="module")
def throttled_database(tmp_path_factory) -> tuple[Path, str]:
    """A migrated SQLite database with a user and its API token, made once (one Django process):
    each test's servers get a copy of their own."""
    work = tmp_path_factory.mktemp("throttled")
    make = (
        "from django.contrib.auth import get_user_model; from django.core.management import call_command; "
        "from rest_framework.authtoken.models import Token; call_command('migrate', interactive=False, verbosity=0); "
        "print(Token.objects.create(user=get_user_model().objects.create_user('throttled')).key)"
    )
    prefix = f"test-throttle-{secrets.token_hex(6)}"
    try:
        token = subprocess.run(
            [sys.executable, "manage.py", "shell", "-v0", "-c", make],
            cwd=PROJECT_DIR,
            env=_production_env(work, prefix),
            check=True,
            timeout=120,
            capture_output=True,
            text=True,
        ).stdout.strip()
    finally:
        _delete_prefixed(prefix)
    return work / "db.sqlite3", token


@pytest.fixture
def gunicorn_servers(request, tmp_path):
    """Two gunicorn servers (two workers each) on one fresh SQLite database and one Redis; a token.
    The share of the rate each worker may hold back is the test's parameter, else the default."""
    if not _redis_reachable():
        pytest.skip(f"needs Redis at {REDIS_HOST}:{REDIS_PORT}")
    database, token = request.getfixturevalue("throttled_database")
    prefix = f"test-throttle-{secrets.token_hex(6)}"
    env = _production_env(tmp_path, prefix)
    shutil.copyfile(database, tmp_path / "db.sqlite3")
    env.update(DJANGO_API_THROTTLE_USER=f"{RATE}/min", DJANGO_API_THROTTLE_ANON="1000/min")
    if hasattr(request, "param"):
        env["DJANGO_API_THROTTLE_LOCAL_SHARE"] = request.param

    servers, urls = [], []
    try:
        for _ in range(2):
            port = _free_port()
            command = [sys.executable, "-m", "gunicorn", "lms.wsgi:application", "--workers", "2"]
            command += ["--no-control-socket", "--bind", f"127.0.0.1:{port}"]
            log = (tmp_path / f"gunicorn-{port}.log").open("w")
            servers.append(subprocess.Popen(command, cwd=PROJECT_DIR, env=env, stdout=log, stderr=log))
            urls.append(f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 15
        for url in urls:
            while True:  # anonymous: 401 before any throttle counts
                try:
                    if _request(f"{url}/api/v1/progress/")[0] == 401:
                        break
                except OSError:
                    pass
                assert time.monotonic() < deadline, f"gunicorn at {url} did not start"
                time.sleep(0.1)
        yield urls, token
    finally:
        for server in servers:
            server.send_signal(signal.SIGINT)  # quick shutdown
        for server in servers:
            server.wait(timeout=10)
        _delete_prefixed(prefix)


@on_redis
def test_user_rate_holds_across_servers_and_workers(gunicorn_servers):
    urls, token = gunicorn_servers
    targets = [f"{urls[number % 2]}/api/v1/progress/" for number in range(RATE + 8)]

    # All at once, spread over both servers: counted in Redis, no count is lost.
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda url: (url, *_request(url, token)), targets))

    statuses = [status for _url, status, _headers, _body in results]
    assert sorted(statuses) == [200] * RATE + [429] * 8, statuses
    served = {url.split("/api/")[0] for url, status, _headers, _body in results if status == 200}
    assert len(served) == 2, "both servers answered some requests"
    for _url, status, headers, body in results:
        if status == 429:
            assert body["code"] == "throttled" and set(body) == {"detail", "code"}, body
            assert 1 <= int(headers["Retry-After"]) <= 60, headers
    # And one after the other too, on either server.
    assert _request(f"{urls[0]}/api/v1/progress/", token)[0] == 429
    assert _request(f"{urls[1]}/api/v1/progress/", token)[0] == 429


@on_redis
@pytest.mark.parametrize("gunicorn_servers", ["0.2"], indirect=True)
def test_user_rate_holds_within_each_workers_slack_across_servers(gunicorn_servers):
    """Each of the four workers may hold back a fifth of the rate (slack 2): at most
    one request each beyond the rate, and never fewer than the rate."""
    urls, token = gunicorn_servers
    targets = [f"{urls[number % 2]}/api/v1/progress/" for number in range(RATE + 14)]

    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = [status for status, _headers, _body in pool.map(lambda url: _request(url, token), targets)]

    assert RATE <= statuses.count(200) <= RATE + 4 * (2 - 1), statuses
    assert statuses.count(429) == len(targets) - statuses.count(200)


@on_redis
def test_with_redis_url_the_cache_is_django_redis_and_a_count_one_command(tmp_path):
    """Production settings with REDIS_URL: django-redis for the cache and the sessions read
    through it, and a throttle's count (the first of a window included) one Redis command."""
    if not _redis_reachable():
        pytest.skip(f"needs Redis at {REDIS_HOST}:{REDIS_PORT}")
    prefix = f"test-backend-{secrets.token_hex(6)}"
    check = (
        "import json; from django.conf import settings; from django.core.cache import caches; "
        "from django_redis import get_redis_connection; from common.throttle import WINDOW_COUNT, WindowCounter; "
        "cache = caches['default']; client = get_redis_connection(); client.script_load(WINDOW_COUNT); "
        "commands = []; run = client.execute_command; "
        "client.execute_command = lambda *args, **kwargs: commands.append(args[0]) or run(*args, **kwargs); "
        "counter = WindowCounter('throttle', 60); counts = [counter.incr('k'), counter.incr('k', 4)]; "
        "print(json.dumps({'backend': f'{type(cache).__module__}.{type(cache).__qualname__}', "
        "'sessions': settings.SESSION_ENGINE, 'counts': counts, 'commands': commands}))"
    )
    try:
        output = subprocess.run(
            [sys.executable, "manage.py", "shell", "-v0", "-c", check],
            cwd=PROJECT_DIR,
            env=_production_env(tmp_path, prefix),
            check=True,
            timeout=60,
            capture_output=True,
            text=True,
        ).stdout
    finally:
        _delete_prefixed(prefix)

    assert json.loads(output.strip().splitlines()[-1]) == {
        "backend": "django_redis.cache.RedisCache",
        "sessions": "common.sessions.cached_db",
        "counts": [1, 5],
        "commands": ["EVALSHA", "EVALSHA"],
    }


@pytest.fixture
def redis_counter(settings):
    """A WindowCounter on a django-redis cache of its own (a fresh key prefix) and its client."""
    if not _redis_reachable():
        pytest.skip(f"needs Redis at {REDIS_HOST}:{REDIS_PORT}")
    from django_redis import get_redis_connection

    prefix = f"window-{secrets.token_hex(4)}"
    settings.CACHES = {
        **settings.CACHES,
        "redis": {"BACKEND": "django_redis.cache.RedisCache", "LOCATION": REDIS_URL, "KEY_PREFIX": prefix},
    }
    yield WindowCounter("test", 60, cache_alias="redis"), get_redis_connection("redis")
    _delete_prefixed(prefix)


@on_redis
def test_window_counter_on_redis_counts_atomically_in_one_round_trip(redis_counter, monkeypatch):
    """On Redis a count is one command, a Lua script, still atomic across threads, with the
    window starting at the first event."""
    counter, client = redis_counter
    calls = []
    client.script_flush()  # as after a Redis restart: the script is sent again, once
    run = client.execute_command
    with monkeypatch.context() as patch:
        patch.setattr(client, "execute_command", lambda *args, **kwargs: calls.append(args[0]) or run(*args, **kwargs))
        assert [counter.incr("k") for _ in range(3)] == [1, 2, 3]
    # The window's start is set by the first event's command, no round trip of its own.
    assert calls == ["EVALSHA", "SCRIPT LOAD", "EVALSHA", "EVALSHA", "EVALSHA"]
    assert counter.count("k") == 3
    assert 58 <= counter.retry_after("k") <= 60
    count_key, start_key = (counter.cache.make_key(key) for key in counter.keys("k"))
    assert 0 < client.ttl(count_key) <= 60
    assert 0 < client.ttl(start_key) <= 60
    with ThreadPoolExecutor(max_workers=8) as pool:
        counts = list(pool.map(lambda _i: counter.incr("k"), range(200)))
    assert sorted(counts) == list(range(4, 204))
    counter.reset("k")
    assert counter.count("k") == 0
    # Counts held back by a worker arrive together: the first of them opens the window.
    assert [counter.incr("m", 5), counter.incr("m", 2)] == [5, 7]
    assert 0 < client.ttl(counter.cache.make_key("test:m:n")) <= 60
    assert 58 <= counter.retry_after("m") <= 60
