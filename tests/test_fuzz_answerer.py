"""The fuzz run's answering class (scripts/fuzz_answerer.py) fails the run on a 5xx.

Against a stand-in server: a class that answered happily through a server that erred
would hide exactly what the fuzz run is there to find.
"""

import json
import runpy
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytestmark = pytest.mark.database_independent

answerer = runpy.run_path(str(Path(__file__).parents[1] / "scripts" / "fuzz_answerer.py"), run_name="fuzz_answerer")

ATTEMPT = {"id": 7, "questions": [{"id": 1, "choices": [{"id": 10}, {"id": 11}], "feedback": None}]}


def stand_in(finish_status, stop_file):
    """A server with one quiz and one attempt whose finish answers ``finish_status``;
    it asks the class to stop once a finish has been called."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def reply(self, status, body):
            payload = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self):
            if self.path == "/api/v1/quizzes/":
                self.reply(200, {"results": [{"slug": "q"}]})
            else:
                self.reply(200, ATTEMPT if self.path.startswith("/api/v1/attempts/") else {})

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path.endswith("/finish/"):
                stop_file.touch()
                self.reply(finish_status, {"detail": "x"})
            elif self.path.endswith("/attempts/") and self.path.startswith("/api/v1/quizzes/"):
                self.reply(201, ATTEMPT)
            else:
                self.reply(201, {})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.mark.parametrize(("finish_status", "exit_status"), [(200, 0), (500, 1)])
def test_the_class_fails_the_run_on_a_server_error(tmp_path, capsys, finish_status, exit_status):
    stop = tmp_path / "stop"
    tokens = tmp_path / "tokens"
    tokens.write_text("a\nb\n")
    server = stand_in(finish_status, stop)
    try:
        status = answerer["main"](f"http://127.0.0.1:{server.server_port}", str(tokens), str(stop))
    finally:
        server.shutdown()
    out = capsys.readouterr().out
    assert status == exit_status
    assert "answerer:" in out
    assert ("answerer failure: POST /api/v1/attempts/7/finish/ -> 500" in out) is bool(exit_status)
