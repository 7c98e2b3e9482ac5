"""Shared fixtures: the seed content, and a student and an editor."""

import json
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection, models, transaction
from django.template.backends import jinja2 as jinja2_backend
from django.test.signals import template_rendered
from django.utils import translation

from quizzes.accounts.roles import CONTENT_EDITORS, TEACHERS, staff_groups_ensure
from quizzes.content import cache as content_cache
from quizzes.models import Choice, Course, Question, QuestionVersion, Quiz, QuizContentVersion, new_token
from tests.factories import EnrollmentFactory, UserFactory

# xdist_group marks honoured with pytest 9.2 (see there, and "Running in parallel" below).
pytest_plugins = ["tests.xdist_groups"]

PROJECT_DIR = Path(__file__).resolve().parent.parent
FIXTURES_DIR = PROJECT_DIR / "fixtures"
SEEDS_DIR = Path(__file__).resolve().parent / "seeds"
FIXTURE_FILES = sorted(FIXTURES_DIR.glob("*.json"))


@pytest.fixture(autouse=True)
def english():
    """Start every test in English: a request to /ur/ leaves Urdu active in the
    thread (the test client runs views in it), which later reverse() calls and
    gettext would otherwise inherit."""
    with translation.override("en"):
        yield


@pytest.fixture(autouse=True, scope="session")
def jinja2_templates_recorded():
    """``response.templates`` and ``response.context`` for the Jinja2 student pages too.

    Django's test setup records only its own engine's renders (it patches
    ``django.template.Template._render``); this sends the same signal for
    Jinja2's, naming the template as Django's do.
    """
    original = jinja2_backend.Template.render

    def render(self, context=None, request=None):
        context = {} if context is None else context
        output = original(self, context, request)
        self.name = self.template.name
        template_rendered.send(sender=self, template=self, context=context)
        return output

    jinja2_backend.Template.render = render
    yield
    jinja2_backend.Template.render = original


def load_fixtures() -> None:
    call_command("loaddata", *(str(path) for path in FIXTURE_FILES), verbosity=0)


# The rows the first loaddata of this process wrote, every table's (the content, and the versions
# and cache versions its signals wrote): (model, column values of each new row).
_fixture_rows: list[tuple[type[models.Model], list[dict]]] = []
CONTENT_MODELS = (Course, Quiz, Question, Choice)
# Columns that must never come back with a value used before (quizzes/content/cache.py,
# layout_cache.py): a fresh random number at each replay.
FRESH_TOKENS = {QuestionVersion: "token", QuizContentVersion: "version"}


def content_load() -> None:
    """Every fixture loaded, as ``load_fixtures()`` does, in a few statements (the ``content``
    fixture of a thousand tests).

    The first time in this process it is loaddata, and the rows it wrote, in every table, are
    recorded. After that, into a database without content (each test's: rolled back or
    flushed after the test), the same rows are inserted again as they were, primary keys
    included, one INSERT a table (no signals: what the signals wrote the first time is
    among the rows), with new random version tokens, and the sequences reset. With content
    there already, loaddata.
    """
    if any(model._base_manager.exists() for model in CONTENT_MODELS):
        load_fixtures()
    elif _fixture_rows:
        _fixture_rows_inserted()
    else:
        tables = [model for model in apps.get_models(include_auto_created=True) if not model._meta.proxy]
        before = {model: set(model._base_manager.values_list("pk", flat=True)) for model in tables}
        load_fixtures()
        for model in tables:
            fields = [field.attname for field in model._meta.concrete_fields]
            rows = model._base_manager.values(*fields)
            rows = [row for row in rows if row[model._meta.pk.attname] not in before[model]]
            if rows:
                _fixture_rows.append((model, rows))


def _fixture_rows_inserted() -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        for model, rows in _fixture_rows:
            fields = model._meta.concrete_fields
            fresh = FRESH_TOKENS.get(model)
            params = []
            for values in rows:
                if fresh:
                    values = {**values, fresh: new_token()}
                params += [field.get_db_prep_save(values[field.attname], connection) for field in fields]
            # One INSERT a table, every value adapted by its field (as a save would): no model
            # instances and no signals (what the signals wrote the first time is among the rows).
            columns = ", ".join(connection.ops.quote_name(field.column) for field in fields)
            row = "(" + ", ".join(["%s"] * len(fields)) + ")"
            table = connection.ops.quote_name(model._meta.db_table)
            cursor.execute(f"INSERT INTO {table} ({columns}) VALUES {', '.join([row] * len(rows))}", params)
        resets = connection.ops.sequence_reset_sql(no_style(), [model for model, _rows in _fixture_rows])
        if connection.vendor == "postgresql":
            cursor.execute("; ".join(resets))  # one round trip
        else:
            for statement in resets:
                cursor.execute(statement)
    # What this process held of the quizzes of an earlier test's content (same ids, other
    # rows): dropped, as the save receivers drop it (quizzes/content/cache.py).
    content_cache._held.clear()


def fixture_records(model: str) -> list[dict]:
    """The fixture objects of ``model`` ("quizzes.question"...), as in the JSON files."""
    records = []
    for path in FIXTURE_FILES:
        records += [record for record in json.loads(path.read_text(encoding="utf-8")) if record["model"] == model]
    return records


