"""``make bench-school``: a whole school sits the same quiz at once, through the deployed stack.

1. The benchmark's database (benchmarks/run.py's ``prepare``: lms_bench recreated, migrate,
   fixtures, static files) with ``BENCH_SCHOOL_STUDENTS`` students (10,000) and 3,000 past
   attempts, every answer recorded, as a school's tables are after a while.
2. The parts of deploy/ on this machine (tests/deploy/stack.py, tests/pgbouncer.py): PgBouncer
   in transaction mode in front of that database, gunicorn with deploy/gunicorn.conf.py (its
   workers from the cores) whose DATABASE_URL is PgBouncer's, Redis for the cache and the
   throttles, nginx with deploy/nginx/lms.conf in front.
3. The burst (benchmarks/burst.py) through nginx: every student arrives within
   ``BENCH_SCHOOL_SPREAD`` seconds (60), reads the quiz, starts an attempt, answers the 8
   questions with a think time before each (``BENCH_SCHOOL_THINK_MIN``..``_MAX``, 20 to 60 s)
   and finishes. Meanwhile gunicorn is reloaded gracefully (SIGHUP: new workers, the old ones
   finish what they hold) at each of ``BENCH_SCHOOL_RELOADS`` seconds (30 and 150).
4. The checks: no error and no 5xx; every acknowledged answer stored exactly once (rows counted
   against acknowledgements, no (attempt, question) twice); answer p95 under 250 ms. The CPU
   each part used (gunicorn, PostgreSQL, PgBouncer, nginx, Redis, this client), sampled every
   5 s: on average, and in the busiest 30 s, as cores per 10,000 students at once.

Prints the figures and writes them to benchmarks/results/school-<UTC timestamp>.json.
Exit status 0 when every check passes, 1 otherwise.
"""

import asyncio
import json
import os
import resource
import signal
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import dj_database_url

from benchmarks import run as bench
from benchmarks.burst import Stats, burst, request
from tests import pgbouncer
from tests.deploy import gunicorn, nginx
from tests.processes import free_port, wait_ready

STUDENTS = int(os.environ.get("BENCH_SCHOOL_STUDENTS", "10000"))
SPREAD = float(os.environ.get("BENCH_SCHOOL_SPREAD", "60"))
THINK = (float(os.environ.get("BENCH_SCHOOL_THINK_MIN", "20")), float(os.environ.get("BENCH_SCHOOL_THINK_MAX", "60")))
RELOADS = [float(at) for at in os.environ.get("BENCH_SCHOOL_RELOADS", "30,150").split(",") if at]
# Students still answering after this many seconds are stopped (and the run fails).
DEADLINE = float(os.environ.get("BENCH_SCHOOL_DEADLINE", "720"))
POOL_SIZE = int(os.environ.get("BENCH_SCHOOL_POOL", "8"))  # PgBouncer's server connections
ANSWER_P95_LIMIT_MS = 250.0
SAMPLE_S = 5.0
BUSIEST_S = 30.0
PER_STUDENTS = 10_000


def _tree_seconds(pid: int) -> float:
    """CPU seconds of a process, of its live children, and of those it has waited for (workers
    replaced on a reload, database connections closed)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return 0.0
    own = bench._cpu_seconds(pid, waited_children=True)
    return own + sum(bench._cpu_seconds(int(child)) for child in children)


def _roots(name: str) -> list[int]:
    """The processes named ``name`` whose parent is not: a server's master (its workers are children)."""
    named = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == name:
                    named[int(entry.name)] = int(bench.proc_stat(int(entry.name))[1])
            except (OSError, IndexError, ValueError):
                continue
    return [pid for pid, parent in named.items() if parent not in named]


def cpu_by_part(gunicorn_pid: int) -> dict[str, float]:
    """CPU seconds so far of each part of the stack, and of this client."""
    roots = {
        "gunicorn": [gunicorn_pid],
        "postgresql": _roots("postgres"),
        "pgbouncer": _roots("pgbouncer"),
        "nginx": _roots("nginx"),
        "redis": _roots("redis-server"),
    }
    seconds = {part: sum(_tree_seconds(pid) for pid in pids) for part, pids in roots.items()}
    usage = resource.getrusage(resource.RUSAGE_SELF)
    seconds["client"] = usage.ru_utime + usage.ru_stime
    return seconds


async def sample(gunicorn_pid: int, stats: Stats, samples: list) -> None:
    while True:
        samples.append((time.monotonic(), cpu_by_part(gunicorn_pid), len(stats.latencies)))
        await asyncio.sleep(SAMPLE_S)


