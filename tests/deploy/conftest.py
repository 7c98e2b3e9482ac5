"""nginx (deploy/nginx/lms.conf, rendered) in front of gunicorn (deploy/gunicorn.conf.py) on the
race tests' throwaway database, static files collected into a directory of the session.

``deployed`` yields a LiveApi whose url is nginx's; ``live_api`` is it, for the race tests.
"""

import signal
import subprocess
import sys

import pytest

from tests.concurrency.conftest import LiveApi, _free_port, _manage, race_database  # noqa: F401
from tests.deploy import nginx
from tests.processes import stop

PROJECT_DIR = nginx.PROJECT_DIR


@pytest.fixture(scope="session")
def deployed(race_database, tmp_path_factory):  # noqa: F811
    if nginx.executable() is None:
        pytest.skip("nginx is not installed (Debian's package nginx)")
    directory = tmp_path_factory.mktemp("deploy")
    static_root = directory / "static"
    gunicorn_port, nginx_port = _free_port(), _free_port()
    env = {
        **race_database.env,
        "DJANGO_SETTINGS_MODULE": "tests.deploy.live_settings",
        "LMS_STATIC_ROOT": str(static_root),
        "DJANGO_NUM_PROXIES": "1",
        "GUNICORN_BIND": f"127.0.0.1:{gunicorn_port}",
        "GUNICORN_WORKERS": "4",
    }
    _manage(env, "collectstatic", "--noinput", "-v0")
    log_path = directory / "gunicorn.log"
    with log_path.open("wb") as log:
        gunicorn = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", str(PROJECT_DIR / "deploy" / "gunicorn.conf.py")],
            cwd=PROJECT_DIR,
            env=env,
            stdout=log,
            stderr=log,
        )
    site = nginx.render(
        server_name="127.0.0.1",
        listen=f"127.0.0.1:{nginx_port}",
        upstream=f"127.0.0.1:{gunicorn_port}",
        static_root=static_root,
    )
    (directory / "nginx.conf").write_text(nginx.config(directory, site))
    proxy = subprocess.Popen(
        [nginx.executable(), "-p", str(directory), "-c", "nginx.conf", "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        server = LiveApi(
            url=f"http://127.0.0.1:{nginx_port}", database=race_database, process=gunicorn, log_path=log_path
        )
        probe = next(iter(server.tokens.values()))
        if server.wait_healthy(probe, within=60) is None:
            raise RuntimeError(f"the stack did not come up:\n{server.log_since(0)[-4000:]}")
        server.static_root = static_root
        server.gunicorn_url = f"http://127.0.0.1:{gunicorn_port}"
        yield server
    finally:
        stop(proxy, signal.SIGQUIT)
        stop(gunicorn, signal.SIGTERM)
