"""Where the browser is, how it is started, and why it may be missing."""

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
