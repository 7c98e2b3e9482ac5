"""gunicorn as deploy/ runs it: deploy/gunicorn.conf.py, settings from the environment.

``site_env(...)`` is the environment of the deployed site, ``running(env, log_path)`` the server
for a ``with`` block. No Django here: the school benchmark imports it before any settings.
"""

import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

from tests.processes import stop

PROJECT_DIR = Path(__file__).resolve().parent.parent.parent
CONF = PROJECT_DIR / "deploy" / "gunicorn.conf.py"


@contextmanager
def running(env: dict, log_path: Path):
    """gunicorn with deploy/gunicorn.conf.py (GUNICORN_BIND and the rest from ``env``), its log in
    ``log_path``, for the block; stopped gracefully."""
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", str(CONF)],
            cwd=PROJECT_DIR,
            env=env,
            stdout=log,
            stderr=log,
        )
    try:
        yield process
    finally:
        stop(process, signal.SIGTERM)


def site_env(database_env: dict, *, static_root: Path, bind: str, workers: int | None = None) -> dict:
    """The environment of the deployed site: production settings behind one proxy, the static files
    in ``static_root``, gunicorn on ``bind`` with ``workers`` (by default from the cores)."""
    env = {
        **database_env,
        "DJANGO_SETTINGS_MODULE": "tests.deploy.live_settings",
        "LMS_STATIC_ROOT": str(static_root),
        "DJANGO_NUM_PROXIES": "1",
        "GUNICORN_BIND": bind,
    }
    if workers:
        env["GUNICORN_WORKERS"] = str(workers)
    return env
