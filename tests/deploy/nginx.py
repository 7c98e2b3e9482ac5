"""Debian's nginx with deploy/nginx/lms.conf, rendered, in a directory of its own.

``render(...)`` fills the site file's ``${LMS_...}`` placeholders as the deployment guide's
envsubst does; ``config(directory, site)`` wraps it in the minimal nginx.conf that
``nginx -p DIR -c nginx.conf`` runs (temporary paths inside DIR, workers as root, who owns the test
directories); ``running(...)`` serves the site so for a ``with`` block, on a free port.
"""

import shutil
import signal
import socket
import string
import subprocess
from contextlib import contextmanager
from pathlib import Path

from tests.processes import free_port, stop, wait_ready

PROJECT_DIR = Path(__file__).resolve().parent.parent.parent
SITE = PROJECT_DIR / "deploy" / "nginx" / "lms.conf"


def executable() -> str | None:
    return shutil.which("nginx") or (shutil.which("nginx", path="/usr/sbin"))


class _Placeholders(string.Template):
    # Only ${LMS_...}, as envsubst is told: nginx's own $variables and a regex's $ stay as they are.
    pattern = r"\$(?:(?P<escaped>\$\$)|\{(?P<braced>LMS_[A-Z_]+)\}|(?P<named>(?!))|(?P<invalid>(?!)))"


def render(*, server_name: str, listen: str, upstream: str, static_root: Path) -> str:
    # substitute() fails on a placeholder left unfilled.
    return _Placeholders(SITE.read_text()).substitute(
        LMS_SERVER_NAME=server_name, LMS_LISTEN=listen, LMS_UPSTREAM=upstream, LMS_STATIC_ROOT=str(static_root)
    )


def config(directory: Path, site: str, *, worker_connections: int = 512) -> str:
    temp = directory / "temp"
    temp.mkdir(exist_ok=True)
    paths = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    return "\n".join(
        [
            "user root root;",  # the pytest temp directory is open to root only
            "worker_processes 1;",
            f"pid {directory / 'nginx.pid'};",
            f"error_log {directory / 'error.log'} warn;",
            f"events {{ worker_connections {worker_connections}; }}",
            "http {",
            "    include /etc/nginx/mime.types;",
            "    default_type application/octet-stream;",
            f"    access_log {directory / 'access.log'};",
            *(f"    {name}_temp_path {temp / name};" for name in paths),
            site,
            "}",
            "",
        ]
    )


@contextmanager
def running(directory: Path, *, upstream: str, static_root: Path, worker_connections: int = 512):
    """nginx with the site in front of ``upstream`` (host:port), for the block; its ``host:port``."""
    port = free_port()
    site = render(server_name="127.0.0.1", listen=f"127.0.0.1:{port}", upstream=upstream, static_root=static_root)
    (directory / "nginx.conf").write_text(config(directory, site, worker_connections=worker_connections))
    with (directory / "stderr.log").open("wb") as stderr:
        process = subprocess.Popen(
            [executable(), "-p", str(directory), "-c", "nginx.conf", "-g", "daemon off;"],
            stdout=stderr,
            stderr=stderr,
        )
    try:
        wait_ready(
            lambda: socket.create_connection(("127.0.0.1", port), timeout=1).close() is None,
            what="nginx did not listen",
            within=10,
            process=process,
            log=lambda: (directory / "stderr.log").read_text(errors="replace"),
        )
        yield f"127.0.0.1:{port}"
    finally:
        stop(process, signal.SIGQUIT)  # graceful: the requests in flight end first
