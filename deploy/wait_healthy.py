"""Wait until gunicorn serves ``/healthz``: the lms-gunicorn unit's ExecStartPost.

``python deploy/wait_healthy.py [--within SECONDS] [--bind ADDRESS] [--path PATH]``

ADDRESS is where gunicorn listens: by default the first of ``GUNICORN_BIND`` (as
deploy/gunicorn.conf.py reads it, ``127.0.0.1:8000`` when unset), ``HOST:PORT`` or
``unix:PATH``; an address that listens on every interface is asked on the loopback. Exit 0 as
soon as PATH (``/healthz``) answers 200; 1 if it has not within SECONDS (60), which fails the
unit's start: gunicorn tells systemd it is ready before its workers have loaded the site.
Standard library only: it runs before anything else is known to work.
"""

import argparse
import http.client
import os
import socket
import sys
import time

DEFAULT_BIND = "127.0.0.1:8000"
WILDCARDS = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float):
        super().__init__("localhost", timeout=timeout)
        self.socket_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.socket_path)


def connection(bind: str, timeout: float) -> http.client.HTTPConnection:
    if bind.startswith("unix:"):
        return UnixConnection(bind.removeprefix("unix:"), timeout)
    host, _, port = bind.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    return http.client.HTTPConnection(WILDCARDS.get(host, host), int(port), timeout=timeout)


def answer(bind: str, path: str, timeout: float) -> int | str:
    """The status of ``GET path``, or why there was none."""
    client = connection(bind, timeout)
    try:
        client.request("GET", path, headers={"Host": "localhost"})
        return client.getresponse().status
    except (OSError, http.client.HTTPException) as error:
        return type(error).__name__
    finally:
        client.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--within", type=float, default=60.0, help="seconds to wait at most (60)")
    parser.add_argument("--bind", default=None, help="gunicorn's address (the first of GUNICORN_BIND)")
    parser.add_argument("--path", default="/healthz")
    args = parser.parse_args(argv)
    bind = args.bind or (os.environ.get("GUNICORN_BIND") or DEFAULT_BIND).split(",")[0].strip()
    deadline = time.monotonic() + args.within
    while True:
        status = answer(bind, args.path, timeout=max(0.1, min(2.0, deadline - time.monotonic())))
        if status == 200:
            return 0
        if time.monotonic() >= deadline:
            print(f"{bind}{args.path}: no 200 within {args.within:g} s (last: {status})", file=sys.stderr)
            return 1
        time.sleep(0.25)


if __name__ == "__main__":
    sys.exit(main())