async def reload_at(process, offsets: list[float], done: list) -> None:
    started = time.monotonic()
    for offset in offsets:
        await asyncio.sleep(max(0.0, offset - (time.monotonic() - started)))
        process.send_signal(signal.SIGHUP)
        done.append(round(time.monotonic() - started, 1))


def cores(samples: list) -> dict:
    """Cores each part used, and requests ended per second: over the run, and in its busiest
    ``BUSIEST_S`` (the most CPU, all parts together); the CPU milliseconds each request took."""
    window = max(1, round(BUSIEST_S / SAMPLE_S))
    busiest = max(
        range(len(samples) - window),
        key=lambda i: sum(samples[i + window][1].values()) - sum(samples[i][1].values()),
        default=0,
    )
    figures = {}
    for when, (start, end) in {
        "average": (samples[0], samples[-1]),
        "busiest_30s": (samples[busiest], samples[min(busiest + window, len(samples) - 1)]),
    }.items():
        (start_at, start_cpu, start_requests), (end_at, end_cpu, end_requests) = start, end
        used = {part: end_cpu[part] - start_cpu[part] for part in start_cpu}
        requests = max(1, end_requests - start_requests)
        figures[when] = {part: round(seconds / (end_at - start_at), 2) for part, seconds in used.items()}
        figures[when]["requests_per_s"] = round(requests / (end_at - start_at), 1)
        figures[when]["cpu_ms_per_request"] = {
            part: round(1000 * seconds / requests, 2) for part, seconds in used.items()
        }
    figures["busiest_30s"]["starts_at_s"] = round(samples[busiest][0] - samples[0][0])
    return figures


async def the_school(students: dict, site: tuple[str, int], gunicorn) -> dict:
    samples, reloaded, stats = [], [], Stats()
    sampler = asyncio.create_task(sample(gunicorn.pid, stats, samples))
    reloader = asyncio.create_task(reload_at(gunicorn, RELOADS, reloaded))
    try:
        figures = await burst(
            *site,
            students["burst_tokens"],
            students["quiz"],
            students["questions"],
            spread=SPREAD,
            think=THINK,
            deadline=DEADLINE,
            stats=stats,
        )
    finally:
        for task in (sampler, reloader):
            task.cancel()
    samples.append((time.monotonic(), cpu_by_part(gunicorn.pid), len(stats.latencies)))
    figures["reloads_at_s"] = reloaded
    figures["cores"] = cores(samples)
    return figures


def checked(figures: dict, tokens: list[str], questions: int, rows_before: int) -> dict:
    figures["new_rows"] = bench._rows_of_tokens(tokens) - rows_before
    figures["stored_twice"] = bench.stored_twice(tokens)
    figures["server_errors"] = sum(
        count for key, count in figures["statuses"].items() if int(key.rsplit(" ", 1)[1]) >= 500
    )
    expected = len(tokens) * questions
    figures["checks"] = {
        "no error": figures["errors"] == 0,
        "no 5xx": figures["server_errors"] == 0,
        # An answer sent but not acknowledged (a lost reply) may be stored: it is an error already.
        "every acknowledged answer stored once": figures["stored_twice"] == 0
        and figures["new_rows"] >= figures["answers_acknowledged"],
        "every answer acknowledged": figures["answers_acknowledged"] == expected,
        f"answer p95 under {ANSWER_P95_LIMIT_MS:.0f} ms": figures["p95_ms_by_kind"].get("answer", 1e9)
        < ANSWER_P95_LIMIT_MS,
        "every reload done": len(figures["reloads_at_s"]) == len(RELOADS),
    }
    figures["capacity_per_10000_students"] = capacity(figures["cores"]["average"]["cpu_ms_per_request"])
    return figures


def capacity(per_request: dict[str, float]) -> dict:
    """Cores 10,000 students at once keep busy when served at once: at the end of their arrival
    they read and start (2 requests each within the spread) while those arrived answer (one
    request per think time), at the CPU per request of this run."""
    demand = 2 * PER_STUDENTS / SPREAD + PER_STUDENTS / (sum(THINK) / 2)
    parts = {"app": ("gunicorn", "nginx"), "database": ("postgresql", "pgbouncer", "redis")}
    return {
        "peak_requests_per_s": round(demand),
        **{
            f"{tier}_cores": round(demand * sum(per_request[p] for p in names) / 1000, 2)
            for tier, names in parts.items()
        },
    }


