"""An answer given while the connection is down waits on the phone and is checked once back online.

The service worker (quizzes/static/quizzes/service-worker.js) keeps the question page the
student was served; offline, the form's answer waits in IndexedDB and the page says so in
the student's language; the queue outlives the tab; back online, the answer goes to the API
with its Idempotency-Key and the page shows its feedback, recorded once. Nothing the worker
keeps before the answer holds the question's explanation or marks its right choice.
"""

import re

import pytest
from django.utils.translation import gettext, override

from quizzes.content.shown import localized
from quizzes.models import Answer
from tests.browser.conftest import DEFAULT_PASSWORD, expect, login, questions_of
from tests.browser.test_countdown import CSP_LISTENER
from tests.browser.test_student_journey import start_attempt

SLUG = "gradient-checkpointing"
SAVED = "Saved on this phone. It will be checked when you are back online."
LOG_IN_AGAIN = "Saved on this phone. Your session has ended: log in again to send it."
# Back online, the first try can still meet the connection down (the "online" event comes
# first); the page tries again every 5 s (RETRY_MS in offline.js): wait past one retry.
BACK_ONLINE_MS = 12_000

WORKER_READY = """async () => {
  const registration = await navigator.serviceWorker.ready;
  return Boolean(navigator.serviceWorker.controller) && registration.active.state === "activated"
    && Boolean(await caches.match(location.href))
    && Boolean(await caches.match(document.querySelector('script[src$="/offline.js"]').src));
}"""

# Every response the worker keeps: its URL and its body.
CACHE_ENTRIES = """async () => {
  const entries = [];
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      const response = await cache.match(request);
      const type = response.headers.get("Content-Type") || "";
      entries.push({url: request.url, body: type.startsWith("text/html") ? await response.text() : ""});
    }
  }
  return entries;
}"""

# The waiting answers, as the worker keeps them in IndexedDB.
QUEUED = """() => new Promise((resolve, reject) => {
  const opening = indexedDB.open("lms-offline", 1);
  opening.onerror = () => reject(opening.error);
  opening.onsuccess = () => {
    const request = opening.result.transaction("answers").objectStore("answers").getAll();
    request.onsuccess = () => { opening.result.close(); resolve(request.result); };
  };
})"""

SEND_AGAIN = """async (entry) => {
  const response = await fetch(entry.url, {
    method: "POST",
    headers: {"Content-Type": "application/json", "X-CSRFToken": entry.csrfToken, "Idempotency-Key": entry.key},
    body: JSON.stringify({question: entry.question, choice: entry.choice}),
  });
  return [response.status, response.headers.get("Idempotent-Replayed")];
}"""


def said(message: str, language: str) -> str:
    with override(language):
        return gettext(message)


def worker_ready(page) -> None:
    """The worker controls the page and keeps it and its script (page.wait_for_function awaits no promise)."""
    for _attempt in range(100):
        if page.evaluate(WORKER_READY):
            return
        page.wait_for_timeout(100)
    raise AssertionError("the service worker did not take the page")


def watched(page, errors: list) -> None:
    page.on("pageerror", lambda error: errors.append(str(error)))


def assert_nothing_kept_gives_the_answer_away(page, question, question_url: str) -> None:
    """Nothing kept holds the unanswered question's explanation, nor its page any feedback or mark."""
    entries = page.evaluate(CACHE_ENTRIES)
    (kept_page,) = [entry for entry in entries if entry["url"] == question_url]
    explanations = {localized(question, "explanation", language).text for language in ("en", "ur", "sn", "id")}
    for entry in entries:
        for explanation in explanations - {""}:
            assert explanation not in entry["body"], entry["url"]
        assert "/api/" not in entry["url"]
    assert 'class="question-text"' in kept_page["body"]
    assert 'id="feedback"' not in kept_page["body"]
    assert not re.search(r'class="choice[^"]*\bright\b', kept_page["body"])


def attempt_started(page, language: str) -> str:
    """Log in, start an attempt, wait for the worker to keep its first question; that page's URL."""
    login(page, language)
    page.goto(f"/{language}/quizzes/{SLUG}/")
    start_attempt(page, language, SLUG)
    worker_ready(page)
    return page.url


def answered_offline(page, choice):
    """Take the phone offline and submit ``choice``; the question's status line."""
    page.context.set_offline(True)
    page.locator(f'label[for="choice-{choice.pk}"]').click()
    page.locator('main form.question button[type="submit"]').click()
    return page.locator("main form.question .offline-status[role=status]")


