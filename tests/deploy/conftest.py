"""The deployed site (tests/deploy/stack.py: nginx, gunicorn, PgBouncer, a primary and its
replica, Redis), made once per session; ``live_api`` is it, for the race tests."""

import pytest

from tests.deploy import stack


@pytest.fixture(scope="session")
def deployed(tmp_path_factory):
    reason = stack.unavailable()
    if reason:
        pytest.skip(reason)
    with stack.full_stack(tmp_path_factory.mktemp("deploy")) as site:
        yield site
