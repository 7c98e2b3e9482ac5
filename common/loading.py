"""Rows loaded whole (``manage.py loaddata``): what each saved row's receivers would derive from
it, one row at a time, collected instead and derived once when the rows are all in.

``loaddata`` (common/management/commands/loaddata.py) runs inside ``rows_loaded()``. A
receiver that derives rows from a saved one asks ``collecting()``: outside a load it is None
and the receiver works as usual; during one it is a dict of sets to add to (``touched``).
When the load's rows are in, each function given to ``when_loaded`` runs once with that dict,
in loaddata's transaction: a failed load derives nothing.
"""

from collections import defaultdict
from collections.abc import Callable
from contextlib import contextmanager
from contextvars import ContextVar

_collecting: ContextVar[dict | None] = ContextVar("rows_loading", default=None)
_finishers: list[Callable[[dict], None]] = []


def when_loaded(finisher: Callable[[dict], None]) -> Callable[[dict], None]:
    """Register ``finisher`` to run with what was collected at the end of every load."""
    if finisher not in _finishers:
        _finishers.append(finisher)
    return finisher


def collecting() -> dict | None:
    """What the current load has collected, by name (None outside a load)."""
    return _collecting.get()


@contextmanager
def rows_loaded():
    """Collect during the block; run the finishers after it, unless it raised."""
    touched = defaultdict(set)
    token = _collecting.set(touched)
    try:
        yield touched
    finally:
        _collecting.reset(token)
    for finisher in _finishers:
        finisher(touched)
