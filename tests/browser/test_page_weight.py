"""Page weight: every byte a first visit to a student page transfers, static files served as in production.

Each page is opened in a fresh browser context (an empty cache) with the student's session
cookie, and the bytes chromium received for every request are summed (CDP's
``Network.loadingFinished`` ``encodedDataLength``: compressed bodies and their headers). The
static files come from a collectstatic of their own, hashed and gzip/Brotli-compressed, through
WhiteNoise's middleware, as production serves them, not through the live server's plain file
handler. The figures are printed and written to artifacts/page-weight.json.
"""

import json

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connections
from django.test import Client, override_settings
from django.test.testcases import LiveServerThread

from quizzes.web import jinja_env
from tests.browser.conftest import PROJECT_DIR, expect, fonts_ready
from tests.browser.test_accessibility import page_url

ARTIFACT = PROJECT_DIR / "artifacts" / "page-weight.json"
# Bytes, not KiB. Urdu pages carry the Nastaliq subset (about 100 KB); the others no font at all.
BUDGETS = {"en": 40_000, "sn": 40_000, "id": 40_000, "ur": 130_000}
STATES = ["dashboard", "question", "feedback", "result"]


def _application(media_handler):
    """The bare application (without the live server's own static files handler): WhiteNoise serves /static/."""
    return media_handler.application


@pytest.fixture
def production_static(tmp_path):
    """The student pages' static files collected as for production."""
    root = tmp_path / "staticfiles"
    production = override_settings(
        STATIC_ROOT=root,
        # The student pages' files only: collecting and compressing the admin's and the API docs'
        # as well takes minutes.
        STATICFILES_FINDERS=["django.contrib.staticfiles.finders.FileSystemFinder"],
        STATICFILES_DIRS=[PROJECT_DIR / "quizzes" / "static"],
        STORAGES={
            **settings.STORAGES,
            "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
        },
        WHITENOISE_USE_FINDERS=False,
        WHITENOISE_AUTOREFRESH=False,
    )
    production.enable()
    jinja_env.static.cache_clear()
    try:
        call_command("collectstatic", interactive=False, verbosity=0)
        yield root
    finally:
        production.disable()
        jinja_env.static.cache_clear()


@pytest.fixture
def production_server(production_static, content):
    """A second live server, sharing the test database, whose static files WhiteNoise serves.

    On localhost, which the live server fixture has added to ALLOWED_HOSTS.
    """
    shared = {
        connection.alias: connection
        for connection in connections.all()
        if connection.vendor == "sqlite" and connection.is_in_memory_db()
    }
    thread = LiveServerThread("localhost", _application, connections_override=shared)
    thread.daemon = True
    for connection in shared.values():
        connection.inc_thread_sharing()
    thread.start()
    thread.is_ready.wait()
    try:
        if thread.error:
            raise thread.error
        yield f"http://localhost:{thread.port}"
    finally:
        thread.terminate()
        for connection in shared.values():
            connection.dec_thread_sharing()


def session_cookie(user, origin: str) -> dict:
    client = Client()
    client.force_login(user)
    return {
        "name": settings.SESSION_COOKIE_NAME,
        "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
        "url": origin,
    }


def first_visit(browser, origin: str, cookie: dict, url: str) -> dict:
    """Open ``url`` in an empty cache; the bytes transferred per URL and the static responses' headers."""
    context = browser.new_context(base_url=origin)
    context.add_cookies([cookie])
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    urls, transferred, statics = {}, {}, {}
    cdp.on("Network.requestWillBeSent", lambda event: urls.setdefault(event["requestId"], event["request"]["url"]))
    cdp.on(
        "Network.loadingFinished",
        lambda event: transferred.__setitem__(
            urls.get(event["requestId"], event["requestId"]), event["encodedDataLength"]
        ),
    )
    page.on(
        "response",
        lambda response: response.url.startswith(f"{origin}/static/") and statics.setdefault(response.url, response),
    )
    try:
        response = page.goto(url, wait_until="networkidle")
        assert response.status == 200, (url, response.status)
        fonts_ready(page)
        page.wait_for_load_state("networkidle")
        headers = {static_url: response.all_headers() for static_url, response in statics.items()}
        return {"page": page.url, "bytes": transferred, "static_headers": headers}
    finally:
        context.close()


def test_first_visits_stay_within_the_budget(browser, production_server, student):
    cookie = session_cookie(student, production_server)
    figures, over = {}, []
    for language, budget in BUDGETS.items():
        for state in STATES:
            visit = first_visit(browser, production_server, cookie, page_url(state, student, language))
            total = sum(visit["bytes"].values())
            name = f"{language} {state}"
            figures[name] = {"total": total, "budget": budget, "requests": visit["bytes"]}
            print(f"{name:14} {total:>7} bytes (budget {budget}): {len(visit['bytes'])} requests")
            if total > budget:
                over.append(f"{name}: {total} bytes > {budget}: {visit['bytes']}")
            for static_url, headers in visit["static_headers"].items():
                # Hashed names, cached for good; text compressed.
                assert "immutable" in headers.get("cache-control", ""), (static_url, headers)
                if not static_url.endswith((".woff2", ".svg")):
                    assert headers.get("content-encoding") in {"gzip", "br"}, (static_url, headers)
            fonts = [requested for requested in visit["bytes"] if requested.endswith(".woff2")]
            if language == "ur":
                assert len(fonts) == 1, (name, fonts)
            else:
                assert not fonts, f"{name} downloads a font: {fonts}"
    ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
    ARTIFACT.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    assert not over, "pages over their budget:\n" + "\n".join(over)


def test_favicon_answers(new_page, content):
    page = new_page()
    response = page.goto("/favicon.ico")
    assert response.status == 200
    assert response.url.endswith(".svg")
    assert response.headers["content-type"].startswith("image/svg+xml")
    expect(page.locator("svg")).to_have_count(1)
