"""Login throttling against password guessing, for every way to log in.

After ``LOGIN_THROTTLE_USERNAME_FAILURES`` failed logins for one username (from
any address), or ``LOGIN_THROTTLE_IP_FAILURES`` from one address, within
``LOGIN_THROTTLE_WINDOW`` seconds of the first of them, further attempts are
refused with 429, even with the right password, until that window ends. A
successful login clears the username's count (not the address's). Counts live
in the Django cache, so with ``REDIS_URL`` every worker shares them.

``ThrottledModelBackend`` (the authentication backend in settings) applies it
to every ``authenticate()`` call with a username and password: the web login,
the admin login and the API token endpoint (DRF's AuthTokenSerializer calls
``authenticate()``), with nothing to call in their views. A throttled attempt
raises ``LoginThrottled``: DRF turns it into a 429 JSON error (code
"throttled", Retry-After) like any throttle; ``LoginThrottledMiddleware``
turns it into the 429 page for the web.

Code that checks a password without ``authenticate()`` calls
``login_throttle_check`` first, then ``login_failed`` or ``login_succeeded``.
"""

import hashlib
import math

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from rest_framework.exceptions import Throttled

from common.throttle import WindowCounter, client_ip
from quizzes.accounts import statements as account_statements

TOO_MANY_ATTEMPTS = _("Too many login attempts")


def _too_many_failures(minutes: int) -> str:
    return ngettext(
        "Too many failed login attempts. Try again in %(minutes)d minute.",
        "Too many failed login attempts. Try again in %(minutes)d minutes.",
        minutes,
    ) % {"minutes": minutes}


class LoginThrottled(Throttled):
    """Too many failed logins for this username or from this address: 429 with Retry-After."""

    default_code = "throttled"

    def __init__(self, wait: int):
        # DRF would append its own "Expected available in..." (not translatable as written).
        super().__init__(detail=_too_many_failures(math.ceil(wait / 60)), code=self.default_code)
        self.wait = wait


def _counter() -> WindowCounter:
    return WindowCounter("login-failures", settings.LOGIN_THROTTLE_WINDOW)


def _keys(request, username) -> list[tuple[str, int]]:
    """(counter key, limit) for the username and, when known, the client's address."""
    digest = hashlib.sha256(str(username).strip().casefold().encode()).hexdigest()
    keys = [(f"user:{digest}", settings.LOGIN_THROTTLE_USERNAME_FAILURES)]
    address = client_ip(request)
    if address:
        keys.append((f"ip:{address}", settings.LOGIN_THROTTLE_IP_FAILURES))
    return keys


def login_throttle_check(request, username) -> None:
    """Raise ``LoginThrottled`` if this login attempt must be refused without checking the password."""
    counter = _counter()
    waits = [counter.retry_after(key) for key, limit in _keys(request, username) if counter.count(key) >= limit]
    if waits:
        raise LoginThrottled(wait=max(waits))


def login_failed(request, username) -> None:
    counter = _counter()
    for key, _limit in _keys(request, username):
        counter.incr(key)


def login_succeeded(request, username) -> None:
    key, _limit = _keys(request, username)[0]
    _counter().reset(key)


class ThrottledModelBackend(ModelBackend):
    """Django's ModelBackend behind the login throttle."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if username is None or password is None:
            return None
        login_throttle_check(request, username)
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None:
            login_failed(request, username)
        else:
            login_succeeded(request, username)
        return user

    def get_user(self, user_id):
        # Every authenticated page reads its user: one fixed statement (quizzes/attempts/statements.py).
        user = account_statements.user_get(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None

    async def aauthenticate(self, request, username=None, password=None, **kwargs):
        return await sync_to_async(self.authenticate)(request, username=username, password=password, **kwargs)


class LoginThrottledMiddleware:
    """A web login refused by the throttle is the 429 page, in the page's language."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, LoginThrottled):
            return None
        context = {"title": TOO_MANY_ATTEMPTS, "message": exception.detail, "retry_after": exception.wait}
        response = render(request, "429.html", context, status=429)
        response["Retry-After"] = str(exception.wait)
        return response