@pytest.fixture
def content(db) -> dict[str, Quiz]:
    """Every fixture loaded; the quizzes by slug."""
    content_load()
    return {quiz.slug: quiz for quiz in Quiz.objects.all()}


@pytest.fixture
def course(content) -> Course:
    return Course.objects.get(slug="memory-efficient-training")


@pytest.fixture
def student(content):
    """A plain user enrolled in memory-efficient-training."""
    user = UserFactory(username="student-1")
    EnrollmentFactory(user=user, course=Course.objects.get(slug="memory-efficient-training"))
    return user


@pytest.fixture
def editor(db):
    """Staff in the Content editors group, not a superuser."""
    user = UserFactory(username="editor-1", is_staff=True)
    user.groups.add(staff_groups_ensure()[CONTENT_EDITORS])
    return user


@pytest.fixture
def editor_client(client, editor):
    """The test client, logged in as ``editor``."""
    client.force_login(editor)
    return client


@pytest.fixture
def teacher(db):
    """Staff in the Teachers group: reports and enrollments, content read-only."""
    user = UserFactory(username="teacher-1", is_staff=True)
    user.groups.add(staff_groups_ensure()[TEACHERS])
    return user


# Student web pages and attempts ------------------------------------------------

from django.test import Client  # noqa: E402

from tests.html import HtmlNode, html_tree  # noqa: E402


@pytest.fixture
def parse_html():
    """``parse_html(response)``: the page as a tree of HtmlNode (find, find_all, one, text)."""

    def parse(response_or_content) -> HtmlNode:
        content = getattr(response_or_content, "content", response_or_content)
        return html_tree(content)

    return parse


@pytest.fixture
def gc_quiz(content) -> Quiz:
    """gradient-checkpointing: 8 questions, Urdu questions 3,4,6,7,8 untranslated, no Shona title."""
    return content["gradient-checkpointing"]


@pytest.fixture
def student_client(student) -> Client:
    """A browser logged in as ``student`` (enrolled in memory-efficient-training)."""
    client = Client()
    client.force_login(student)
    return client


@pytest.fixture
def other_student(content):
    """Another enrolled student, whose attempts ``student`` must never reach."""
    user = UserFactory(username="student-2")
    EnrollmentFactory(user=user, course=Course.objects.get(slug="memory-efficient-training"))
    return user


@pytest.fixture
def outsider(content):
    """A logged-in user enrolled in no course."""
    return UserFactory(username="outsider-1")


# Running in parallel (pytest-xdist, ``--dist loadgroup`` in `make test`) ----------------
#
# Each worker process has its own test database (pytest-django: test_<name>_gw0, ...), live
# server, temporary directories, free ports and local-memory cache, so most tests go to
# whichever worker is free. Tests marked with the same ``xdist_group`` run on one worker,
# one after the other:
# - "concurrency": every test in tests/concurrency/ not in another group (set here). Their
#   races take 50 database connections each: two at once would pass PostgreSQL's 100. And
#   the session's live gunicorn on a database of its own (tests/concurrency/conftest.py)
#   is set up once, not once per worker.
# - "redis": the tests on the local Redis server (tests/common/test_throttling.py,
#   tests/concurrency/test_two_servers.py): one empties Redis' script cache, which is
#   server-wide whatever the db number, while others count on a script being loaded.
CONCURRENCY_DIR = Path(__file__).resolve().parent / "concurrency"


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items):
    for item in items:
        if item.get_closest_marker("xdist_group") is None and CONCURRENCY_DIR in Path(item.path).parents:
            item.add_marker(pytest.mark.xdist_group("concurrency"))


# The figures and the fault report, once for the whole run ---------------------------
#
# `make test` runs the suite in several processes (pytest-xdist): each worker counts the
# figures (tests/figures.py) and collects the fault-injection lines (tests/concurrency)
# of its own tests and hands them to the controller as it ends; the controller adds them
# up, prints them and writes artifacts/integrity-figures-<database>.json once. Run in one
# process (-n 0, or without xdist), that process does all of it.


def _in_xdist_worker(config) -> bool:
    return hasattr(config, "workerinput")


def pytest_sessionfinish(session):
    if _in_xdist_worker(session.config):
        from tests import figures
        from tests.concurrency import FAULT_REPORT

        session.config.workeroutput["figures"] = figures.snapshot()
        session.config.workeroutput["fault_report"] = list(FAULT_REPORT)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """In the controller: a worker has ended; its figures join those of the others."""
    from tests import figures
    from tests.concurrency import FAULT_REPORT

    output = getattr(node, "workeroutput", None) or {}
    figures.merge(output.get("figures", {}))
    FAULT_REPORT.extend(output.get("fault_report", []))


def pytest_terminal_summary(terminalreporter, config):
    from django.db import connection

    from tests import figures
    from tests.concurrency import FAULT_REPORT

    if _in_xdist_worker(config):
        return  # the controller reports for every worker
    if FAULT_REPORT:
        terminalreporter.section("fault injection")
        for line in FAULT_REPORT:
            terminalreporter.write_line(line)
    if not figures.snapshot():
        return
    path = figures.write_report(connection.vendor)
    terminalreporter.section(f"integrity figures ({connection.vendor})")
    for name, value in figures.snapshot().items():
        terminalreporter.write_line(f"{name}: {value}")
    terminalreporter.write_line(f"written to {path.relative_to(PROJECT_DIR)}")
