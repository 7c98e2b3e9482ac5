"""The API's rate throttles, counted atomically by every worker and server.

- ``UserRateThrottle`` / ``AnonRateThrottle``: DRF's rates (``num_requests`` per
  ``duration``), counted in the shared cache (Redis with ``REDIS_URL``) by a
  ``WindowCounter`` instead of DRF's history list, which each request reads,
  changes and writes back whole, so that concurrent requests on several workers
  overwrite each other's and let more than the rate through.
- ``WindowCounter``: events per key in a window that starts at the key's first
  event. On Redis a count is one command, a Lua script (``WINDOW_COUNT``) that
  increments the count and, for a window's first events, sets its expiry and
  start; elsewhere (the local-memory cache) ``add`` then ``incr``.
- ``UnsentCounts``: far below its rate, a client's requests are counted in the
  worker first and sent to the shared count in batches, in that one command.

The bound. With ``slack = int(rate * API_THROTTLE_LOCAL_SHARE)``, each worker process
lets through at most ``slack - 1`` of a key's requests in a window beyond the rate (those
it held back), so across all servers at most ``rate + workers * (slack - 1)``, and never
fewer than the rate. Refusals are exact from ``rate - slack`` on: once a worker has seen
the shared count there, it sends every request and the shared count decides each one,
so a client over its rate is refused as if nothing were held back. A slack below 2
sends every request.
"""

import threading
import time

from django.conf import settings
from django.core.cache import caches
from django_redis import get_redis_connection
from django_redis.cache import RedisCache
from rest_framework import throttling
from rest_framework.settings import api_settings


class WindowCounter:
    """Events per key in a window of ``window`` seconds that starts at the key's first event.

    Atomic in Redis and in the local-memory cache: concurrent workers never lose a count.
    The count and the window's start (integer milliseconds) are integers, which every
    cache stores and reads back as such, whatever its serializer.
    """

    def __init__(self, prefix: str, window: int, cache_alias: str = "default"):
        self.prefix = prefix
        self.window = window
        self.cache_alias = cache_alias
        self.cache = caches[cache_alias]

    def keys(self, key: str) -> tuple[str, str]:
        """The cache keys of the count and of the window's start."""
        return f"{self.prefix}:{key}:n", f"{self.prefix}:{key}:start-ms"

    def incr(self, key: str, amount: int = 1) -> int:
        """Count ``amount`` events; the count in the window so far, these included."""
        count_key, start_key = self.keys(key)
        start = int(time.time() * 1000)
        if isinstance(self.cache, RedisCache):
            keys = [self.cache.make_and_validate_key(count_key), self.cache.make_and_validate_key(start_key)]
            return _redis_window_count(self.cache_alias, keys, self.window, start, amount)
        if self.cache.add(count_key, amount, timeout=self.window):
            self.cache.set(start_key, start, timeout=self.window)
            return amount
        try:
            return self.cache.incr(count_key, amount)
        except ValueError:  # the window ended between add() and incr()
            self.cache.set_many({count_key: amount, start_key: start}, timeout=self.window)
            return amount

    def count(self, key: str) -> int:
        return self.cache.get(self.keys(key)[0], 0)

    def reset(self, key: str) -> None:
        self.cache.delete_many(self.keys(key))

    def retry_after(self, key: str) -> int:
        """Seconds until the key's window ends (at least 1)."""
        start = self.cache.get(self.keys(key)[1])
        remaining = self.window if start is None else start / 1000 + self.window - time.time()
        return max(1, min(self.window, int(remaining + 0.999)))


# KEYS: the count, the window's start; ARGV: the window (seconds), its start, the amount.
# Atomic in Redis: no other command comes between the INCRBY and the expiry it sets.
WINDOW_COUNT = """
local count = redis.call("INCRBY", KEYS[1], ARGV[3])
if count == tonumber(ARGV[3]) then
    redis.call("EXPIRE", KEYS[1], ARGV[1])
    redis.call("SET", KEYS[2], ARGV[2], "EX", ARGV[1])
end
return count
"""
window_count_script = None  # WINDOW_COUNT registered with redis-py, once per process


