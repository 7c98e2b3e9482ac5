"""``DATABASES`` from the environment: ``DATABASE_URL`` (an empty one means the embedded SQLite
default, as an unset one does) and, with ``DATABASE_REPLICA_URL``, a ``replica`` alias that the
staff reports read from (common/replica.py)."""

from pathlib import Path

import dj_database_url

# Seconds a report waits for the replica to answer before it reads the main database instead.
REPLICA_CONNECT_TIMEOUT = 3


def databases(environ, base_dir: Path) -> dict:
    options = {"conn_max_age": int(environ.get("DJANGO_CONN_MAX_AGE", "60")), "conn_health_checks": True}
    found = {
        "default": dj_database_url.parse(
            environ.get("DATABASE_URL") or f"sqlite:///{base_dir / 'db.sqlite3'}", **options
        )
    }
    if environ.get("DATABASE_REPLICA_URL"):
        replica = dj_database_url.parse(environ["DATABASE_REPLICA_URL"], **options)
        replica.setdefault("OPTIONS", {}).setdefault("connect_timeout", REPLICA_CONNECT_TIMEOUT)
        # The test runner makes no database for it: in tests it is the default one's.
        replica["TEST"] = {"MIRROR": "default"}
        found["replica"] = replica
    return found
