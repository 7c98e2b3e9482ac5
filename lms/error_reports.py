"""Errors to Sentry, when ``SENTRY_DSN`` is set: unhandled exceptions with their traceback, the
request's method, path and id (``X-Request-ID``, as in the logs), and nothing personal
(``send_default_pii`` off: no cookies, headers with credentials, user, address or body).
Without it nothing is imported: the ``sentry-sdk`` package is needed only where it is used
(``pip install sentry-sdk``). ``SENTRY_ENVIRONMENT`` and ``SENTRY_TRACES_SAMPLE_RATE`` (0 by
default: errors only) are passed on.
"""

from django.core.exceptions import ImproperlyConfigured

from common.request_id import current_request


def error_reports_init(environ) -> bool:
    """Start Sentry's Django integration if ``SENTRY_DSN`` is set; whether it was started."""
    dsn = environ.get("SENTRY_DSN", "").strip()
    if not dsn:
        return False
    try:
        import sentry_sdk
        from sentry_sdk.integrations.django import DjangoIntegration
    except ImportError as error:
        raise ImproperlyConfigured(
            "SENTRY_DSN is set but sentry-sdk is not installed: pip install sentry-sdk"
        ) from error
    sentry_sdk.init(
        dsn=dsn,
        integrations=[DjangoIntegration()],
        send_default_pii=False,
        environment=environ.get("SENTRY_ENVIRONMENT") or None,
        traces_sample_rate=float(environ.get("SENTRY_TRACES_SAMPLE_RATE", "0")),
        before_send=_with_request_id,
    )
    return True


def _with_request_id(event, hint):
    """The event tagged with the request's id, so that it matches the log's records and the
    ``X-Request-ID`` the user was answered with."""
    request = current_request()
    if request is not None:
        event.setdefault("tags", {})["request_id"] = request.id
    return event
