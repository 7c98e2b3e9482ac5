"""Dates and times as a reader writes them: in the active time zone (the user's, activated by
``quizzes.accounts.time_zones.TimeZoneMiddleware``) and the active language's formats."""

from datetime import datetime

from django.utils import formats, timezone


def local_datetime(value: datetime) -> str:
    """``value`` as a date and a clock time, with the time zone's abbreviation."""
    local = timezone.localtime(value)
    return f"{formats.date_format(local, 'DATETIME_FORMAT')} {local.strftime('%Z')}".strip()


def local_time(value: datetime) -> str:
    """``value``'s clock time alone (for a deadline today), with the time zone's abbreviation."""
    local = timezone.localtime(value)
    return f"{formats.time_format(local, 'TIME_FORMAT')} {local.strftime('%Z')}".strip()
