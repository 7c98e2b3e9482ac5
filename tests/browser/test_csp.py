"""No Content-Security-Policy violation in a real browser, on the pages most likely to have one.

The headers themselves are checked without a browser in tests/common/test_security.py.
"""

import pytest
from django.core.cache import cache
from django.test import Client

from quizzes.attempts.services import attempt_start
from quizzes.models import Quiz
from tests.conftest import content_load
from tests.factories import EnrollmentFactory, UserFactory

QUIZ = "gradient-checkpointing"

# Collects violations that reach no console message too (none of the pages may have any).
CSP_LISTENER = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`);
});
"""


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


def _session_cookie(user, live_server) -> dict:
    client = Client()
    client.force_login(user)
    return {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}


def test_pages_load_without_csp_violations_in_chromium(browser, live_server, transactional_db):
    content_load()
    quiz = Quiz.objects.get(slug=QUIZ)
    student = UserFactory(username="csp-student")
    EnrollmentFactory(user=student, course=quiz.course)
    attempt, _created = attempt_start(user=student, quiz=quiz)
    question = quiz.questions.order_by("position").first()
    editor = UserFactory(username="csp-editor", is_staff=True, is_superuser=True)

    messages: list[str] = []
    visits = [
        (None, "/api/v1/docs/", ".swagger-ui .info .title"),
        (None, "/en/accounts/login/", "main form"),
        (None, "/en/admin/login/", "#login-form"),
        (editor, f"/en/admin/quizzes/quiz/{quiz.pk}/change/", ".ui-tabs .ui-tabs-nav"),
        (editor, f"/ur/admin/quizzes/quiz/{quiz.pk}/change/", ".ui-tabs .ui-tabs-nav"),
        (editor, f"/en/admin/quizzes/question/{question.pk}/change/", ".ui-tabs .ui-tabs-nav"),
        (editor, "/en/admin/quizzes/quiz/add/", ".ui-tabs .ui-tabs-nav"),
        (editor, "/en/admin/quizzes/quiz/", "#changelist"),
        (editor, f"/en/admin/quizzes/quiz/{quiz.pk}/preview/?language=ur", ".quiz-preview"),
        (student, f"/en/attempts/{attempt.pk}/questions/1/", "main form"),
        (student, f"/ur/attempts/{attempt.pk}/questions/1/", "main form"),
    ]
    for user, url, ready in visits:
        context = browser.new_context(base_url=live_server.url)
        context.set_default_timeout(15_000)
        if user is not None:
            context.add_cookies([_session_cookie(user, live_server)])
        context.add_init_script(CSP_LISTENER)
        page = context.new_page()
        page.on("console", lambda message, url=url: messages.append(f"{url}: [{message.type}] {message.text}"))
        response = page.goto(url)
        assert response.status == 200, (url, response.status)
        assert response.headers["content-security-policy"]
        page.wait_for_selector(ready, state="attached")
        page.wait_for_load_state("networkidle")
        violations = page.evaluate("window.__cspViolations")
        assert not violations, (url, violations)
        context.close()

    csp_messages = [message for message in messages if "Content Security Policy" in message]
    assert not csp_messages, "\n".join(csp_messages)
