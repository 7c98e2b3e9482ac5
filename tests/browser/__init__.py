"""Where the browser is, how it is started, and why it may be missing."""

import os
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
# Without the background-networking flag chromium keeps dialling out, which this
# machine's closed network refuses; never `playwright install` (it downloads).
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def _browser_missing_reason() -> str | None:
    if not CHROMIUM.exists():
        return f"browser tests need chromium at {CHROMIUM} (apt-get install chromium fonts-noto-core)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "browser tests need the playwright package (pip install -r requirements-dev.txt)"
    return None


BROWSER_MISSING = _browser_missing_reason()

ASYNC_UNSAFE = "DJANGO_ALLOW_ASYNC_UNSAFE"


@contextmanager
def chromium():
    """A started chromium (Playwright's sync API), stopped on exit.

    Playwright's sync API runs an event loop in this thread; while it does, the ORM
    calls the tests make (fixtures, answer keys, final checks) would raise
    SynchronousOnlyOperation, so they are allowed meanwhile. They also use database
    connections of their own: Django keeps a thread's connections per context, and the
    running loop is another one. Those are closed here, before the loop stops; left
    open, the test database could not be dropped at the end of the run ("being
    accessed by other users" on PostgreSQL).
    """
    from django.db import connections
    from playwright.sync_api import sync_playwright

    previous = os.environ.get(ASYNC_UNSAFE)
    os.environ[ASYNC_UNSAFE] = "true"
    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()
    finally:
        connections.close_all()
        playwright.stop()
        if previous is None:
            os.environ.pop(ASYNC_UNSAFE, None)
        else:
            os.environ[ASYNC_UNSAFE] = previous


def admin_login(page, username: str, language: str, next_path: str | None = None) -> None:
    """Log in through the admin's own form, as staff do, and land on ``next_path``.

    Opening ``next_path`` first also checks that the page sends visitors to the
    admin login of the same language. Without it, log in to the admin home.
    """
    import re

    from tests.factories import DEFAULT_PASSWORD

    if next_path is None:
        next_path = f"/{language}/admin/"
        page.goto(f"/{language}/admin/login/?next={next_path}")
    else:
        page.goto(next_path)
        assert re.search(rf"/{language}/admin/login/\?next=", page.url), page.url
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill(DEFAULT_PASSWORD)
    page.locator("#login-form [type=submit]").click()
    page.wait_for_url(re.compile(re.escape(next_path) + "$"))
