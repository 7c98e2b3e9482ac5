"""Every API error is JSON with a ``detail`` and a stable ``code``.

Field errors of a request body keep DRF's per-field lists under ``errors``.
"""

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import Http404
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler

from quizzes.accounts.lockout import lockout_message
from quizzes.attempts.services import AttemptError

INVALID_INPUT = _("Invalid input.")
BODY_TOO_LARGE = _("The request body is too large.")


class ApiError(exceptions.APIException):
    """An error with the status and code chosen by the service that refused."""

    def __init__(self, detail, *, code: str, status_code: int):
        super().__init__(detail, code)
        self.status_code = status_code


class LoginLockedOut(exceptions.Throttled):
    """Too many failed logins for this username from this address (quizzes/accounts/lockout.py):
    429 with Retry-After, and a translated detail (DRF's would append its own "Expected
    available in..." sentence, which has no translation in most of our languages)."""

    def __init__(self, wait: int):
        super().__init__(detail=lockout_message(wait), code=self.default_code)
        self.wait = wait


def api_exception_handler(exc, context):
    if isinstance(exc, AttemptError):
        exc = ApiError(exc.message, code=exc.code, status_code=exc.status)
    elif isinstance(exc, Http404):
        # DRF would convert it too, but keep the original's text ("No Attempt
        # matches the given query."); a plain "Not found." says no more than needed.
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, RequestDataTooBig):
        return Response({"detail": str(BODY_TOO_LARGE), "code": "body_too_large"}, status=413)
    response = exception_handler(exc, context)
    if response is None:
        return None
    detail = getattr(exc, "detail", None)
    if isinstance(detail, exceptions.ErrorDetail):
        response.data = {"detail": str(detail), "code": detail.code}
    else:
        response.data = {"detail": str(INVALID_INPUT), "code": "invalid", "errors": response.data}
    return response
