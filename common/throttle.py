"""Counters shared by all workers, and the API's rate throttles built on them.

- ``WindowCounter``: how many times something happened in a window that starts
  at the first time; atomic in the cache (Redis INCR with ``REDIS_URL``), so
  that every gunicorn worker and server counts the same events.
- ``UserRateThrottle``/``AnonRateThrottle``: DRF's, counted with a
  ``WindowCounter`` instead of DRF's read-modify-write history list, which
  concurrent requests on several workers overwrite (and so let through more
  than the rate). Far below its rate, a client's requests are counted in the
  worker first and sent to the shared count in batches (``UnsentCounts``).
"""

import threading
import time

from django.conf import settings
from django.core.cache import caches
from rest_framework import throttling
from rest_framework.settings import api_settings

# Counters shared by all workers ------------------------------------------------


class WindowCounter:
    """Events per key in a window of ``window`` seconds that starts at the key's first event.

    The count is a cache integer (``add`` then ``incr``: atomic in Redis and in
    the local-memory cache), so concurrent workers never lose a count.
    """

    def __init__(self, prefix: str, window: int, cache_alias: str = "default"):
        self.prefix = prefix
        self.window = window
        self.cache = caches[cache_alias]

    def _keys(self, key: str) -> tuple[str, str]:
        return f"{self.prefix}:{key}:n", f"{self.prefix}:{key}:t"

    def incr(self, key: str, amount: int = 1) -> int:
        """Count ``amount`` events; the count in the window so far, these included."""
        count_key, start_key = self._keys(key)
        incr_in_window = getattr(self.cache, "incr_in_window", None)  # Redis (lms/redis_cache.py): one round trip
        if incr_in_window is not None:
            return incr_in_window(count_key, self.window, start_key=start_key, start=time.time(), amount=amount)
        if self.cache.add(count_key, amount, timeout=self.window):
            self.cache.set(start_key, time.time(), timeout=self.window)
            return amount
        try:
            return self.cache.incr(count_key, amount)
        except ValueError:  # the window ended between add() and incr()
            self.cache.set(count_key, amount, timeout=self.window)
            self.cache.set(start_key, time.time(), timeout=self.window)
            return amount

    def count(self, key: str) -> int:
        return self.cache.get(self._keys(key)[0], 0)

    def reset(self, key: str) -> None:
        self.cache.delete_many(self._keys(key))

    def retry_after(self, key: str) -> int:
        """Seconds until the key's window ends (at least 1)."""
        start = self.cache.get(self._keys(key)[1])
        remaining = self.window if start is None else start + self.window - time.time()
        return max(1, min(self.window, int(remaining + 0.999)))


class UnsentCounts:
    """A worker's share of a rate: requests counted here before the shared count hears of them.

    Counting every API request in Redis costs a round trip per request, and
    under load that was a seventh of an API answer's cost (``make bench``,
    docs/performance.md). A client far below its rate does not need it: each worker
    may let ``slack`` of a key's requests through unsent, and sends them with
    the next one, in one command, whose answer (the shared count) decides that
    request. Near the rate every request is sent: from ``limit - slack`` on, the
    shared count decides each one, as before.

    So the rate holds to within ``slack - 1`` requests per worker process, across
    all servers: with 600/min and the default share of 1% (slack 6) and 16
    workers, at most 80 more in a window, and an abusive client is refused
    exactly as before. A slack below 2 sends every request. The counts are the
    worker's own (a dict under a lock): those not sent when the key's window
    ends here are dropped, as they are all when the worker holds ``MAX_KEYS``
    keys and more than half of them have windows still open (a bounded loss,
    each under slack).
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


# This process's held-back API requests (UnsentCounts), per throttle key.
unsent_requests = UnsentCounts()


class AtomicRateThrottleMixin:
    """DRF's rate semantics (num_requests per duration), counted atomically across workers.

    Rates are read from the settings at each request (DRF freezes them at import),
    so that tests can change them with ``override_settings``. Each worker holds
    back up to ``settings.API_THROTTLE_LOCAL_SHARE`` of a rate (``UnsentCounts``).
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
