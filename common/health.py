"""Health checks for load balancers, orchestrators and the process manager.

- ``/healthz``: 200 whenever this process serves requests. It asks nothing else (no database, no
  cache), so that an outage of the database never gets healthy processes restarted.
- ``/readyz``: 200 when the database and the cache each answer within ``TIMEOUT`` seconds, else
  503; the JSON names the failing parts (``failed``) with a short reason: the kind of error, never
  its message, which may carry a host or a user name (the log has it whole). With
  ``DATABASE_REPLICA_URL`` the replica is asked too, as a part not required: the reports read the
  default database when it fails (common/replica.py), so its failure is named and the answer
  stays 200.

Each part of ``/readyz`` runs in a thread of its own and is given up at the deadline, whatever it
waits on (a connection to a host that does not answer, a pooler queueing for a server that is
down). A part still running from an earlier probe is reported as failing, not started again: at
most one waiting thread per part per process. The database is asked on a connection of its own,
opened with a connect time-out and closed after: a worker's persistent connection is left alone.

``HealthCheckMiddleware`` answers both paths before the other middleware: probes ask by the
server's address (a Host that ALLOWED_HOSTS refuses; these responses never use the Host), over
plain http (no redirect to https), without a language prefix, a session or a login, unthrottled
(the throttles are the API's).
"""

import contextvars
import logging
import math
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.core.cache import caches
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.utils import load_backend
from django.http import JsonResponse
from django.urls import path
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from common import replica

logger = logging.getLogger(__name__)

# Seconds each part of /readyz may take; a probe should wait a little longer (docs/deployment.md).
TIMEOUT = 2.0
# libpq's connect_timeout: whole seconds, at least 2.
CONNECT_TIMEOUT = max(2, math.ceil(TIMEOUT))
STILL_RUNNING = "the previous check has not finished"
NO_ANSWER = "no answer within {:g} s"


class ReadBackDiffers(Exception):
    """The cache gave back something other than what was just written to it."""


@dataclass(frozen=True)
class Part:
    name: str
    check: Callable[[], None]
    required: bool = True


def database_check(alias: str) -> Callable[[], None]:
    """``SELECT 1`` on a new connection to ``alias``, closed after."""
    settings_dict = dict(connections[alias].settings_dict)
    wrapper_class = load_backend(settings_dict["ENGINE"]).DatabaseWrapper
    if wrapper_class.vendor == "postgresql":
        settings_dict["OPTIONS"] = {**settings_dict.get("OPTIONS", {}), "connect_timeout": CONNECT_TIMEOUT}

    def check() -> None:
        database = wrapper_class(settings_dict, alias)
        try:
            with database.cursor() as cursor:
                cursor.execute("SELECT 1")
                cursor.fetchone()
        finally:
            database.close()

    return check


def cache_check(alias: str = "default") -> Callable[[], None]:
    """A short-lived key written, read back and deleted."""

    def check() -> None:
        cache = caches[alias]
        key, value = f"health:readyz:{secrets.token_hex(8)}", secrets.token_hex(8)
        cache.set(key, value, timeout=10)
        try:
            if cache.get(key) != value:
                raise ReadBackDiffers
        finally:
            cache.delete(key)

    return check


def parts() -> list[Part]:
    """What ``/readyz`` asks, in the order its JSON lists them."""
    found = [Part("database", database_check(DEFAULT_DB_ALIAS)), Part("cache", cache_check())]
    if replica.configured():
        found.append(Part("replica", database_check(replica.ALIAS), required=False))
    return found


_running: set[str] = set()  # the parts whose check is under way in this process
_running_lock = threading.Lock()


def _started(part: Part) -> tuple[threading.Thread, dict] | None:
    """The part's check started in a thread, with the dict it fills in; None if one is still running."""
    with _running_lock:
        if part.name in _running:
            return None
        _running.add(part.name)
    outcome: dict = {}

    def run() -> None:
        started = time.perf_counter()
        try:
            part.check()
        except Exception as error:
            outcome["error"] = type(error).__name__
            logger.warning("readyz: %s failed: %s: %s", part.name, type(error).__name__, error)
        finally:
            outcome["ms"] = round((time.perf_counter() - started) * 1000, 1)
            with _running_lock:
                _running.discard(part.name)

    # In the request's context: a failure's log record carries the request's id.
    thread = threading.Thread(
        target=contextvars.copy_context().run, args=(run,), name=f"readyz-{part.name}", daemon=True
    )
    try:
        thread.start()
    except RuntimeError:  # no thread to be had: the next probe tries again
        with _running_lock:
            _running.discard(part.name)
        raise
    return thread, outcome


def readiness(checked: list[Part]) -> tuple[bool, dict]:
    """Run the parts' checks together; whether every required one answered, and the report."""
    timeout = TIMEOUT
    deadline = time.monotonic() + timeout
    running = {part.name: _started(part) for part in checked}
    report: dict[str, dict] = {}
    for part in checked:
        if running[part.name] is None:
            result = {"ok": False, "error": STILL_RUNNING}
        else:
            thread, outcome = running[part.name]
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                logger.warning("readyz: %s gave no answer within %g s", part.name, timeout)
                result = {"ok": False, "ms": timeout * 1000, "error": NO_ANSWER.format(timeout)}
            else:
                result = {"ok": "error" not in outcome, **outcome}
        if not part.required:
            result["required"] = False
        report[part.name] = result
    failed = [part.name for part in checked if part.required and not report[part.name]["ok"]]
    body = {"status": "fail" if failed else "ok", "checks": report}
    if failed:
        body["failed"] = failed
    return not failed, body


def _answer(body: dict, status: int = 200) -> JsonResponse:
    response = JsonResponse(body, status=status)
    # The security middleware does not see these responses.
    response["X-Content-Type-Options"] = "nosniff"
    return response


@never_cache
@require_safe
def healthz(request) -> JsonResponse:
    return _answer({"status": "ok"})


@never_cache
@require_safe
def readyz(request) -> JsonResponse:
    ready, body = readiness(parts())
    return _answer(body, 200 if ready else 503)


# Routed in lms/urls.py, outside the language prefixes; answered first by the middleware below.
urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
]
_VIEWS = {f"/{pattern.pattern}": pattern.callback for pattern in urlpatterns}


class HealthCheckMiddleware:
    """Before the other middleware in MIDDLEWARE: ``/healthz`` and ``/readyz`` answered before
    the Host is checked (CommonMiddleware), http is redirected to https (SecurityMiddleware), a
    session is read or a language chosen. Every other request passes on untouched."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        view = _VIEWS.get(request.path_info)
        if view is None:
            return self.get_response(request)
        return view(request)
