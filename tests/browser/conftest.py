"""Browser tests: Playwright driving Debian's chromium against pytest-django's live server.

Every test here is skipped, with the reason, when the browser is missing
(no /usr/bin/chromium, or the playwright package is not installed), so that
``make test`` still passes on a machine without one.

Each test gets a fresh browser context; every request to the live server is
watched, and a test fails (at teardown) if one of them failed or answered
with an error status, e.g. a stylesheet or a font that did not load.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from quizzes.accounts.roles import CONTENT_EDITORS, staff_groups_ensure
from quizzes.enrollment.services import enrollment_create
from quizzes.models import Course, Question
from tests.browser import BROWSER_MISSING, chromium
from tests.conftest import SEEDS_DIR, content_load
from tests.factories import DEFAULT_PASSWORD, UserFactory

BROWSER_DIR = Path(__file__).resolve().parent
PROJECT_DIR = BROWSER_DIR.parent.parent
SCREENSHOTS_DIR = PROJECT_DIR / "artifacts" / "screenshots"
AXE_JS = BROWSER_DIR / "vendor" / "axe.min.js"

COURSE_SLUG = "memory-efficient-training"
STUDENT_USERNAME = "browser-student"


def pytest_collection_modifyitems(config, items):
    if not BROWSER_MISSING:
        return
    skip = pytest.mark.skip(reason=BROWSER_MISSING)
    for item in items:
        if BROWSER_DIR in Path(str(item.path)).resolve().parents:
            item.add_marker(skip)


# The browser ------------------------------------------------------------------


@pytest.fixture(scope="package")
def browser():
    """One chromium for the browser tests; stopped after them, so that the rest of the suite runs as usual."""
    with chromium() as started:
        yield started


@dataclass
class RequestLog:
    """What went wrong while loading pages from the live server."""

    origin: str
    problems: list[str] = field(default_factory=list)
    aborted: dict[str, str] = field(default_factory=dict)
    loaded: set[str] = field(default_factory=set)
    # (status, part of the URL) of the error responses a test means to cause.
    expected: set[tuple[int, str]] = field(default_factory=set)

    def on_request_failed(self, request) -> None:
        if not request.url.startswith(self.origin):
            return
        failure = request.failure or ""
        if "ERR_INTERNET_DISCONNECTED" in failure:
            return  # made while the test had taken the context offline (context.set_offline)
        description = f"{request.method} {request.url} ({request.resource_type}) failed: {failure}"
        if "ERR_ABORTED" in failure:
            # Leaving a page cancels what it was still loading; a navigation replaced by the
            # next one is no fault. An aborted stylesheet or font is one only if it never loaded.
            if not request.is_navigation_request():
                self.aborted.setdefault(request.url, description)
            return
        self.problems.append(description)

    def on_request_finished(self, request) -> None:
        self.loaded.add(request.url)

    def on_response(self, response) -> None:
        if response.url.startswith(self.origin) and response.status >= 400:
            if any(status == response.status and part in response.url for status, part in self.expected):
                return
            request = response.request
            self.problems.append(f"{request.method} {response.url} ({request.resource_type}) -> {response.status}")

    def report(self) -> list[str]:
        return self.problems + [problem for url, problem in self.aborted.items() if url not in self.loaded]


@pytest.fixture
def new_page(browser, live_server):
    """Make a page in a fresh context (``new_page(java_script_enabled=False)``), watched for failed requests.

    ``new_page.expect(status, url_part)``: that error response is part of the test, not a fault."""
    contexts = []
    log = RequestLog(origin=live_server.url)

    def make(**context_options):
        context = browser.new_context(base_url=live_server.url, **context_options)
        context.set_default_timeout(10_000)
        context.on("requestfailed", log.on_request_failed)
        context.on("requestfinished", log.on_request_finished)
        context.on("response", log.on_response)
        contexts.append(context)
        return context.new_page()

    make.expect = lambda status, url_part: log.expected.add((status, url_part))
    yield make
    problems = log.report()  # before closing: closing cancels whatever is still loading
    for context in contexts:
        context.close()
    assert not problems, "requests to the live server failed:\n" + "\n".join(problems)


@pytest.fixture
def page(new_page):
    return new_page()


# Data -------------------------------------------------------------------------


@pytest.fixture
def content(transactional_db, live_server):
    """All the fixture content, in the database the live server reads."""
    content_load()
    return Course.objects.get(slug=COURSE_SLUG)


@pytest.fixture
def student(content):
    """A student with a password, enrolled in memory-efficient-training."""
    user = UserFactory(username=STUDENT_USERNAME)
    enrollment_create(user=user, course=content)
    return user


# Helpers ------------------------------------------------------------------------


EDITOR_USERNAME = "browser-editor"


@pytest.fixture
def editor(content):
    """A content editor (staff, in the "Content editors" group) for the staff pages."""
    user = UserFactory(username=EDITOR_USERNAME, is_staff=True)
    user.groups.add(staff_groups_ensure()[CONTENT_EDITORS])
    return user


def seed_path(prefix: str) -> Path:
    """tests/seeds/<prefix>_*.txt, e.g. seed_path("000")."""
    (path,) = SEEDS_DIR.glob(f"{prefix}_*.txt")
    return path


def login(page, language: str, *, username: str = STUDENT_USERNAME, password: str = DEFAULT_PASSWORD) -> None:
    """Open /<language>/, get sent to the login form, log in with it, land on the dashboard."""
    page.goto(f"/{language}/")
    assert re.search(rf"/{language}/accounts/login/\?next=/{language}/$", page.url), page.url
    # Find the fields through their labels, whatever language the labels are in.
    for field_id, value in (("id_username", username), ("id_password", password)):
        label = page.locator(f'label[for="{field_id}"]')
        page.get_by_label(label.inner_text().strip(), exact=True).fill(value)
    page.locator("main form").get_by_role("button").click()
    page.wait_for_url(re.compile(rf"/{language}/$"))


def questions_of(slug: str) -> dict[int, Question]:
    """The quiz's questions by position, with their choices (the answer key) prefetched."""
    questions = Question.objects.filter(quiz__slug=slug).prefetch_related("choices").order_by("position")
    return {question.position: question for question in questions}


def expect(*args, **kwargs):
    """playwright's ``expect``, imported late so that this package still collects without playwright."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(*args, **kwargs)


def fonts_ready(page) -> None:
    page.evaluate("document.fonts.ready.then(() => true)")


def screenshot(page, name: str) -> Path:
    """A full-page screenshot in artifacts/screenshots/, once the web fonts are in."""
    SCREENSHOTS_DIR.mkdir(parents=True, exist_ok=True)
    fonts_ready(page)
    path = SCREENSHOTS_DIR / name
    page.screenshot(path=str(path), full_page=True)
    return path
