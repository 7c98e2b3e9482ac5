"""deploy/'s files load as their programs read them: nginx -t, gunicorn's config, systemd's units."""

import configparser
import os
import shlex
import subprocess
import sys

import pytest

from tests.deploy import nginx

PROJECT_DIR = nginx.PROJECT_DIR
GUNICORN_CONF = PROJECT_DIR / "deploy" / "gunicorn.conf.py"
UNITS = sorted((PROJECT_DIR / "deploy" / "systemd").glob("*.service"))


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


@pytest.mark.parametrize("unit", UNITS, ids=lambda path: path.name)
def test_systemd_units_run_files_of_the_project(unit):
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str
    parser.read(unit)
    service = parser["Service"]
    assert service["User"] == "lms" and service["EnvironmentFile"] == "/etc/lms/env"
    assert service["WorkingDirectory"] == "/srv/lms"
    command = shlex.split(service["ExecStart"])
    for word in command[1:]:
        if word.startswith("/srv/lms/"):
            assert (PROJECT_DIR / word.removeprefix("/srv/lms/")).exists(), word
    assert command[0].startswith("/srv/lms/.venv/bin/")
    if unit.name == "lms-gunicorn.service":
        assert service["ExecReload"] == "/bin/kill -HUP $MAINPID" and service["Type"] == "notify"
    else:
        assert command[1:] == ["manage.py", "send_outbox"] and service["Restart"] == "always"
