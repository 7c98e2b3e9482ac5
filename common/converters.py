"""Ids from URLs and forms: refuse what no database id can hold.

``<int:pk>`` accepts any length of digits, and a 30-digit id overflows the
database driver (a 500); ``<id:pk>`` makes such a URL a plain 404. Form
values go through ``parse_id`` for the same reason (and because
``str.isdigit`` accepts digits such as "²" that ``int`` refuses).
"""

import re

from django.urls import register_converter

_ID = re.compile(r"[0-9]{1,18}")


def parse_id(value: str) -> int | None:
    """A positive database id from a string of ASCII digits, else None."""
    if not _ID.fullmatch(value) or int(value) == 0:
        return None
    return int(value)


class IdConverter:
    regex = _ID.pattern

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value) -> str:
        return str(int(value))


register_converter(IdConverter, "id")
