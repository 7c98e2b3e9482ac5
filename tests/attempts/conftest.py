"""The attempts' tests on a controlled clock: the server's clock stopped at ``NOW`` (moved by
the test), with a deadline grace of ``GRACE``."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
GRACE = timedelta(seconds=15)


@pytest.fixture(autouse=True)
def grace(settings):
    settings.ATTEMPT_DEADLINE_GRACE = GRACE


@pytest.fixture
def clock():
    """The server's clock, still at NOW unless the test moves it."""
    with time_machine.travel(NOW, tick=False) as traveller:
        yield traveller
