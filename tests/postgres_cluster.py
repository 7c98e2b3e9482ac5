"""A throwaway PostgreSQL 15 primary and its streaming replica, for the tests that need a real one.

``primary_and_replica()`` runs ``initdb`` for a primary in a directory of its own (fsync off: the
data is thrown away), starts it on a free port of 127.0.0.1 with its unix sockets in that
directory, makes a replica of it with ``pg_basebackup -R`` (standby.signal and primary_conninfo),
starts that on another free port, waits until both accept connections and the primary reports the
replica as streaming, yields a ``Cluster``, and at the end stops both and removes what it made.
Authentication is ``trust`` for every local and loopback connection, replication included.

PostgreSQL refuses to run as root: as root every server program runs as the ``postgres`` user,
which then owns the directories (a ``directory`` passed in must be reachable by that user).
``unavailable()`` says why no cluster can be started here, or None.
"""

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import sql

from tests.processes import RUN_AS, no_user_to_run_as, wait_ready
from tests.processes import free_port as _free_port

BIN = Path("/usr/lib/postgresql/15/bin")
PROGRAMS = ("initdb", "pg_ctl", "pg_basebackup", "postgres")
USER = "postgres"  # the superuser initdb makes
STARTUP_TIMEOUT = 30.0
SETTINGS = {
    "listen_addresses": "'127.0.0.1'",
    "wal_level": "replica",
    "max_wal_senders": "5",
    "hot_standby": "on",
    "fsync": "off",
    "full_page_writes": "off",
    "max_connections": "60",
    "shared_buffers": "'32MB'",
    "log_min_messages": "warning",
}
HBA = """\
local all all trust
local replication all trust
host all all 127.0.0.1/32 trust
host replication all 127.0.0.1/32 trust
"""


def unavailable() -> str | None:
    """Why no primary and replica can be started here, or None."""
    missing = [name for name in PROGRAMS if not os.access(BIN / name, os.X_OK)]
    if missing:
        return f"PostgreSQL 15's programs are missing from {BIN}: {', '.join(missing)}"
    return no_user_to_run_as("PostgreSQL")


@dataclass
class Server:
    host: str
    port: int
    directory: Path  # the data directory

    def url(self, dbname: str) -> str:
        return f"postgres://{USER}@{self.host}:{self.port}/{dbname}"

    def connect(self, dbname: str = "postgres", **options) -> psycopg.Connection:
        """A psycopg connection to this server (autocommit unless told otherwise)."""
        options.setdefault("autocommit", True)
        options.setdefault("connect_timeout", 5)
        return psycopg.connect(host=self.host, port=self.port, dbname=dbname, user=USER, **options)

    def log(self) -> str:
        path = self.directory.parent / f"{self.directory.name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def scalar(self, sql: str, params: tuple = ()):
        with self.connect() as connection:
            return connection.execute(sql, params).fetchone()[0]


