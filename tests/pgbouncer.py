"""A real PgBouncer in transaction pooling mode, for the tests that go through one.

``running(host, port, user, password)`` writes a pgbouncer.ini and a userlist into a
directory of its own, starts Debian's ``/usr/sbin/pgbouncer`` in front of the PostgreSQL
server at ``host:port`` on a free port of 127.0.0.1, waits until it accepts connections,
and stops it at the end. Everything not written here is PgBouncer's default (1.18:
``server_reset_query`` is not run in transaction mode, no protocol-level prepared
statements are tracked). The pool is small (``POOL_SIZE`` server connections per
database and user) so that the clients of a test really share server connections.

PgBouncer refuses to run as root: as root it is started with ``-u postgres`` (it
switches to that user before it opens its files, so the directory belongs to it).
``unavailable()`` says why it cannot run here, or None.
"""

import os
import pwd
import shutil
import signal
import subprocess
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg

from tests.processes import RUN_AS, no_user_to_run_as, stop, wait_ready
from tests.processes import free_port as _free_port

DEBIAN_PATH = "/usr/sbin/pgbouncer"
POOL_SIZE = 5
MAX_CLIENTS = 300
STARTUP_TIMEOUT = 15.0


def executable() -> str | None:
    if os.access(DEBIAN_PATH, os.X_OK):
        return DEBIAN_PATH
    return shutil.which("pgbouncer")


def unavailable() -> str | None:
    """Why no PgBouncer can be started here, or None."""
    if executable() is None:
        return "pgbouncer is not installed (Debian's package pgbouncer; .ci/run installs it)"
    return no_user_to_run_as("pgbouncer")


@dataclass
class PgBouncer:
    host: str
    port: int
    directory: Path
    process: subprocess.Popen
    user: str
    password: str | None

    def connect(self, dbname: str, **options) -> psycopg.Connection:
        """A psycopg connection through PgBouncer (autocommit unless told otherwise)."""
        options.setdefault("autocommit", True)
        return psycopg.connect(
            host=self.host, port=self.port, dbname=dbname, user=self.user, password=self.password, **options
        )

    def console(self, command: str) -> list[dict]:
        """A command on PgBouncer's admin console (``SHOW POOLS``...), its rows as dicts."""
        with self.connect("pgbouncer") as console:
            cursor = console.execute(command)  # no parameters: the simple protocol, all the console speaks
            if cursor.description is None:
                return []
            names = [column.name for column in cursor.description]
            return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def show(self, what: str) -> list[dict]:
        """``SHOW <what>`` (POOLS, SERVERS, CLIENTS...), as dicts."""
        return self.console(f"SHOW {what}")

    def disconnect(self, dbname: str) -> None:
        """Close PgBouncer's connections to ``dbname`` (its clients' too), so that it can be dropped;
        new clients are served again at once."""
        self.console(f"KILL {dbname}")
        self.console(f"RESUME {dbname}")

    def log(self) -> str:
        path = self.directory / "pgbouncer.log"
        return path.read_text(errors="replace") if path.exists() else ""


def _config(directory: Path, *, port: int, server_host: str, server_port: int, user: str, pool_size: int) -> str:
    return "\n".join(
        [
            "[databases]",
            f"* = host={server_host} port={server_port}",
            "",
            "[pgbouncer]",
            "pool_mode = transaction",
            "listen_addr = 127.0.0.1",
            f"listen_port = {port}",
            "unix_socket_dir =",
            "auth_type = trust",
            f"auth_file = {directory / 'userlist.txt'}",
            f"admin_users = {user}",
            f"max_client_conn = {MAX_CLIENTS}",
            f"default_pool_size = {pool_size}",
            f"logfile = {directory / 'pgbouncer.log'}",
            f"pidfile = {directory / 'pgbouncer.pid'}",
            "",
        ]
    )


def _quoted(value: str) -> str:
    return '"' + value.replace('"', '""') + '"'


@contextmanager
def running(*, server_host: str, server_port: int, user: str, password: str | None, pool_size: int = POOL_SIZE):
    """A PgBouncer in front of ``server_host:server_port`` for the ``with`` block."""
    reason = unavailable()
    if reason:
        raise RuntimeError(reason)
    directory = Path(tempfile.mkdtemp(prefix=f"lms-pgbouncer-{os.getpid()}-"))
    command = [executable()]
    try:
        port = _free_port()
        (directory / "pgbouncer.ini").write_text(
            _config(
                directory, port=port, server_host=server_host, server_port=server_port, user=user, pool_size=pool_size
            )
        )
        # With auth_type = trust the user must still be listed; the password logs PgBouncer in to the server.
        (directory / "userlist.txt").write_text(f"{_quoted(user)} {_quoted(password or '')}\n")
        if os.geteuid() == 0:
            account = pwd.getpwnam(RUN_AS)
            for path in (directory, *directory.iterdir()):
                os.chown(path, account.pw_uid, account.pw_gid)
            command += ["-u", RUN_AS]
        command.append(str(directory / "pgbouncer.ini"))
        with (directory / "stderr.log").open("wb") as stderr:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=stderr, stderr=stderr)
        bouncer = PgBouncer("127.0.0.1", port, directory, process, user, password)
        try:
            _wait_accepting(bouncer)
            yield bouncer
        finally:
            stop(process, signal.SIGTERM, timeout=10)  # immediate shutdown
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _wait_accepting(bouncer: PgBouncer) -> None:
    def accepting() -> bool:
        with bouncer.connect("postgres", connect_timeout=2) as connection:
            connection.execute("SELECT 1")
        return True

    wait_ready(
        accepting,
        what="pgbouncer did not accept connections",
        within=STARTUP_TIMEOUT,
        errors=(psycopg.OperationalError,),
        process=bouncer.process,
        log=lambda: (bouncer.directory / "stderr.log").read_text(errors="replace") + bouncer.log(),
    )
