"""``xdist_group`` marks honoured under ``--dist loadgroup`` with this project's pytest.

pytest-xdist runs the tests of one ``xdist_group`` on one worker. Version 3.8 tells the
controller each test's group by appending it to the test's node id in the worker, which
pytest 9.2 no longer lets it change: the groups are ignored, silently, and the tests are
spread as if unmarked (pytest-dev/pytest-xdist#1386). So here each worker writes the
groups of the tests it collected to a file of the run, and the controller schedules with
loadgroup's own scheduler reading them. With a pytest or xdist where the node id does
carry the group, that scheduler's reading of it still applies. The hooks are registered
by tests/conftest.py.
"""

import json
import shutil
import tempfile
from pathlib import Path

import pytest

_GROUPS_DIR = "lms_xdist_groups_dir"


def _group_of(item) -> str | None:
    # As xdist names a test's group: its groups' names, sorted and joined.
    marks = item.iter_markers("xdist_group")
    names = {str(mark.args[0] if mark.args else mark.kwargs.get("name", "default")) for mark in marks}
    return "_".join(sorted(names)) or None


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """In the controller, for each worker it starts: where the workers write the groups."""
    config = node.config
    if not hasattr(config, _GROUPS_DIR):
        setattr(config, _GROUPS_DIR, tempfile.mkdtemp(prefix="pytest-xdist-groups-"))
    node.workerinput[_GROUPS_DIR] = getattr(config, _GROUPS_DIR)


@pytest.hookimpl(trylast=True)  # after every mark is added
def pytest_collection_modifyitems(config, items):
    directory = getattr(config, "workerinput", {}).get(_GROUPS_DIR)
    if directory is None or not getattr(config.option, "loadgroup", False):
        return
    groups = {item.nodeid: group for item in items if (group := _group_of(item)) is not None}
    path = Path(directory) / f"{config.workerinput['workerid']}.json"
    path.with_suffix(".tmp").write_text(json.dumps(groups), encoding="utf-8")
    path.with_suffix(".tmp").replace(path)  # whole, before the worker reports its collection


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class MarkedGroupScheduling(LoadGroupScheduling):
        """loadgroup's scheduling, with the groups the workers wrote (read once every worker
        has reported its collection, when the scheduling starts)."""

        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:
                self.groups = {}
                for path in sorted(Path(getattr(config, _GROUPS_DIR, "/nonexistent")).glob("*.json")):
                    self.groups.update(json.loads(path.read_text(encoding="utf-8")))
            group = self.groups.get(nodeid)
            return group if group is not None else super()._split_scope(nodeid)

    return MarkedGroupScheduling(config, log)


def pytest_unconfigure(config):
    directory = getattr(config, _GROUPS_DIR, None)
    if directory is not None:
        shutil.rmtree(directory, ignore_errors=True)
