"""The question page's time left in a real browser, in English and in Urdu (right to left).

With JavaScript, quizzes/static/quizzes/countdown.js counts down from the server's clock, not
the browser's (the browser here is an hour behind), tells a screen reader the time left at
its intervals only, says when the time is up and, once the grace has passed, reloads: the
server finishes the attempt and shows its result. Without JavaScript the page says the
deadline's clock time. Both clocks are the test's: the server's is time-machine's, the
browser's Playwright's (``page.clock``), so nothing waits for real time to pass.
"""

import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.test import Client
from django.utils.translation import ngettext, override

from common.dates import local_datetime, local_time
from quizzes.attempts.deadlines import attempt_deadlines_recompute, quiz_override_save
from quizzes.attempts.services import attempt_start
from quizzes.models import Attempt, Quiz, QuizOverride
from quizzes.web.timing import POLL_SECONDS, TIME_IS_UP, TIME_LEFT_UNTIL, TIME_RAN_OUT
from tests.browser.conftest import expect
from tests.browser.test_accessibility import assert_no_serious_violations

SLUG = "gradient-checkpointing"
LIMIT = timedelta(minutes=2)
GRACE = timedelta(seconds=15)
DIRECTION = {"en": "ltr", "ur": "rtl"}
# CSP violations reach no console message: collected as they happen.
CSP_LISTENER = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


# The browser's clock runs from its install until it is paused: far enough ahead that a slow
# machine has not passed it already (Playwright refuses to pause in the past).
PAUSE_AFTER = timedelta(seconds=10)


@pytest.fixture
def server_clock(settings):
    """The server's clock, still at 09:00 today, until the test moves it."""
    settings.ATTEMPT_DEADLINE_GRACE = GRACE
    now = datetime.now(UTC).replace(hour=9, minute=0, second=0, microsecond=0)
    with time_machine.travel(now, tick=False) as traveller:
        yield traveller, now


@pytest.fixture
def attempt(server_clock, student) -> Attempt:
    quiz = Quiz.objects.get(slug=SLUG)
    quiz.time_limit = LIMIT
    quiz.save()
    attempt, _created = attempt_start(user=student, quiz=quiz)
    return attempt


def signed_in(new_page, live_server, user, **context_options):
    client = Client()
    client.force_login(user)
    page = new_page(**context_options)
    cookie = {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}
    page.context.add_cookies([cookie])
    return page


def said(message, language: str) -> str:
    with override(language):
        return str(message)


def minutes_left(minutes: int, language: str) -> str:
    with override(language):
        return ngettext("%(minutes)s minute left.", "%(minutes)s minutes left.", minutes) % {"minutes": minutes}


def seconds_left(seconds: int, language: str) -> str:
    with override(language):
        return ngettext("%(seconds)s second left.", "%(seconds)s seconds left.", seconds) % {"seconds": seconds}


@pytest.mark.parametrize("language", ["en", "ur"])
def test_the_countdown_runs_on_the_servers_clock_announces_and_ends_the_attempt(
    new_page, live_server, student, attempt, server_clock, language
):
    traveller, now = server_clock
    page = signed_in(new_page, live_server, student)
    page.context.add_init_script(CSP_LISTENER)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    browser_now = now - timedelta(hours=1)  # the browser's clock is wrong: the server's decides
    page.clock.install(time=browser_now)
    page.clock.pause_at(browser_now + PAUSE_AFTER)
    page.goto(f"/{language}/attempts/{attempt.pk}/questions/1/")
    expect(page.locator("html")).to_have_attribute("dir", DIRECTION[language])

    timer = page.locator(".time-left [role=timer]")
    announcer = page.locator(".time-left .countdown-announcer")
    expect(page.locator(".time-left-static")).to_be_hidden()
    expect(timer).to_be_visible()
    expect(timer).to_have_text("02:00")
    expect(announcer).to_have_attribute("aria-live", "polite")
    expect(announcer).to_have_text("")  # nothing is said on load
    if language == "ur":  # the label reads first, on the right
        label = page.locator(".time-left-live > span").first
        assert label.bounding_box()["x"] > timer.bounding_box()["x"]

    page.clock.fast_forward(1_000)
    expect(timer).to_have_text("01:59")
    expect(announcer).to_have_text("")  # not every second

    page.clock.fast_forward("00:59")
    expect(timer).to_have_text("01:00")
    expect(announcer).to_have_text(minutes_left(1, language))

    page.clock.fast_forward("00:31")
    expect(timer).to_have_text("00:29")
    expect(announcer).to_have_text(seconds_left(30, language))

    page.clock.fast_forward("00:29")
    expect(timer).to_have_text(said(TIME_IS_UP, language))
    expect(announcer).to_have_text(said(TIME_IS_UP, language))
    assert page.url.endswith(f"/{language}/attempts/{attempt.pk}/questions/1/")  # the grace still runs

    # Past the grace on both clocks: the page reloads, and the server finishes the attempt.
    traveller.move_to(now + LIMIT + GRACE + timedelta(seconds=2))
    page.clock.fast_forward("00:17")
    page.wait_for_url(re.compile(rf"/{language}/attempts/{attempt.pk}/result/$"))
    with override(language):
        message = str(TIME_RAN_OUT % {"time": local_datetime(attempt.deadline)})
    expect(page.locator("main .messages .message")).to_have_text(message)
    attempt.refresh_from_db()
    assert attempt.is_finished
    assert page.evaluate("window.__cspViolations") == []
    assert errors == []


