"""The service worker's server side: the script at /sw.js, what the question page gives it,
and the API answer it sends for a queued answer (session, CSRF token, Idempotency-Key).

What the worker does in a browser (offline, the queue, the cache): tests/browser/test_offline.py.
"""

import json
import re

import pytest
from django.test import Client
from django.utils.translation import gettext, override

from quizzes.attempts.services import attempt_answer_submit, attempt_start
from quizzes.models import Answer
from quizzes.web.offline import _script, worker_script
from tests.common.test_security import assert_strict_csp

pytestmark = pytest.mark.django_db

SAVED = "Saved on this phone. It will be checked when you are back online."
SENDING = "Back online: checking your answer…"


def said(message: str, language: str) -> str:
    with override(language):
        return gettext(message)


def test_the_worker_is_served_from_the_root_to_anyone():
    response = Client().get("/sw.js")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript; charset=utf-8"
    # Checked again on each visit: a deploy's worker is installed at once.
    assert response["Cache-Control"] == "no-cache"
    assert_strict_csp(response)
    script = response.content.decode()
    assert re.match(r'const VERSION = "[0-9a-f]{16}";\n', script)
    assert 'const STATIC_URL = "/static/";' in script
    assert 'const ANSWER_URL = "/api/v1/attempts/0/answers/";' in script
    assert 'self.addEventListener("fetch"' in script


def test_the_worker_is_served_with_the_production_storage(settings):
    # Its settings name no static file: the manifest (collectstatic's) is not needed for them.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    _script.cache_clear()
    try:
        response = Client().get("/sw.js")
    finally:
        _script.cache_clear()

    assert response.status_code == 200
    assert 'const STATIC_URL = "/static/";' in response.content.decode()


def test_the_worker_is_only_read():
    assert Client().post("/sw.js").status_code == 405


def test_the_version_changes_with_the_source_and_the_settings():
    def version(source, static_url="/static/", answer_url="/api/v1/attempts/0/answers/"):
        script = worker_script(source, static_url=static_url, answer_url=answer_url)
        return script.splitlines()[0]

    assert version("a") == version("a")
    assert len({version("a"), version("b"), version("a", static_url="/s/"), version("a", answer_url="/x/")}) == 4


@pytest.mark.parametrize("language", ["en", "ur"])
def test_an_unanswered_question_page_gives_the_worker_its_sentences(
    student_client, student, gc_quiz, parse_html, language
):
    attempt, _created = attempt_start(user=student, quiz=gc_quiz)

    page = parse_html(student_client.get(f"/{language}/attempts/{attempt.pk}/questions/1/"))

    page.one("script", src="/static/quizzes/offline.js")
    status = page.one("p", class_="offline-status")
    assert any(node.tag == "form" for node in status.ancestors())
    assert status.attrs["role"] == "status"
    assert status.attrs["data-service-worker"] == "/sw.js"
    assert status.attrs["data-saved"] == said(SAVED, language)
    assert status.attrs["data-sending"] == said(SENDING, language)
    assert status.text == ""


def test_an_answered_question_page_has_no_worker_script(student_client, student, gc_quiz, parse_html):
    attempt, _created = attempt_start(user=student, quiz=gc_quiz)
    question = gc_quiz.questions.get(position=1)
    attempt_answer_submit(
        user=student,
        attempt_id=attempt.pk,
        question_id=question.pk,
        choice_id=question.choices.first().pk,
        language="en",
    )

    page = parse_html(student_client.get(f"/en/attempts/{attempt.pk}/questions/1/"))

    assert page.find("script", src="/static/quizzes/offline.js") is None
    assert page.find(class_="offline-status") is None


def queued_answer_sent(client, attempt, question, choice, *, key, token, language="ur"):
    """What the worker sends for a queued answer: the session's cookie, the form's CSRF token."""
    return client.post(
        f"/api/v1/attempts/{attempt.pk}/answers/?lang={language}",
        json.dumps({"question": question.pk, "choice": choice.pk}),
        content_type="application/json",
        HTTP_X_CSRFTOKEN=token,
        HTTP_IDEMPOTENCY_KEY=key,
    )


@pytest.fixture
def browser(student):
    client = Client(enforce_csrf_checks=True)
    client.force_login(student)
    return client


def form_token(client, attempt, parse_html) -> str:
    page = parse_html(client.get(f"/ur/attempts/{attempt.pk}/questions/1/"))
    return page.one("form", class_="question").one("input", name="csrfmiddlewaretoken").attrs["value"]


def test_a_queued_answer_sent_twice_is_one_answer(browser, student, gc_quiz, parse_html):
    attempt, _created = attempt_start(user=student, quiz=gc_quiz)
    question = gc_quiz.questions.get(position=1)
    choice = question.choices.first()
    token = form_token(browser, attempt, parse_html)

    first = queued_answer_sent(browser, attempt, question, choice, key="queued-1", token=token)
    again = queued_answer_sent(browser, attempt, question, choice, key="queued-1", token=token)

    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    (answer,) = Answer.objects.filter(attempt=attempt)
    assert (answer.choice_id, answer.language) == (choice.pk, "ur")


def test_a_queued_answer_without_the_forms_token_is_refused(browser, student, gc_quiz, parse_html):
    attempt, _created = attempt_start(user=student, quiz=gc_quiz)
    question = gc_quiz.questions.get(position=1)
    form_token(browser, attempt, parse_html)  # the CSRF cookie is set

    response = queued_answer_sent(browser, attempt, question, question.choices.first(), key="queued-1", token="")

    assert response.status_code == 403
    assert not Answer.objects.filter(attempt=attempt).exists()
