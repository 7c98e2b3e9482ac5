"""A real learning record store for the tests: ralph's LRS on its file backend, on loopback.

ralph runs from a virtualenv of its own, ``.venv-lrs`` (``make lrs-venv``; .ci/run makes it),
as it pins its own fastapi and uvicorn; nothing is downloaded here. Without that virtualenv the
LRS tests are skipped with the reason, except in CI (``CI`` set), where they fail instead: CI
must run them.

``Lrs`` keeps its data directory (a temporary one) across ``stop()`` and ``start()``, on the
same port: an outage the site lives through. It is started through ``ralph_fs.py`` (the
``ralph`` command with the file backend able to take more than one POST: see there).
"""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import requests

from tests.processes import free_port as _free_port

PROJECT_DIR = Path(__file__).resolve().parents[2]
LRS_VENV = Path(os.environ.get("LMS_LRS_VENV", PROJECT_DIR / ".venv-lrs"))
LRS_PYTHON = LRS_VENV / "bin" / "python"
LAUNCHER = Path(__file__).resolve().parent / "ralph_fs.py"
STARTUP_TIMEOUT = 60.0
USERNAME, PASSWORD = "lms", "lrs-test-password"
STATEMENTS_FILE = "fs_lrs.jsonl"


def unavailable() -> str | None:
    """Why the test LRS cannot run here, or None."""
    if not (LRS_VENV / ".installed").exists():
        return f"the test LRS's virtualenv {LRS_VENV} is missing or incomplete: run `make lrs-venv`"
    return None


def require_lrs() -> None:
    reason = unavailable()
    if reason and os.environ.get("CI"):
        pytest.fail(reason)
    if reason:
        pytest.skip(reason)


class Lrs:
    def __init__(self):
        self.directory = Path(tempfile.mkdtemp(prefix=f"lms-lrs-{os.getpid()}-"))
        self.data = self.directory / "data"
        self.data.mkdir()
        self.port = _free_port()
        self.process: subprocess.Popen | None = None
        self.env = {
            **os.environ,
            # Needed by every ralph command, ``ralph auth`` included.
            "RALPH_RUNSERVER_BACKEND": "fs",
            "RALPH_APP_DIR": str(self.directory),
            "RALPH_AUTH_FILE": str(self.directory / "auth.json"),
            "RALPH_BACKENDS__LRS__FS__DEFAULT_DIRECTORY_PATH": str(self.data),
            "RALPH_BACKENDS__LRS__FS__DEFAULT_LRS_FILE": STATEMENTS_FILE,
        }
        self._ralph(["auth", "-u", USERNAME, "-p", PASSWORD, "-s", "all", "-A", USERNAME, "http://lms.test", "-w"])

    @property
    def endpoint(self) -> str:
        """The LRS's xAPI base, as ``XAPI_ENDPOINT`` names it."""
        return f"http://127.0.0.1:{self.port}/xAPI/"

    def _ralph(self, arguments: list[str]) -> None:
        subprocess.run(
            [str(LRS_PYTHON), str(LAUNCHER), *arguments],
            cwd=self.directory, env=self.env, check=True, capture_output=True, timeout=120,
        )  # fmt: skip

    def start(self) -> None:
        command = [str(LRS_PYTHON), str(LAUNCHER), "runserver", "-b", "fs", "-h", "127.0.0.1", "-p", str(self.port)]
        with (self.directory / "ralph.log").open("ab") as log:
            # A session of its own: ralph serves from a child of uvicorn's reloader; both stop together.
            self.process = subprocess.Popen(
                command, cwd=self.directory, env=self.env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                start_new_session=True,
            )  # fmt: skip
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"ralph exited with {self.process.returncode}:\n{self.log()}")
            try:
                if self.get("statements", timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"ralph did not answer:\n{self.log()}")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=5)
        self.process = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)

    def get(self, path: str, **options) -> requests.Response:
        return requests.get(
            self.endpoint + path,
            auth=(USERNAME, PASSWORD),
            headers={"X-Experience-API-Version": "1.0.3"},
            timeout=options.pop("timeout", 10),
            **options,
        )

    def stored(self) -> list[dict]:
        """Every statement the LRS stored, in the order it stored them, duplicates included (its
        file, read directly: GET answers a page of distinct statements)."""
        path = self.data / STATEMENTS_FILE
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def clear(self) -> None:
        (self.data / STATEMENTS_FILE).unlink(missing_ok=True)

    def log(self) -> str:
        path = self.directory / "ralph.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""
