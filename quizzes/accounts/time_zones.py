"""Each user's time zone: the dates of every page are written in it (``common.dates``, Django's
``date`` filter), the site's ``TIME_ZONE`` unless they chose another.

The choice is stored in ``UserPreferences`` and copied into the session at login and when it
changes, so that a request reads it from the session it loads anyway: no query of its own on
the student pages (tests/test_query_counts.py).
"""

import zoneinfo

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods

from quizzes.accounts.services import TimeZoneError, user_time_zone_set
from quizzes.accounts.time_zone_choices import zone_groups
from quizzes.models import UserPreferences

SESSION_KEY = "time_zone"
TIME_ZONE_SAVED = _("Your time zone is now %(zone)s: dates are written in it.")


def _zone(name: str | None) -> zoneinfo.ZoneInfo | None:
    if not name:
        return None
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None  # a zone the system no longer knows: the site's default


class TimeZoneMiddleware:
    """Activate the user's time zone (the session's copy) for the request; the site's otherwise."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        session = getattr(request, "session", None)
        zone = _zone(session.get(SESSION_KEY)) if session is not None else None
        if zone is not None:
            timezone.activate(zone)
        else:
            timezone.deactivate()
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()


@receiver(user_logged_in, dispatch_uid="accounts_time_zone_on_login")
def time_zone_on_login(sender, request, user, **kwargs):
    """Copy the user's chosen time zone into the new session (one query, at login only)."""
    if request is None or not hasattr(request, "session"):
        return
    chosen = UserPreferences.objects.filter(user_id=user.pk).values_list("time_zone", flat=True).first()
    if chosen:
        request.session[SESSION_KEY] = chosen
    else:
        request.session.pop(SESSION_KEY, None)


@login_required
@require_http_methods(["GET", "POST"])
def time_zone_view(request):
    """GET: the form, the current zone chosen. POST: save the chosen zone (400 if unknown)."""
    if request.method == "GET":
        return _form(request, timezone.get_current_timezone_name())
    name = request.POST.get("time_zone", "")
    try:
        preferences = user_time_zone_set(user=request.user, time_zone=name)
    except TimeZoneError as error:
        return _form(request, timezone.get_current_timezone_name(), error=error.message, status=400)
    request.session[SESSION_KEY] = preferences.time_zone
    messages.success(request, TIME_ZONE_SAVED % {"zone": preferences.time_zone})
    return redirect("time_zone")


def _form(request, current: str, *, error=None, status=200):
    context = {
        "groups": zone_groups(get_language(), timezone.now()),
        "current": current,
        # Nothing chosen yet: the page proposes the phone's own zone (time-zone.js).
        "chosen": bool(request.session.get(SESSION_KEY)),
        "default": settings.TIME_ZONE,
        "error": error,
    }
    return render(request, "accounts/time_zone.html", context, status=status)
