"""Figures kept release to release: races run, requests per race, fault
scenarios survived, access-matrix cells checked.

Tests add to them with ``add(name, amount)``; at the end of the run pytest
prints them and writes ``artifacts/integrity-figures-<database>.json`` (docs/integrity.md).
Run in parallel (pytest-xdist), each worker process counts its own tests'; the
controller adds up what every worker hands back (``merge``) and writes the file
once (tests/conftest.py).
"""

import json
from collections import Counter
from pathlib import Path

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"

_figures: Counter = Counter()


def add(name: str, amount: int = 1) -> None:
    _figures[name] += amount


def merge(counts: dict[str, int]) -> None:
    """Add another process's figures (a worker's ``snapshot()``) to these."""
    _figures.update(counts)


def snapshot() -> dict[str, int]:
    return dict(sorted(_figures.items()))


def write_report(database: str) -> Path:
    report = ARTIFACTS / f"integrity-figures-{database}.json"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(json.dumps({"database": database, "figures": snapshot()}, indent=2) + "\n", encoding="utf-8")
    return report