@dataclass
class Cluster:
    primary: Server
    replica: Server

    def pause_replay(self) -> None:
        """Stop applying the primary's changes on the replica (it keeps receiving them)."""
        self.replica.scalar("SELECT pg_wal_replay_pause()")
        _wait(
            lambda: self.replica.scalar("SELECT pg_get_wal_replay_pause_state()") == "paused",
            "the replica did not pause its replay",
            self.replica,
        )

    def resume_replay(self) -> None:
        self.replica.scalar("SELECT pg_wal_replay_resume()")

    def wait_replayed(self, timeout: float = 10.0) -> None:
        """Wait until the replica has applied everything the primary has written so far."""
        target = self.primary.scalar("SELECT pg_current_wal_lsn()::text")
        _wait(
            lambda: self.replica.scalar("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (target,)),
            f"the replica did not replay up to {target}",
            self.replica,
            timeout=timeout,
        )

    def stop_replica(self) -> None:
        """Stop the replica at once (as if its machine went away); the primary keeps running."""
        _stop(self.replica, self.replica.directory.parent)

    def start_replica(self) -> None:
        """Start the replica again after ``stop_replica``, once it streams from the primary again."""
        _start(self.replica, self.replica.directory.parent)
        _wait_streaming(self.primary, self.replica)

    def stop_primary(self) -> None:
        """Stop the primary at once (as if it crashed); the replica keeps running, and retrying."""
        _stop(self.primary, self.primary.directory.parent)

    def start_primary(self) -> None:
        """Start the primary again after ``stop_primary``, once it accepts connections."""
        _start(self.primary, self.primary.directory.parent)

    def create_database(self, name: str) -> None:
        """A new database on the primary, once it is on the replica too."""
        with self.primary.connect() as connection:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        self.wait_replayed()


def _wait(ready, message: str, server: Server, *, timeout: float = STARTUP_TIMEOUT) -> None:
    wait_ready(ready, what=message, within=timeout, errors=(psycopg.OperationalError,), log=server.log)


def _wait_streaming(primary: Server, replica: Server) -> None:
    _wait(
        lambda: primary.scalar("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'") > 0,
        "the replica did not stream from the primary",
        replica,
    )


def _run(*command: str, cwd: Path) -> None:
    user = RUN_AS if os.geteuid() == 0 else None
    result = subprocess.run(
        [str(BIN / command[0]), *command[1:]],
        cwd=cwd,
        user=user,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env={**os.environ, "LC_ALL": "C.UTF-8"},
    )
    if result.returncode:
        raise RuntimeError(f"{command[0]} exited with {result.returncode}:\n{result.stdout}{result.stderr}")


def _own(path: Path) -> None:
    if os.geteuid() == 0:
        account = pwd.getpwnam(RUN_AS)
        os.chown(path, account.pw_uid, account.pw_gid)


def _configure(data: Path, *, port: int, sockets: Path, settings: dict) -> None:
    lines = [f"{name} = {value}" for name, value in settings.items()]
    lines += [f"port = {port}", f"unix_socket_directories = '{sockets}'"]
    with (data / "postgresql.conf").open("a") as conf:
        conf.write("\n# tests/postgres_cluster.py\n" + "\n".join(lines) + "\n")


def _start(server: Server, root: Path) -> None:
    _run("pg_ctl", "-D", str(server.directory), "-l", str(root / f"{server.directory.name}.log"), "start", cwd=root)
    _wait(lambda: server.scalar("SELECT 1") == 1, "PostgreSQL did not accept connections", server)


def _stop(server: Server, root: Path) -> None:
    if (server.directory / "postmaster.pid").exists():
        try:
            _run("pg_ctl", "-D", str(server.directory), "-m", "immediate", "-w", "stop", cwd=root)
        except RuntimeError:
            pass  # already gone: nothing to stop


@contextmanager
def primary_and_replica(directory: Path | None = None) -> Iterator[Cluster]:
    """A primary and a streaming replica of it for the ``with`` block, in ``directory`` (or a temp dir)."""
    reason = unavailable()
    if reason:
        raise RuntimeError(reason)
    if directory is None:
        root = Path(tempfile.mkdtemp(prefix=f"lms-pg-{os.getpid()}-"))
    else:
        root = Path(tempfile.mkdtemp(prefix="pg-", dir=directory))
    _own(root)
    primary = Server("127.0.0.1", _free_port(), root / "primary")
    replica = Server("127.0.0.1", _free_port(), root / "replica")
    try:
        _run("initdb", "-D", str(primary.directory), "-U", USER, "--auth=trust", "-E", "UTF8", "--no-sync", cwd=root)
        _configure(primary.directory, port=primary.port, sockets=root, settings=SETTINGS)
        (primary.directory / "pg_hba.conf").write_text(HBA)
        _start(primary, root)
        try:
            _run(
                "pg_basebackup",
                *("-h", primary.host, "-p", str(primary.port), "-U", USER),
                *("-D", str(replica.directory), "-R", "-X", "stream", "-c", "fast", "--no-sync"),
                cwd=root,
            )
            # The copy carries the primary's settings; the later line wins.
            _configure(replica.directory, port=replica.port, sockets=root, settings={})
            _start(replica, root)
            try:
                _wait_streaming(primary, replica)
                yield Cluster(primary, replica)
            finally:
                _stop(replica, root)
        finally:
            _stop(primary, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
