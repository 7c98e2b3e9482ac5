"""``Idempotency-Key`` on API writes: a retried request is answered once.

The first request with a key runs the view and records its (successful)
response in the same transaction as the write itself; a retry with the same
key and the same request gets that response again, marked with
``Idempotent-Replayed: true``; the same key for a different request is a 422.
A concurrent duplicate waits on the key's unique index until the first one
commits, then replays it. Refused requests (4xx) are not recorded: a retry is
refused again by the same rules; what the refusing service wrote on purpose (an
overdue attempt finished) stands, as it does without a key.

A response whose body may say more or less later (an answer's feedback, which the
quiz's review options may withhold now; an attempt's time left) is replayed with its
recorded status and its body as it stands now (``current``): a replay never shows
what the first response would not show now.
"""

import hashlib
import json
import re
from collections.abc import Callable
from functools import partial, wraps

from django.db import IntegrityError, transaction
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response

from quizzes.api.exceptions import ApiError
from quizzes.attempts.services import AttemptError
from quizzes.models import IdempotencyKey

HEADER = "Idempotency-Key"
# Anchored: the schema's pattern is this one, and a JSON Schema pattern matches anywhere in the
# value unless anchored. Checked with fullmatch (Python's $ also matches before a final newline).
_VALID_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")
INVALID_KEY = _("The Idempotency-Key header must be 1 to 255 visible ASCII characters.")
KEY_REUSED = _("This Idempotency-Key was already used for a different request.")

IDEMPOTENCY_PARAMETER = OpenApiParameter(
    HEADER,
    str,
    OpenApiParameter.HEADER,
    required=False,
    pattern=_VALID_KEY.pattern,
    description=(
        "A unique key per intended write (e.g. a UUID). Retrying with the same key returns the first "
        "response (header Idempotent-Replayed: true) instead of writing again."
    ),
)


def idempotent(view_method=None, *, current: Callable | None = None):
    """Decorate an APIView's ``post``: honour the Idempotency-Key header.

    ``current(request, kwargs, body)``, if given, is the recorded ``body`` as it stands now
    (``kwargs``: the view's URL arguments), for a replay.
    """
    if view_method is None:
        return partial(idempotent, current=current)

    @wraps(view_method)
    def wrapper(view, request, *args, **kwargs):
        key = request.headers.get(HEADER)
        if key is None:
            return view_method(view, request, *args, **kwargs)
        if not _VALID_KEY.fullmatch(key):
            raise ApiError(INVALID_KEY, code="invalid_idempotency_key", status_code=400)
        fingerprint = _fingerprint(request)

        def replay(record: IdempotencyKey) -> Response:
            if record.fingerprint != fingerprint:
                raise ApiError(KEY_REUSED, code="idempotency_key_reused", status_code=422)
            body = record.response_body if current is None else current(request, kwargs, record.response_body)
            return Response(body, status=record.status_code, headers={"Idempotent-Replayed": "true"})

        record = IdempotencyKey.objects.filter(user=request.user, key=key).first()
        if record is not None:
            return replay(record)
        try:
            with transaction.atomic():
                try:
                    response = view_method(view, request, *args, **kwargs)
                except AttemptError as error:
                    refusal = error  # raised once its service's own writes are committed
                else:
                    refusal = None
                    if 200 <= response.status_code < 300:
                        # Fails on the unique constraint if a twin request committed first;
                        # this request's own write is then rolled back with it.
                        IdempotencyKey.objects.create(
                            user=request.user,
                            key=key,
                            fingerprint=fingerprint,
                            status_code=response.status_code,
                            response_body=response.data,
                        )
        except IntegrityError:
            record = IdempotencyKey.objects.filter(user=request.user, key=key).first()
            if record is None:
                raise
            return replay(record)
        if refusal is not None:
            raise refusal
        return response

    return wrapper


def _fingerprint(request) -> str:
    body = json.dumps(request.data, sort_keys=True, default=str)
    return hashlib.sha256(f"{request.method} {request.path}\n{body}".encode()).hexdigest()
