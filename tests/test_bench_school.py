"""make bench-school's arithmetic (benchmarks/school.py): cores per part and the capacity model."""

import pytest

from benchmarks import school

pytestmark = pytest.mark.database_independent

PARTS = ("gunicorn", "postgresql", "pgbouncer", "nginx", "redis", "client")


def samples(cpu_per_step: list[float], requests_per_step: list[int]) -> list:
    """Samples every SAMPLE_S seconds: gunicorn and PostgreSQL busy 3 to 1, the rest idle."""
    taken, cpu, done = [], 0.0, 0
    for step, (used, requests) in enumerate(zip([0.0, *cpu_per_step], [0, *requests_per_step], strict=True)):
        cpu, done = cpu + used, done + requests
        seconds = dict.fromkeys(PARTS, 0.0) | {"gunicorn": cpu * 0.75, "postgresql": cpu * 0.25}
        taken.append((step * school.SAMPLE_S, seconds, done))
    return taken


def test_the_busiest_window_is_where_all_parts_together_used_most():
    # 14 steps of 5 s: idle, then 30 s (6 steps) at 10 CPU-s a step, then quiet again.
    cpu = [1.0] * 4 + [10.0] * 6 + [1.0] * 4
    figures = school.cores(samples(cpu, [100] * 4 + [500] * 6 + [100] * 4))
    busiest = figures["busiest_30s"]
    assert busiest["starts_at_s"] == 20
    assert busiest["gunicorn"] == pytest.approx(10.0 * 0.75 / 5)
    assert busiest["requests_per_s"] == pytest.approx(100.0)
    assert busiest["cpu_ms_per_request"]["postgresql"] == pytest.approx(1000 * 2.5 / 500)
    average = figures["average"]
    assert average["requests_per_s"] == pytest.approx((800 + 3000) / 70, abs=0.1)
    assert average["gunicorn"] == pytest.approx(68 * 0.75 / 70, abs=0.01)


def test_the_capacity_is_the_peak_demand_at_the_cpu_per_request(monkeypatch):
    monkeypatch.setattr(school, "SPREAD", 60.0)
    monkeypatch.setattr(school, "THINK", (20.0, 60.0))
    per_request = {"gunicorn": 3.0, "nginx": 0.5, "postgresql": 1.0, "pgbouncer": 0.5, "redis": 0.0, "client": 9.0}
    model = school.capacity(per_request)
    # 10,000 read and start within 60 s (333/s) while those arrived answer every 40 s (250/s).
    assert model["peak_requests_per_s"] == 583
    assert model["app_cores"] == pytest.approx(583.3 * 3.5 / 1000, abs=0.01)
    assert model["database_cores"] == pytest.approx(583.3 * 1.5 / 1000, abs=0.01)  # the client is not the site's
