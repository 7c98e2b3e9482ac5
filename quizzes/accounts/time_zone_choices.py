"""The time zones a person picks from, and how they are named.

The tz database's own list of places (``zone.tab``: one zone per place, without the
obsolete aliases such as Africa/Asmera or US/Pacific), grouped by region, each named in
the reader's language from CLDR (Babel: "پاکستان وقت", "Waktu Pakistan") with its offset
from UTC now. Any zone the system knows is still accepted when saved (``services``); these
are the ones offered.
"""

import zoneinfo
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path

from babel import Locale, UnknownLocaleError
from babel.dates import get_timezone_location
from django.utils.translation import gettext_lazy as _

UTC = "UTC"
REGIONS = {
    "Africa": _("Africa"),
    "America": _("The Americas"),
    "Antarctica": _("Antarctica"),
    "Arctic": _("Arctic"),
    "Asia": _("Asia"),
    "Atlantic": _("Atlantic Ocean"),
    "Australia": _("Australia"),
    "Europe": _("Europe"),
    "Indian": _("Indian Ocean"),
    "Pacific": _("Pacific Ocean"),
}


@dataclass(frozen=True)
class ZoneChoice:
    name: str  # the IANA name, what is saved
    label: str  # the place, in the reader's language
    minutes: int  # its offset from UTC now

    @property
    def offset(self) -> str:
        """``UTC+05:00``."""
        sign, minutes = ("+" if self.minutes >= 0 else "-"), abs(self.minutes)
        return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"


@cache
def offered_zones() -> tuple[str, ...]:
    """The zones of ``zone.tab`` this system knows (any zone it knows, less the legacy
    names, where it has no ``zone.tab``), and UTC."""
    known = zoneinfo.available_timezones()
    for directory in zoneinfo.TZPATH:
        table = Path(directory) / "zone.tab"
        if table.is_file():
            lines = table.read_text(encoding="utf-8").splitlines()
            listed = {line.split("\t")[2] for line in lines if line and not line.startswith("#")}
            return tuple(sorted((listed & known) | {UTC}))
    return (*sorted(name for name in known if name.split("/")[0] in REGIONS), UTC)


def _locale(language: str) -> Locale:
    try:
        return Locale.parse(language)
    except (UnknownLocaleError, ValueError):
        return Locale.parse("en")


def _minutes(name: str, now: datetime) -> int:
    return int(now.astimezone(zoneinfo.ZoneInfo(name)).utcoffset().total_seconds()) // 60


def _label(name: str, locale: Locale) -> str:
    """CLDR's name of the zone's place; English's where this language's data lacks the place's
    country, and the city from the zone's name where CLDR has none."""
    for reading in (locale, Locale.parse("en")):
        try:
            return get_timezone_location(name, locale=reading)
        except (KeyError, LookupError):
            continue
    return name.rsplit("/", 1)[-1].replace("_", " ")


@cache
def _labels(language: str) -> dict[str, str]:
    locale = _locale(language)
    return {name: _label(name, locale) for name in offered_zones() if name != UTC}


def zone_groups(language: str, now: datetime) -> list[tuple[str, list[ZoneChoice]]]:
    """UTC, then each region (in ``REGIONS`` order) with its zones by offset, then name."""
    labels = _labels(language)
    regions: dict[str, list[ZoneChoice]] = {region: [] for region in REGIONS}
    for name in offered_zones():
        region = name.split("/")[0]
        if name != UTC and region in regions:
            regions[region].append(ZoneChoice(name, labels[name], _minutes(name, now)))
    groups = [("UTC", [ZoneChoice(UTC, "UTC", 0)])]
    for region, choices in regions.items():
        if choices:
            choices.sort(key=lambda choice: (choice.minutes, choice.label))
            groups.append((str(REGIONS[region]), choices))
    return groups
