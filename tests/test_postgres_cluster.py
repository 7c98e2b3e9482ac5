"""The throwaway primary and replica of tests/postgres_cluster.py: the replica follows the primary,
and stops following while its replay is paused."""

import pytest

from tests import postgres_cluster

pytestmark = pytest.mark.skipif(postgres_cluster.unavailable() is not None, reason=str(postgres_cluster.unavailable()))


def _count(server, dbname: str) -> int:
    with server.connect(dbname) as connection:
        return connection.execute("SELECT count(*) FROM marks").fetchone()[0]


def test_the_replica_follows_the_primary_until_paused():
    with postgres_cluster.primary_and_replica() as cluster:
        cluster.create_database("cluster_check")
        with cluster.primary.connect("cluster_check") as primary:
            primary.execute("CREATE TABLE marks (id int)")
            primary.execute("INSERT INTO marks VALUES (1)")
        cluster.wait_replayed()
        assert _count(cluster.replica, "cluster_check") == 1

        cluster.pause_replay()
        with cluster.primary.connect("cluster_check") as primary:
            primary.execute("INSERT INTO marks VALUES (2)")
        assert _count(cluster.replica, "cluster_check") == 1
        assert cluster.replica.scalar("SELECT pg_is_in_recovery()") is True

        cluster.resume_replay()
        cluster.wait_replayed()
        assert _count(cluster.replica, "cluster_check") == 2
        assert cluster.primary.url("x") == f"postgres://postgres@127.0.0.1:{cluster.primary.port}/x"
        directory = cluster.primary.directory.parent
    assert not directory.exists()
