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
