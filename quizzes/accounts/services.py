"""Writes of accounts: a user's preferences, and the development accounts."""

import zoneinfo
from functools import cache

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext_lazy as _

from quizzes.accounts.roles import CONTENT_EDITORS, TEACHERS, staff_groups_ensure
from quizzes.enrollment.services import enrollment_create
from quizzes.models import Course, UserPreferences

UNKNOWN_TIME_ZONE = _("%(zone)s is not a time zone this site knows; please choose one from the list.")


class TimeZoneError(Exception):
    """A refused time zone: ``message`` for the user, ``code`` stable."""

    def __init__(self, message, *, code: str):
        super().__init__(message)
        self.message = message
        self.code = code


@cache
def time_zone_names() -> tuple[str, ...]:
    """Every IANA time zone this system knows, sorted: the zones a user may choose."""
    return tuple(sorted(zoneinfo.available_timezones()))


def user_time_zone_set(*, user, time_zone: str) -> UserPreferences:
    """Store ``time_zone`` as ``user``'s, if it is one of ``time_zone_names()``; otherwise
    raise TimeZoneError (``unknown_time_zone``) with nothing written."""
    if time_zone not in time_zone_names():
        raise TimeZoneError(UNKNOWN_TIME_ZONE % {"zone": time_zone[:64] or "—"}, code="unknown_time_zone")
    preferences, _created = UserPreferences.objects.update_or_create(user=user, defaults={"time_zone": time_zone})
    return preferences


def demo_accounts_create() -> dict[str, object]:
    """Development accounts, each with its name as password: ``student`` enrolled in every
    course, ``editor`` staff in the Content editors group and ``teacher`` staff in the
    Teachers group (neither a superuser). Running it again resets them to this."""
    User = get_user_model()
    groups = staff_groups_ensure()
    with transaction.atomic():
        student, _created = User.objects.get_or_create(username="student", defaults={"first_name": "Demo student"})
        student.set_password("student")
        student.save()
        for course in Course.objects.all():
            enrollment_create(user=student, course=course)
        editor = _demo_staff_account(username="editor", first_name="Demo editor", group=groups[CONTENT_EDITORS])
        teacher = _demo_staff_account(username="teacher", first_name="Demo teacher", group=groups[TEACHERS])
    return {"student": student, "editor": editor, "teacher": teacher}


def _demo_staff_account(*, username: str, first_name: str, group):
    """Staff, not a superuser, in ``group`` only, with ``username`` as password."""
    user, _created = get_user_model().objects.get_or_create(username=username, defaults={"first_name": first_name})
    user.set_password(username)
    user.is_staff = True
    user.is_superuser = False
    user.save()
    user.groups.set([group])
    return user
