"""What the tests that start servers as processes share: a free port, the user a server that
refuses root runs as, waiting until a server is ready, and stopping it."""

import os
import pwd
import socket
import subprocess
import time
from collections.abc import Callable

RUN_AS = "postgres"  # PostgreSQL and PgBouncer refuse to run as root: they run as this user then


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def no_user_to_run_as(program: str) -> str | None:
    """Why ``program``, which refuses root, cannot be started here as root, or None."""
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(RUN_AS)
        except KeyError:
            return f"{program} refuses to run as root and there is no {RUN_AS!r} user to run it as"
    return None


def stop(process: subprocess.Popen, signum: int, timeout: float = 15) -> None:
    """Send ``signum``; kill the process if it has not ended within ``timeout`` seconds."""
    if process.poll() is None:
        process.send_signal(signum)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def wait_ready(
    ready: Callable[[], bool],
    *,
    what: str,
    within: float,
    errors: tuple[type[BaseException], ...] = (OSError,),
    process: subprocess.Popen | None = None,
    log: Callable[[], str] = lambda: "",
) -> None:
    """Poll ``ready()`` every 50 ms until it is true (one of ``errors`` counts as not yet); raise
    RuntimeError, with the end of ``log()``, once ``process`` has exited or ``within`` s have passed."""
    deadline = time.monotonic() + within
    while True:
        try:
            if ready():
                return
        except errors:
            pass
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{what}: it exited with {process.returncode}:\n{log()[-4000:]}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} within {within:.0f} s:\n{log()[-4000:]}")
        time.sleep(0.05)
