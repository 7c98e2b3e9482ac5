"""make bench's arithmetic: slices of wrk runs combined as one run (benchmarks/run.py)."""

import pytest

from benchmarks.ab import extra_env
from benchmarks.run import P99_LIMIT_MS, QUANTILES, combine, drift, passes

pytestmark = pytest.mark.database_independent


def wrk_slice(*, requests: int, seconds: float, latency_ms: float, issued=(0, 0), app_cpu_s=0.0) -> dict:
    """A wrk run whose every request took ``latency_ms``."""
    return {
        "mode": "api",
        "requests": requests,
        "duration_us": int(seconds * 1e6),
        "rps": requests / seconds,
        "errors": {"connect": 0, "read": 0, "write": 0, "status": 0, "timeout": 0},
        "latency_us": {"max": int(latency_ms * 1000)},
        "quantiles_us": [int(latency_ms * 1000)] * QUANTILES,
        "threads": [{"tid": tid, "issued": count} for tid, count in enumerate(issued)],
        "issued": sum(issued),
        "wraps": 0,
        "200": 0,
        "201": requests,
        "302": 0,
        "other": 0,
        "cpu_s": {"app": app_cpu_s, "db": app_cpu_s / 4},
    }


def test_the_rate_is_over_the_slices_time_not_the_mean_of_their_rates():
    combined = combine(
        [wrk_slice(requests=1000, seconds=2, latency_ms=5), wrk_slice(requests=500, seconds=1, latency_ms=5)], "x"
    )

    assert combined["rps"] == 500.0
    assert combined["slices_rps"] == [500.0, 500.0]
    assert combined["requests"] == combined["201"] == 1500


def test_percentiles_are_those_of_all_the_requests():
    # 900 requests at 10 ms and 100 at 200 ms: the median is 10 ms, the 99th percentile 200 ms.
    fast = wrk_slice(requests=900, seconds=2, latency_ms=10)
    slow = wrk_slice(requests=100, seconds=2, latency_ms=200)

    combined = combine([fast, slow], "x")

    assert (combined["p50_ms"], combined["p99_ms"]) == (10.0, 200.0)
    assert combined["latency_us"]["p90"] == 10_000  # 900 of 1000 requests took 10 ms
    assert combined["latency_us"]["max"] == 200_000


def test_cpu_per_request_and_thread_counts_add_up():
    combined = combine(
        [
            wrk_slice(requests=1000, seconds=2, latency_ms=5, issued=(600, 410), app_cpu_s=2.0),
            wrk_slice(requests=1000, seconds=2, latency_ms=5, issued=(500, 505), app_cpu_s=1.0),
        ],
        "x",
    )

    assert combined["app_cpu_ms"] == 1.5
    assert combined["db_cpu_ms"] == 0.38
    assert [thread["issued"] for thread in combined["threads"]] == [1100, 915]
    assert combined["issued"] == 2015


def test_drift_is_relative_to_the_larger_ceiling():
    assert drift((900.0, 1000.0)) == 0.1
    assert drift((1000.0, 900.0)) == 0.1


def test_the_p99_limit_and_the_targets_judge_the_workloads_not_the_ceiling():
    slow = {"mode": "api", "p99_ms": P99_LIMIT_MS + 12, "other": 0}
    fast = {**slow, "p99_ms": P99_LIMIT_MS - 1}
    assert passes(fast, 0.61, 0.6)
    assert not passes(fast, 0.59, 0.6)
    assert not passes(slow, 0.9, 0.6)
    assert not passes({**fast, "other": 1}, 0.9, 0.6)
    ceiling = {"mode": "ceiling", "p99_ms": P99_LIMIT_MS + 12, "other": 0}
    assert passes(ceiling, 0.8, None)  # a stall of the host, reported, not a failure of the application
    assert not passes({**ceiling, "other": 3}, 1.0, None)


def test_bench_ab_reads_the_revisions_extra_settings():
    assert extra_env("") == {}
    assert extra_env("DJANGO_API_THROTTLE_LOCAL_SHARE=0 NOTE='a b'") == {
        "DJANGO_API_THROTTLE_LOCAL_SHARE": "0",
        "NOTE": "a b",
    }
    with pytest.raises(SystemExit):
        extra_env("no-equals-sign")
