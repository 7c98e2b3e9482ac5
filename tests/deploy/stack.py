"""The whole deployment of deploy/ on this machine, each part a process of its own on free ports.

``full_stack(directory)`` starts, in this order, and stops in the reverse one:

- a PostgreSQL 15 primary and its streaming replica (tests/postgres_cluster.py);
- the race database on the primary (tests/concurrency/conftest.py: fixtures, students);
- PgBouncer in transaction mode in front of the primary (tests/pgbouncer.py);
- Redis, keeping nothing on disk (``redis_running``);
- gunicorn with deploy/gunicorn.conf.py (tests/deploy/gunicorn.py): DATABASE_URL is PgBouncer's,
  DATABASE_REPLICA_URL the replica's, REDIS_URL that Redis, static files collected;
- nginx with deploy/nginx/lms.conf in front of it (tests/deploy/nginx.py).

It yields a ``Deployed`` site (a LiveApi whose url is nginx's): the race tests and the student
flows run against it as against any live server. The school benchmark (benchmarks/school.py)
puts the same gunicorn and nginx in front of its own database.
"""

import shutil
import signal
import subprocess
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import redis

from tests import pgbouncer, postgres_cluster
from tests.concurrency.conftest import LiveApi, _manage, race_database_on
from tests.deploy import gunicorn, nginx
from tests.processes import free_port, stop, wait_ready

DBNAME = "lms_deploy"
WORKERS = 4
STARTUP_TIMEOUT = 60.0


@dataclass
class Deployed(LiveApi):
    gunicorn_url: str
    static_root: Path
    cluster: postgres_cluster.Cluster
    bouncer: pgbouncer.PgBouncer
    redis_url: str


def unavailable() -> str | None:
    """Why the whole stack cannot run here, or None."""
    missing = [
        name
        for name, found in (("nginx", nginx.executable()), ("redis-server", shutil.which("redis-server")))
        if not found
    ]
    if missing:
        return f"not installed: {', '.join(missing)} (Debian's packages nginx and redis-server; .ci/run installs them)"
    return pgbouncer.unavailable() or postgres_cluster.unavailable()


@contextmanager
def redis_running(directory: Path):
    """A Redis of its own (no snapshot, no append-only file) for the block; its URL."""
    directory.mkdir(parents=True, exist_ok=True)
    port = free_port()
    command = ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"]
    with (directory / "redis.log").open("wb") as log:
        process = subprocess.Popen([*command, "--dir", str(directory)], stdout=log, stderr=log)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=1)
        wait_ready(
            client.ping,
            what="redis did not start",
            within=10,
            errors=(redis.ConnectionError,),
            process=process,
            log=lambda: (directory / "redis.log").read_text(errors="replace"),
        )
        yield url
    finally:
        stop(process, signal.SIGTERM)


@contextmanager
def full_stack(directory: Path, *, workers: int = WORKERS):
    with postgres_cluster.primary_and_replica() as cluster:
        primary, replica = cluster.primary, cluster.replica
        server = {"host": primary.host, "port": primary.port, "user": postgres_cluster.USER, "password": None}
        with (
            race_database_on(server, DBNAME) as database,
            pgbouncer.running(
                server_host=primary.host, server_port=primary.port, user=postgres_cluster.USER, password=None
            ) as bouncer,
            redis_running(directory / "redis") as redis_url,
        ):
            cluster.wait_replayed()
            gunicorn_address = f"127.0.0.1:{free_port()}"
            env = {
                **gunicorn.site_env(
                    database.env, static_root=directory / "static", bind=gunicorn_address, workers=workers
                ),
                "DATABASE_URL": f"postgres://{postgres_cluster.USER}@{bouncer.host}:{bouncer.port}/{DBNAME}",
                "DATABASE_REPLICA_URL": replica.url(DBNAME),
                "REDIS_URL": redis_url,
            }
            _manage(env, "collectstatic", "--noinput", "-v0")
            (directory / "nginx").mkdir(exist_ok=True)
            log_path = directory / "gunicorn.log"
            with (
                gunicorn.running(env, log_path) as process,
                nginx.running(directory / "nginx", upstream=gunicorn_address, static_root=directory / "static") as at,
            ):
                site = Deployed(
                    url=f"http://{at}",
                    database=database,
                    process=process,
                    log_path=log_path,
                    gunicorn_url=f"http://{gunicorn_address}",
                    static_root=directory / "static",
                    cluster=cluster,
                    bouncer=bouncer,
                    redis_url=redis_url,
                )
                probe = next(iter(site.tokens.values()))
                if site.wait_healthy(probe, within=STARTUP_TIMEOUT) is None or site.wait_workers(workers) is None:
                    raise RuntimeError(f"the stack did not come up:\n{site.log_since(0)[-4000:]}")
                yield site
