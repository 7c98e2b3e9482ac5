"""Login lockout against password guessing (django-axes), for every way to log in.

After ``AXES_FAILURE_LIMIT`` failed logins for one username from one address
(``AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]``), further logins of
that username from that address are refused with 429, even with the right
password, until ``AXES_COOLOFF_TIME`` has passed since the last counted failure.
The same username from another address is not affected: nobody can lock a
student out from elsewhere. A successful login clears the count
(``AXES_RESET_ON_SUCCESS``); refused attempts are not counted and do not extend
the lockout (``AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False``).

The address is the one the API throttles use (``common.throttle.client_ip``:
``X-Forwarded-For`` behind ``NUM_PROXIES`` proxies), when it is an IP address
(``client_address``, axes' ``AXES_CLIENT_IP_CALLABLE``). Failures are counted in
the database (axes' ``AccessAttempt``), shared by every worker and server.

``axes.backends.AxesStandaloneBackend``, first in AUTHENTICATION_BACKENDS,
applies it to every ``authenticate()`` call: the web login, the admin login and
the API token endpoint (DRF's AuthTokenSerializer calls ``authenticate()`` with
the request), with nothing to call in the web views. ``authenticate()`` then
needs the request (axes refuses a call without one). A refused web login
becomes the 429 page in the page's language (``lockout_response``, axes'
``AXES_LOCKOUT_CALLABLE``, called by ``axes.middleware.AxesMiddleware``); the
token endpoint turns it into a 429 JSON error with Retry-After
(quizzes/api/views.py: ``TokenView``). A token is a login without Django's
``login()``, which is where axes clears the count: the view calls
``login_succeeded``.
"""

import ipaddress
import math

from axes.handlers.database import AxesDatabaseHandler
from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_cool_off, get_failure_limit
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from common.throttle import client_ip

TOO_MANY_ATTEMPTS = _("Too many login attempts")
BACK_TO_LOGIN = _("Back to the login page")


def client_address(request) -> str | None:
    """The client's address as the API throttles see it, or None if that is not an IP address.

    axes stores it in an address column (PostgreSQL ``inet``): an X-Forwarded-For entry
    that is not an address (a request that did not come through the proxy) would fail there.
    """
    address = client_ip(request)
    try:
        return str(ipaddress.ip_address(address)) if address else None
    except ValueError:
        return None


class LockoutDatabaseHandler(AxesDatabaseHandler):
    """axes' database handler (``AXES_HANDLER``), with every header it records storable.

    A failure is recorded with the request's User-Agent, Accept and path; axes replaces a NUL
    in the query and form data it records (as "0x00"), not in those, and PostgreSQL refuses a
    NUL in a text parameter: a failed login sent with one was a DataError, a 500.
    """

    def user_login_failed(self, sender, credentials: dict, request=None, **kwargs):
        if request is not None:
            for name in ("axes_user_agent", "axes_http_accept", "axes_path_info"):
                value = getattr(request, name, None)
                if isinstance(value, str):
                    setattr(request, name, value.replace("\0", "0x00"))
        return super().user_login_failed(sender, credentials, request, **kwargs)


def lockout_message(wait: int) -> str:
    """The refusal, in the active language: how many minutes until the next try."""
    minutes = math.ceil(wait / 60)
    return ngettext(
        "Too many failed login attempts. Try again in %(minutes)d minute.",
        "Too many failed login attempts. Try again in %(minutes)d minutes.",
        minutes,
    ) % {"minutes": minutes}


def _user_attempts(request, credentials: dict | None):
    """The failures on record for this username and address within the cool-off (axes'
    database handler: a queryset per user agent), or None with a handler that keeps none."""
    get_user_attempts = getattr(AxesProxyHandler.get_implementation(), "get_user_attempts", None)
    return None if get_user_attempts is None else get_user_attempts(request, credentials)


def lockout_wait(request, credentials: dict | None = None) -> int:
    """Seconds (at least 1) until the locked-out request's username may log in again from its address.

    A lockout ends when the failures still within the cool-off fall below the
    limit: the oldest of them expire first (one row per user agent).
    """
    AxesProxyHandler.update_request(request)
    cool_off = get_cool_off(request)
    longest = max(1, math.ceil(cool_off.total_seconds()))
    limit = get_failure_limit(request, credentials)
    user_attempts = _user_attempts(request, credentials)
    if user_attempts is None:
        return longest
    ends = []
    for attempts in user_attempts:
        rows = sorted(attempts.values_list("attempt_time", "failures_since_start"))
        counted = sum(failures for _time, failures in rows)
        end = None
        for attempt_time, failures in rows:
            if counted < limit:
                break
            counted -= failures
            end = attempt_time + cool_off
        if end is not None:
            ends.append(end)
    if not ends:  # no longer locked (the cool-off ended meanwhile): try again at once
        return 1
    return max(1, min(longest, math.ceil((max(ends) - request.axes_attempt_time).total_seconds())))


def failures_left(request, credentials: dict) -> int:
    """How many more failed logins of ``credentials``' username from this request's address
    lock it out: the limit less the failures counted within the cool-off (this one included)."""
    AxesProxyHandler.update_request(request)
    limit = get_failure_limit(request, credentials)
    user_attempts = _user_attempts(request, credentials)
    if user_attempts is None:
        return limit
    counted = sum(
        failures for attempts in user_attempts for failures in attempts.values_list("failures_since_start", flat=True)
    )
    return max(0, limit - counted)


def last_try_warning(request) -> str:
    """The warning a login form shows when one more failure locks the username out."""
    minutes = math.ceil(get_cool_off(request).total_seconds() / 60)
    return ngettext(
        "One more failed attempt will stop logins to this account from this device for %(minutes)d minute.",
        "One more failed attempt will stop logins to this account from this device for %(minutes)d minutes.",
        minutes,
    ) % {"minutes": minutes}


def lockout_response(request, original_response=None, credentials=None):
    """The 429 page of a locked-out web login (web and admin), in the page's language."""
    if isinstance(original_response, dict):  # axes' async middleware passes (request, credentials)
        original_response, credentials = None, original_response
    wait = lockout_wait(request, credentials)
    # The way back: the login page the student came from (the site's or the admin's).
    context = {
        "title": TOO_MANY_ATTEMPTS,
        "message": lockout_message(wait),
        "retry_after": wait,
        "back_url": request.get_full_path(),
        "back_label": BACK_TO_LOGIN,
    }
    response = render(request, "429.html", context, status=429)
    response["Retry-After"] = str(wait)
    return response


def login_succeeded(request, user) -> None:
    """A login without django.contrib.auth.login() (an API token): clear the username's failures
    from this address, as axes does on login() (AXES_RESET_ON_SUCCESS)."""
    AxesProxyHandler.user_logged_in(sender=__name__, request=request, user=user)