@pytest.mark.parametrize("language", ["en", "ur"])
def test_an_answer_given_offline_is_checked_once_back_online(new_page, student, language):
    question = questions_of(SLUG)[1]
    choice = question.choices.order_by("position").last()
    errors = []
    page = new_page()
    page.context.add_init_script(CSP_LISTENER)
    watched(page, errors)
    question_url = attempt_started(page, language)
    assert_nothing_kept_gives_the_answer_away(page, question, question_url)

    context = page.context
    status = answered_offline(page, choice)
    expect(status).to_have_text(said(SAVED, language))
    expect(page).to_have_url(question_url)
    expect(page.locator(f"#choice-{choice.pk}")).to_be_checked()
    expect(page.locator('main form.question button[type="submit"]')).to_be_disabled()
    assert not Answer.objects.exists()
    (queued,) = page.evaluate(QUEUED)
    assert (queued["question"], queued["choice"]) == (question.pk, choice.pk)
    assert page.evaluate("window.__cspViolations") == []

    # The tab is closed; the waiting answer is still there in a new one.
    page.close()
    page = context.new_page()
    watched(page, errors)
    page.goto(question_url)
    status = page.locator("main form.question .offline-status[role=status]")
    expect(status).to_have_text(said(SAVED, language))
    assert not Answer.objects.exists()

    context.set_offline(False)
    page.wait_for_url(re.compile(rf"/{language}/attempts/\d+/questions/1/#feedback$"), timeout=BACK_ONLINE_MS)
    expect(page.locator("#feedback")).to_be_visible()
    expect(page.locator("main section.question .choice.chosen")).to_have_count(1)
    expect(page.locator("main section.question .choice.chosen")).to_contain_text(
        localized(choice, "text", language).text
    )
    (answer,) = Answer.objects.all()
    assert (answer.question_id, answer.choice_id, answer.language) == (question.pk, choice.pk, language)
    assert page.evaluate(QUEUED) == []

    # The same answer sent again with its key (a reply lost on the way) is the same one answer.
    assert page.evaluate(SEND_AGAIN, queued) == [201, "true"]
    assert Answer.objects.count() == 1
    assert page.evaluate("window.__cspViolations") == []
    assert errors == []


def test_after_an_answer_nothing_kept_gives_the_next_one_away(page, student):
    questions = questions_of(SLUG)
    login(page, "en")
    page.goto(f"/en/quizzes/{SLUG}/")
    start_attempt(page, "en", SLUG)
    worker_ready(page)
    page.locator(f'label[for="choice-{questions[1].choices.first().pk}"]').click()
    page.locator('main form.question button[type="submit"]').click()
    page.wait_for_url(re.compile(r"/en/attempts/\d+/questions/1/#feedback$"))
    page.locator('main .actions a[href$="/questions/2/"]').click()
    page.wait_for_url(re.compile(r"/en/attempts/\d+/questions/2/$"))
    worker_ready(page)

    # The first question's feedback is kept (its answer is recorded); nothing of the second's.
    kept = {entry["url"]: entry["body"] for entry in page.evaluate(CACHE_ENTRIES)}
    assert 'id="feedback"' in kept[page.url.replace("/questions/2/", "/questions/1/")]
    assert_nothing_kept_gives_the_answer_away(page, questions[2], page.url)


def test_logging_out_drops_the_pages_kept(page, student):
    login(page, "ur")
    page.goto(f"/ur/quizzes/{SLUG}/")
    start_attempt(page, "ur", SLUG)
    worker_ready(page)

    page.locator("header .account-menu summary").click()
    page.locator('header form.account button[type="submit"]').click()
    page.wait_for_url(re.compile(r"/ur/accounts/login/$"))

    # The login page's stylesheet may be kept again: no one's page is.
    assert [entry["url"] for entry in page.evaluate(CACHE_ENTRIES) if "/static/" not in entry["url"]] == []


def test_an_answer_whose_session_ended_waits_for_the_student_to_log_in_again(new_page, student):
    """The session ends while the answer waits: the page asks to log in, and after it the answer is sent."""
    language = "id"
    question = questions_of(SLUG)[1]
    choice = question.choices.order_by("position").first()
    errors = []
    page = new_page()
    watched(page, errors)
    question_url = attempt_started(page, language)

    context = page.context
    status = answered_offline(page, choice)
    expect(status).to_have_text(said(SAVED, language))
    context.clear_cookies()  # the session ends (it expired, or the phone dropped its cookies)
    new_page.expect(401, "/answers/")  # what the API says to an answer without a session
    context.set_offline(False)

    expect(status).to_have_text(f"{said(LOG_IN_AGAIN, language)} {said('Log in', language)}", timeout=BACK_ONLINE_MS)
    assert not Answer.objects.exists()
    assert len(page.evaluate(QUEUED)) == 1  # kept, not dropped

    status.get_by_role("link").click()
    page.wait_for_url(re.compile(rf"/{language}/accounts/login/\?next="))
    for field_id, value in (("id_username", student.username), ("id_password", DEFAULT_PASSWORD)):
        page.locator(f"#{field_id}").fill(value)
    page.locator("main form").get_by_role("button").click()
    # Back at the question, with the new session's token: the answer is sent and its feedback shown.
    page.wait_for_url(f"{question_url}#feedback")
    expect(page.locator("#feedback")).to_be_visible()
    (answer,) = Answer.objects.all()
    assert (answer.question_id, answer.choice_id, answer.language) == (question.pk, choice.pk, language)
    assert page.evaluate(QUEUED) == []
    assert errors == []