def _redis_window_count(alias: str, keys: list[str], window: int, start: int, amount: int) -> int:
    """``WINDOW_COUNT`` as EVALSHA: the script's text is sent again only if Redis lost it."""
    global window_count_script
    client = get_redis_connection(alias)
    if window_count_script is None:
        window_count_script = client.register_script(WINDOW_COUNT)
    return int(window_count_script(keys=keys, args=[window, start, amount], client=client))


class UnsentCounts:
    """A worker's share of a rate: requests counted here before the shared count hears of them.

    A worker lets up to ``slack - 1`` of a key's requests through unsent (a round trip
    to Redis saved on each) and sends them with the next one, whose answer (the
    shared count) decides that request. From ``limit - slack`` on, every request is
    sent. The module docstring states the bound. The counts are the worker's own (a
    dict under a lock): those not sent when the key's window ends here are dropped,
    as they are all when the worker holds ``MAX_KEYS`` keys and more than half of
    them have windows still open (a bounded loss, each under slack).
    """

    MAX_KEYS = 10_000

    def __init__(self):
        self._lock = threading.Lock()
        self._entries: dict[str, list] = {}  # key -> [end of the window here, shared count last seen, unsent]

    def take(self, key: str, window: int, limit: int, slack: int) -> tuple[int, list] | None:
        """Count one request under ``key``: None if it may pass unsent, else how many to send
        now (this one and those held back) and the entry for ``seen``."""
        now = time.time()
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry[0] <= now:
                if len(self._entries) >= self.MAX_KEYS:
                    self._sweep(now)
                entry = self._entries[key] = [now + window, 0, 0]
            _end, seen, unsent = entry
            if unsent + 1 < slack and seen + unsent + 1 <= limit - slack:
                entry[2] = unsent + 1
                return None
            entry[2] = 0
            return unsent + 1, entry

    def seen(self, entry: list, count: int) -> None:
        """The shared count after a send."""
        with self._lock:
            entry[1] = max(entry[1], count)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def _sweep(self, now: float) -> None:
        """Drop the keys whose window has ended; all of them if more than half are still open,
        so that the next sweep is at least MAX_KEYS / 2 new keys away."""
        for key in [key for key, entry in self._entries.items() if entry[0] <= now]:
            del self._entries[key]
        if len(self._entries) > self.MAX_KEYS // 2:
            self._entries.clear()


# This process's held-back API requests, per throttle key.
unsent_requests = UnsentCounts()


class AtomicRateThrottleMixin:
    """DRF's rate semantics, counted by a ``WindowCounter`` after ``unsent_requests``.

    Rates are read from the settings at each request (DRF freezes them at import),
    so that tests can change them with ``override_settings``.
    """

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request, view):
        self.rate = self.get_rate()
        if self.rate is None:
            return True
        self.num_requests, self.duration = self.parse_rate(self.rate)
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        slack = int(self.num_requests * settings.API_THROTTLE_LOCAL_SHARE)
        taken = unsent_requests.take(self.key, self.duration, self.num_requests, slack)
        if taken is None:
            return True
        amount, entry = taken
        self.counter = WindowCounter("throttle", self.duration)
        count = self.counter.incr(self.key, amount)
        unsent_requests.seen(entry, count)
        return count <= self.num_requests

    def wait(self):
        return self.counter.retry_after(self.key)


class UserRateThrottle(AtomicRateThrottleMixin, throttling.UserRateThrottle):
    pass


class AnonRateThrottle(AtomicRateThrottleMixin, throttling.AnonRateThrottle):
    pass


def client_ip(request) -> str | None:
    """The client's address as the API throttles see it (REST_FRAMEWORK NUM_PROXIES)."""
    if request is None:
        return None
    return throttling.BaseThrottle().get_ident(request) or None
