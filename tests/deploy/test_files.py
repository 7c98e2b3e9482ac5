"""deploy/'s files load as their programs read them: nginx -t, gunicorn's config, systemd's units."""

import configparser
import os
import shlex
import subprocess
import sys
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from tests.deploy import nginx
from tests.processes import free_port

pytestmark = pytest.mark.database_independent

PROJECT_DIR = nginx.PROJECT_DIR
GUNICORN_CONF = PROJECT_DIR / "deploy" / "gunicorn.conf.py"
UNITS = sorted((PROJECT_DIR / "deploy" / "systemd").glob("*.service"))
WAIT_HEALTHY = PROJECT_DIR / "deploy" / "wait_healthy.py"


def gunicorn_settings(**env) -> dict[str, str]:
    result = subprocess.run(
        [sys.executable, "-m", "gunicorn", "--print-config", "-c", str(GUNICORN_CONF)],
        cwd=PROJECT_DIR,
        env={**os.environ, "DJANGO_SECRET_KEY": "deploy-test-" + "x" * 50, "DJANGO_DEBUG": "0", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return {
        name: value.strip()
        for name, _, value in (line.partition("=") for line in result.stdout.splitlines())
        for name in [name.strip()]
    }


def test_gunicorn_config_defaults_follow_the_cores():
    settings = gunicorn_settings()
    assert settings["workers"] == str(2 * os.cpu_count())
    assert settings["worker_class"] == "gthread" and settings["threads"] == "2"
    assert settings["control_socket_disable"] == "True"
    assert int(settings["max_requests"]) > 0 and int(settings["max_requests_jitter"]) > 0
    assert int(settings["graceful_timeout"]) < int(settings["timeout"])


def test_gunicorn_config_values_follow_the_environment():
    settings = gunicorn_settings(
        GUNICORN_WORKERS="3", GUNICORN_BIND="unix:/run/lms/gunicorn.sock", GUNICORN_TIMEOUT="12"
    )
    assert settings["workers"] == "3"
    assert settings["bind"] == "['unix:/run/lms/gunicorn.sock']"
    assert settings["timeout"] == "12"


def test_gunicorn_logs_to_the_journal_with_each_requests_id():
    settings = gunicorn_settings()
    assert settings["accesslog"] == "-" and settings["errorlog"] == "-"
    assert settings["access_log_format"].endswith(" %({x-request-id}o)s")
    assert settings["loglevel"] == "info"
    assert gunicorn_settings(DJANGO_LOG_LEVEL="WARNING")["loglevel"] == "warning"
    assert gunicorn_settings(GUNICORN_ACCESSLOG="")["accesslog"] == "None"


def test_nginx_accepts_the_rendered_site(tmp_path):
    if nginx.executable() is None:
        pytest.skip("nginx is not installed (Debian's package nginx)")
    site = nginx.render(server_name="127.0.0.1", listen="127.0.0.1:8", upstream="127.0.0.1:9", static_root=tmp_path)
    (tmp_path / "nginx.conf").write_text(nginx.config(tmp_path, site))
    result = subprocess.run(
        [nginx.executable(), "-t", "-p", str(tmp_path), "-c", "nginx.conf"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_the_rendered_site_leaves_no_placeholder(tmp_path):
    site = nginx.render(server_name="quiz.example.org", listen="80", upstream="127.0.0.1:8000", static_root=tmp_path)
    assert "${" not in site
    assert "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;" in site
    assert "proxy_set_header X-Forwarded-Proto $scheme;" in site
    assert "proxy_set_header X-Request-ID $request_id;" in site


@pytest.mark.parametrize("unit", UNITS, ids=lambda path: path.name)
def test_systemd_units_run_files_of_the_project(unit):
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str
    parser.read(unit)
    service = parser["Service"]
    assert service["User"] == "lms" and service["EnvironmentFile"] == "/etc/lms/env"
    assert service["WorkingDirectory"] == "/srv/lms"
    command = shlex.split(service["ExecStart"])
    for word in [*command[1:], *shlex.split(service.get("ExecStartPost", ""))]:
        if word.startswith("/srv/lms/"):
            assert (PROJECT_DIR / word.removeprefix("/srv/lms/")).exists(), word
    assert command[0].startswith("/srv/lms/.venv/bin/")
    if unit.name == "lms-gunicorn.service":
        assert service["ExecReload"] == "/bin/kill -HUP $MAINPID" and service["Type"] == "notify"
        assert shlex.split(service["ExecStartPost"])[1] == "/srv/lms/deploy/wait_healthy.py"
    else:
        assert command[1:] == ["manage.py", "send_outbox"] and service["Restart"] == "always"


@contextmanager
def upstream():
    """A stand-in for gunicorn on a free port, answering 200 to everything; the (path, Host) it was asked."""
    asked = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            asked.append((self.path, self.headers["Host"]))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}", asked
    finally:
        server.shutdown()
        server.server_close()


def test_nginx_passes_the_health_checks_on_whatever_the_host_and_leaves_them_out_of_its_log(tmp_path):
    if nginx.executable() is None:
        pytest.skip("nginx is not installed (Debian's package nginx)")
    with upstream() as (address, asked), nginx.running(tmp_path, upstream=address, static_root=tmp_path) as at:
        for path in ("/healthz", "/readyz", "/en/"):
            response = requests.get(f"http://{at}{path}", headers={"Host": "10.0.0.7"}, timeout=10)
            assert response.status_code == 200, path
    assert asked == [("/healthz", "10.0.0.7"), ("/readyz", "10.0.0.7"), ("/en/", "10.0.0.7")]
    logged = (tmp_path / "access.log").read_text()
    assert "GET /en/ " in logged and "healthz" not in logged and "readyz" not in logged


def wait_healthy(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(WAIT_HEALTHY), *args],
        cwd=PROJECT_DIR,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_wait_healthy_ends_once_healthz_answers():
    with upstream() as (address, asked):
        result = wait_healthy("--bind", address, "--within", "10")
    assert result.returncode == 0, result.stderr
    assert asked[0][0] == "/healthz"


def test_wait_healthy_fails_when_nothing_answers_in_time():
    # The address from GUNICORN_BIND, as the unit's environment gives it (the first of several).
    nowhere = f"127.0.0.1:{free_port()}"
    result = wait_healthy("--within", "0.5", GUNICORN_BIND=f"{nowhere},unix:/nonexistent.sock")
    assert result.returncode == 1
    assert f"{nowhere}/healthz: no 200 within 0.5 s" in result.stderr
