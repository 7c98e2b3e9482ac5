"""The request id: one per request, sent back in ``X-Request-ID`` on every response (500s
included) and written on every log record made while the request is served, so that a user's
report, the access log and a traceback can be matched.

An incoming ``X-Request-ID`` (nginx's ``$request_id``, deploy/nginx/lms.conf, or a client's own)
is kept when it is sane: only ``[A-Za-z0-9._-]``, at most 64 characters. Anything else could
forge or break a log line, and is replaced by a new id (uuid4, 32 hex digits).
"""

import logging
import re
import uuid
from contextvars import ContextVar
from dataclasses import dataclass

HEADER = "X-Request-ID"
_SANE = re.compile(r"[A-Za-z0-9._-]{1,64}")


@dataclass(frozen=True)
class RequestContext:
    id: str
    method: str
    path: str


# A context variable rather than a thread-local: set and reset around each request, it never
# leaks into the next request a gthread worker's thread serves, and it follows async code.
_current: ContextVar[RequestContext | None] = ContextVar("lms_request", default=None)


def current_request() -> RequestContext | None:
    """The request being served in this thread or task, or None outside one."""
    return _current.get()


def request_id_from(incoming: str | None) -> str:
    """``incoming`` if it is a sane id, else a new one."""
    if incoming and _SANE.fullmatch(incoming):
        return incoming
    return uuid.uuid4().hex


class RequestIdMiddleware:
    """First in MIDDLEWARE: every other middleware's and view's records carry the id, and the
    response of Django's 500 handler passes back through it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        context = RequestContext(request_id_from(request.headers.get(HEADER)), request.method, request.path)
        token = _current.set(context)
        try:
            response = self.get_response(request)
        finally:
            _current.reset(token)
        response[HEADER] = context.id
        return response


class RequestContextFilter(logging.Filter):
    """Adds ``request_id``, ``method`` and ``path`` to every record ("-" outside a request). On a
    handler, so that it sees the records of every logger."""

    def filter(self, record: logging.LogRecord) -> bool:
        context = current_request()
        if context is None:
            # django.request's records carry their request (extra={"request": ...}).
            request = getattr(record, "request", None)
            method, path = getattr(request, "method", None), getattr(request, "path", None)
            context = RequestContext("-", method or "-", path or "-")
        record.request_id, record.method, record.path = context.id, context.method, context.path
        return True
