"""Debian's nginx with deploy/nginx/lms.conf, rendered, in a directory of its own.

``render(...)`` fills the site file's ``${LMS_...}`` placeholders as the deployment guide's
envsubst does; ``config(directory, site)`` wraps it in the minimal nginx.conf that
``nginx -p DIR -c nginx.conf`` runs (temporary paths inside DIR, workers as root, who owns the test directories).
"""

import shutil
import string
from pathlib import Path

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


def config(directory: Path, site: str) -> str:
    temp = directory / "temp"
    temp.mkdir(exist_ok=True)
    paths = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    return "\n".join(
        [
            "user root root;",  # the pytest temp directory is open to root only
            "worker_processes 1;",
            f"pid {directory / 'nginx.pid'};",
            f"error_log {directory / 'error.log'} warn;",
            "events { worker_connections 512; }",
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
