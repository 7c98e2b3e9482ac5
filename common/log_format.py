"""How log records are written: one line each on stderr (the process manager collects it),

    2026-03-01T09:30:12.345Z ERROR django.request request_id=3f0c… method=POST path=/api/v1/… Internal Server Error: …
      Traceback (most recent call last):
        File "…", line 12, in …

time (UTC), level, logger, request id ("-" outside a request), the request's method and path
when there is one, the message. A traceback, and any other line after a record's first, follows
indented by two spaces: a line that starts with a space continues the record above it, so a
newline in a message (an exception's text, a value logged) cannot start a record of its own.

Of a request only the method and path are printed: no header, cookie, query string or body.
The text that is printed (message and traceback) has passwords, tokens, session keys, cookies
and answer keys replaced by ``[redacted]``, in case an exception's message quotes them.
"""

import logging
import re
import sys
from datetime import UTC, datetime
from urllib.parse import quote

REDACTED = "[redacted]"
_SENSITIVE_KEY = (
    r"[\w-]*(?:password|passwd|secret|token|session_?id|session_?key|api_?key|cookie|authorization"
    r"|is_correct|correct_choice)[\w-]*"
)
# One pass, left to right: a value once replaced is not read again.
_SECRET = re.compile(
    # A whole header's value: Authorization: Token …, Cookie: a=…; b=…, and their META names.
    r"(?P<header>(?i:\b(?:HTTP_)?(?:authorization|cookie))[\"']?\s*[:=]\s*[\"']?)[^\"'\n]+"
    # An HTTP scheme's credentials, wherever they are quoted (a digit in them: not a word of prose).
    r"|(?P<scheme>\b(?:Token|Bearer|Basic)\s+)(?=[A-Za-z._~+/=-]*\d)[A-Za-z0-9._~+/=-]{8,}"
    # key=value, key: value, 'key': 'value', 'key': ['value'] (a QueryDict's repr).
    rf"|(?P<pair>(?i:\b{_SENSITIVE_KEY})[\"']?\s*[:=]\s*\[?\s*[\"']?)[^\s\"'&;,\]}})>]+"
)
_PATH_SAFE = "/:@!$&'()*+,;=-._~%"


def redact(text: str) -> str:
    return _SECRET.sub(lambda match: (match["header"] or match["scheme"] or match["pair"]) + REDACTED, text)


class StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is when a record comes (as logging's last resort does),
    not to the stream it was when logging was configured: gunicorn's and pytest's redirections
    apply."""

    def __init__(self, level=logging.NOTSET):
        logging.Handler.__init__(self, level)

    @property
    def stream(self):
        return sys.stderr


class OneLineFormatter(logging.Formatter):
    """See the module's docstring. The request's fields come from common.request_id's filter."""

    def __init__(self):
        super().__init__("%(asctime)s %(levelname)s %(name)s request_id=%(request_id)s%(http)s %(message)s")

    def formatTime(self, record, datefmt=None):
        return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def format(self, record):
        record.__dict__.setdefault("request_id", "-")
        method, path = getattr(record, "method", "-"), getattr(record, "path", "-")
        # Quoted: a request's path is decoded, and may hold spaces or newlines.
        record.http = "" if method == "-" else f" method={method} path={quote(path, safe=_PATH_SAFE)}"
        return "\n  ".join(redact(super().format(record)).splitlines())
