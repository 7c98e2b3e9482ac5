"""What the tests that start servers as processes share: a free port, the user a server that
refuses root runs as, and stopping a server."""

import os
import pwd
import socket
import subprocess

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