@pytest.mark.parametrize("language", ["en", "ur"])
def test_without_javascript_the_page_says_the_deadlines_clock_time(new_page, live_server, student, attempt, language):
    page = signed_in(new_page, live_server, student, java_script_enabled=False)
    page.goto(f"/{language}/attempts/{attempt.pk}/questions/1/")
    expect(page.locator("html")).to_have_attribute("dir", DIRECTION[language])
    with override(language):
        expected = str(TIME_LEFT_UNTIL % {"time": local_time(attempt.deadline)})
    expect(page.locator(".time-left-static")).to_be_visible()
    expect(page.locator(".time-left-static")).to_have_text(expected)
    expect(page.locator(".time-left-live")).to_be_hidden()
    # The question can still be answered: the countdown is an addition, not a requirement.
    expect(page.locator('main form.question button[type="submit"]')).to_be_visible()


@pytest.mark.parametrize("language", ["en", "ur"])
def test_the_running_countdown_has_no_serious_axe_violations(new_page, live_server, student, attempt, language):
    page = signed_in(new_page, live_server, student)
    page.goto(f"/{language}/attempts/{attempt.pk}/questions/1/")
    expect(page.locator(".time-left [role=timer]")).to_have_text(re.compile(r"\S+:\S+"))
    assert_no_serious_violations(page)


def counting_down(new_page, live_server, student, attempt, now, language):
    """The question page open at ``now`` (the browser's clock stopped a little later), and its timer."""
    page = signed_in(new_page, live_server, student)
    page.clock.install(time=now)
    page.clock.pause_at(now + PAUSE_AFTER)
    page.goto(f"/{language}/attempts/{attempt.pk}/questions/1/")
    timer = page.locator(".time-left [role=timer]")
    expect(timer).to_have_text("02:00")
    return page, timer


@pytest.mark.parametrize("language", ["en", "ur"])
def test_an_open_page_follows_a_teachers_extension_without_a_reload(
    new_page, live_server, student, attempt, server_clock, language
):
    """The countdown asks for the deadline as it runs: a teacher's extra ten minutes reach the
    open page within the poll's interval, and at what was zero the page does not say the time
    is up."""
    traveller, now = server_clock
    page, timer = counting_down(new_page, live_server, student, attempt, now, language)
    page.evaluate("window.__loaded = true")  # gone if the page reloads

    quiz_override_save(override=QuizOverride(quiz=attempt.quiz, user=student, time_limit=LIMIT + timedelta(minutes=10)))
    page.clock.fast_forward(POLL_SECONDS * 1000)
    expect(timer).to_have_text("11:30")

    page.clock.fast_forward("01:40")  # past the old deadline and its grace
    expect(timer).to_have_text("09:50")
    assert page.evaluate("window.__loaded") is True
    assert page.url.endswith(f"/{language}/attempts/{attempt.pk}/questions/1/")
    traveller.move_to(now + timedelta(minutes=2, seconds=10))
    attempt.refresh_from_db()
    assert attempt.deadline == now + timedelta(minutes=12) and not attempt.is_finished


@pytest.mark.parametrize("language", ["en", "ur"])
def test_an_open_page_of_a_quiz_closed_early_ends_without_a_reload_by_hand(
    new_page, live_server, student, attempt, server_clock, language
):
    traveller, now = server_clock
    page, _timer = counting_down(new_page, live_server, student, attempt, now, language)

    quiz = attempt.quiz
    quiz.closes_at = now + timedelta(seconds=20)
    quiz.save(update_fields=["closes_at"])
    attempt_deadlines_recompute(quiz_ids=[quiz.pk])
    page.clock.fast_forward(POLL_SECONDS * 1000)  # the poll: 20 s, then zero, past the grace
    traveller.move_to(now + timedelta(seconds=20) + GRACE + timedelta(seconds=2))
    page.clock.fast_forward("00:20")
    page.wait_for_url(re.compile(rf"/{language}/attempts/{attempt.pk}/result/$"))
    attempt.refresh_from_db()
    assert attempt.is_finished