def report(figures: dict, elapsed: float) -> int:
    kinds = figures["p95_ms_by_kind"]
    print(
        f"school: {figures['students']} students within {figures['spread_s']:.0f} s, think "
        f"{THINK[0]:.0f}-{THINK[1]:.0f} s, {figures['requests']} requests in {figures['elapsed_s']} s "
        f"({figures['requests_per_s']} req/s), reloads at {figures['reloads_at_s']} s"
    )
    print("p95 by request: " + ", ".join(f"{kind} {ms} ms" for kind, ms in kinds.items()))
    print(f"statuses: {figures['statuses']}; errors {figures['errors']} {figures['error_examples']}")
    print(
        f"answers acknowledged {figures['answers_acknowledged']}, rows {figures['new_rows']}, "
        f"stored twice {figures['stored_twice']}"
    )
    for when, by_part in figures["cores"].items():
        print(f"cores, {when}: " + ", ".join(f"{part} {value}" for part, value in by_part.items()))
    print(f"capacity per 10,000 students at once: {figures['capacity_per_10000_students']}")
    for check, ok in figures["checks"].items():
        print(f"{'PASS' if ok else 'FAIL'}  {check}")
    print(f"in {elapsed:.0f} s")
    return 0 if all(figures["checks"].values()) else 1


def main() -> int:
    signal.signal(signal.SIGTERM, lambda *_args: sys.exit(143))
    started = time.monotonic()
    bench.WORK.mkdir(parents=True, exist_ok=True)
    bench.RESULTS.mkdir(parents=True, exist_ok=True)
    counts = {"read": 0, "web": 0, "api": 0, "burst": STUDENTS, "two": 0, "past": bench.STUDENTS["past"]}
    env = bench.server_env()
    students = bench.prepare(env, counts)
    config = dj_database_url.parse(bench.DATABASE_URL)
    with pgbouncer.running(
        server_host=config["HOST"] or "127.0.0.1",
        server_port=int(config["PORT"] or 5432),
        user=config["USER"],
        password=config["PASSWORD"] or None,
        pool_size=POOL_SIZE,
    ) as bouncer:
        gunicorn_address = f"127.0.0.1:{free_port()}"
        password = f":{config['PASSWORD']}" if config["PASSWORD"] else ""
        # gunicorn's workers from the cores, as deployed.
        site_env = {
            **gunicorn.site_env(env, static_root=bench.PROJECT / "staticfiles", bind=gunicorn_address),
            "DJANGO_SETTINGS_MODULE": "benchmarks.settings",
            "DATABASE_URL": f"postgres://{config['USER']}{password}@{bouncer.host}:{bouncer.port}/{config['NAME']}",
        }
        directory = bench.WORK / "nginx"
        directory.mkdir(exist_ok=True)
        with (
            gunicorn.running(site_env, bench.WORK / "school-gunicorn.log") as server,
            nginx.running(
                directory,
                upstream=gunicorn_address,
                static_root=bench.PROJECT / "staticfiles",
                worker_connections=16384,
            ) as address,
        ):
            host, port = address.split(":")
            bench.step(
                f"nginx {address}, gunicorn {gunicorn_address} (deploy/gunicorn.conf.py), PgBouncer {bouncer.port}"
            )
            _wait_up(host, int(port), students["burst_tokens"][0], server)
            bench.step(f"{STUDENTS} students within {SPREAD:.0f} s, 8 answers each, reloads at {RELOADS} s")
            tokens = students["burst_tokens"]
            rows_before = bench._rows_of_tokens(tokens)
            figures = asyncio.run(the_school(students, (host, int(port)), server))
    figures = checked(figures, tokens, len(students["questions"]), rows_before)
    figures["machine"] = {"cores": os.cpu_count(), "pgbouncer_pool": POOL_SIZE}
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    (bench.RESULTS / f"school-{stamp}.json").write_text(json.dumps(figures, indent=2) + "\n")
    return report(figures, time.monotonic() - started)


def _wait_up(host: str, port: int, token: str, gunicorn) -> None:
    wait_ready(
        lambda: asyncio.run(request(host, port, "GET", "/api/v1/quizzes/", token))[0] == 200,
        what="the site did not come up",
        within=60,
        process=gunicorn,
        log=(bench.WORK / "school-gunicorn.log").read_text,
    )


if __name__ == "__main__":
    sys.exit(main())
