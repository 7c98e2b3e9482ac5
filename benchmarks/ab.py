"""``make bench-ab REV=<revision> [MODE=api]``: a change measured under load against a revision.

A change that saves a tenth of a millisecond in-process can vanish behind
gunicorn, and this machine's speed moves by up to 30% within a minute, more
than most changes. So both are served at once, on the same fresh data (make
bench's, ``benchmarks/run.py: prepare``): gunicorn from the working tree on
``BENCH_PORT`` and from ``REV`` (a git worktree) on the next port, with make
bench's settings. Each round drives, on each server in turn (the order
alternating), 2 s of the ceiling then 2 s of MODE (page, dashboard, web or
api; the answers never repeat a pair); after each round it prints, per
server, the ratio to its own ceiling and the CPU per request so far, the
slices of both pooled as in make bench (``combine``). ``BENCH_AB_ROUNDS``
rounds (default 8). The revision's dependencies must be the working tree's
(one virtualenv serves both).

``BENCH_AB_REV_ENV="NAME=value ..."`` adds settings to the revision's server
only: with ``REV=HEAD``, a setting measured against the default, e.g.
``make bench-ab REV=HEAD MODE=api BENCH_AB_REV_ENV=DJANGO_API_THROTTLE_LOCAL_SHARE=0``.
"""

import os
import shlex
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks import run as bench

ROUNDS = int(os.environ.get("BENCH_AB_ROUNDS", "8"))
SLICE_SECONDS = 2


def main(argv: list[str]) -> int:
    modes = [mode for mode, _label in bench.WORKLOADS]
    if not argv or len(argv) > 2 or (len(argv) == 2 and argv[1] not in modes):
        print(f"usage: python -m benchmarks.ab REVISION [{'|'.join(modes)}]", file=sys.stderr)
        return 2
    revision, mode = argv[0], (argv[1] if len(argv) == 2 else "api")
    signal.signal(signal.SIGTERM, lambda *_args: sys.exit(143))
    bench.WORK.mkdir(parents=True, exist_ok=True)
    wrk_path = bench.ensure_wrk()
    env = bench.server_env()
    bench.prepare(env)
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "revision"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(tree), revision], cwd=bench.PROJECT, check=True)
        servers = {}
        try:
            revision_env = {**env, **extra_env(os.environ.get("BENCH_AB_REV_ENV", ""))}
            if not (tree / "benchmarks" / "settings.py").exists():
                revision_env["DJANGO_SETTINGS_MODULE"] = "lms.settings"  # it mounts the ceiling itself
            # The revision's pages need its own static files' manifest.
            subprocess.run(
                [bench.PY, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=tree, env=revision_env, check=True
            )
            servers["working tree"] = (bench.start_server(bench.PORT, env), bench.PORT)
            servers[revision] = (bench.start_server(bench.PORT + 1, revision_env, cwd=tree), bench.PORT + 1)
            compare(wrk_path, servers, mode)
        finally:
            for process, _port in servers.values():
                bench.stop_server(process)
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=bench.PROJECT, check=False)
    return 0


def extra_env(text: str) -> dict[str, str]:
    """``NAME=value`` words (shell quoting) as a dict; anything else is refused."""
    found = {}
    for word in shlex.split(text):
        name, sep, value = word.partition("=")
        if not sep or not name.isidentifier():
            sys.exit(f"BENCH_AB_REV_ENV: expected NAME=value words, got {word!r}")
        found[name] = value
    return found


def compare(wrk_path: str, servers: dict, mode: str) -> None:
    bench.step(f"{mode} against the ceiling, {ROUNDS} rounds of {SLICE_SECONDS}-s slices on each server in turn")
    slices = {name: {"ceiling": [], mode: []} for name in servers}
    skip = [0] * bench.WRK_THREADS  # one sequence of answer pairs for both servers: none answered twice
    for _process, port in servers.values():
        bench.wrk(wrk_path, "page", 1, port=port)  # warm-up
    names = list(servers)
    for number in range(ROUNDS):
        for name in names if number % 2 == 0 else names[::-1]:
            process, port = servers[name]
            slices[name]["ceiling"].append(bench.wrk_slice(wrk_path, process, "ceiling", SLICE_SECONDS, port=port))
            result = bench.wrk_slice(wrk_path, process, mode, SLICE_SECONDS, skip, port=port)
            skip = bench.skip_past(skip, result)
            if result["wraps"]:
                print("   the fresh answer pairs ran out: answers repeat from here on (fewer rounds)", flush=True)
            slices[name][mode].append(result)
        figures = []
        for name in names:
            ceiling = bench.combine(slices[name]["ceiling"], "ceiling")
            workload = bench.combine(slices[name][mode], mode)
            figures.append(
                f"{name}: {workload['rps'] / ceiling['rps']:.3f} ({workload['rps']:.0f} / {ceiling['rps']:.0f} req/s, "
                f"CPU {workload['app_cpu_ms']} + {workload['db_cpu_ms']} ms)"
            )
        print(f"round {number + 1}: " + "; ".join(figures), flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
