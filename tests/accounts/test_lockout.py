"""The login lockout (django-axes, quizzes/accounts/lockout.py): web, admin and API token.

Five wrong passwords for one username from one address lock that username out
from that address for 15 minutes; from anywhere else it still logs in.
"""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from axes.models import AccessAttempt
from django.contrib.auth import BACKEND_SESSION_KEY
from django.test import Client, RequestFactory
from django.utils import translation
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from quizzes.accounts.lockout import last_try_warning, lockout_message
from tests.common.test_security import production_env, production_settings, run_manage
from tests.factories import DEFAULT_PASSWORD, UserFactory

LOGIN_URL = "/en/accounts/login/"
ADMIN_LOGIN_URL = "/en/admin/login/"
TOKEN_URL = "/api/v1/auth/token/"
COOL_OFF = 900
WRONG = "wrong password"


@pytest.fixture
def production_limits(settings):
    """The production lockout (the test settings put it out of reach)."""
    settings.AXES_FAILURE_LIMIT = 5
    settings.AXES_COOLOFF_TIME = timedelta(seconds=COOL_OFF)


@pytest.fixture
def clock():
    """The time, still unless the test moves it (axes reads django.utils.timezone.now())."""
    with time_machine.travel(datetime(2026, 12, 1, 9, 0, tzinfo=UTC), tick=False) as traveller:
        yield traveller


@pytest.fixture
def alice(db):
    return UserFactory(username="alice")


def web_login(username="alice", password=DEFAULT_PASSWORD, *, ip="10.0.0.1", url=LOGIN_URL, **extra):
    return Client(REMOTE_ADDR=ip, **extra).post(url, {"username": username, "password": password})


def token_login(username="alice", password=DEFAULT_PASSWORD, *, ip="10.0.0.1", **extra):
    return APIClient(REMOTE_ADDR=ip, **extra).post(
        TOKEN_URL, {"username": username, "password": password}, format="json"
    )


def assert_logged_in(response):
    assert response.status_code == 302, response.status_code
    assert "_auth_user_id" in response.wsgi_request.session


def assert_refused(response, wait: int = COOL_OFF) -> None:
    """The 429 page, with Retry-After and the minutes to wait; not logged in."""
    assert response.status_code == 429, response.status_code
    assert response["Retry-After"] == str(wait)
    assert "_auth_user_id" not in response.wsgi_request.session
    assert lockout_message(wait) in response.content.decode()


def assert_token_refused(response, wait: int = COOL_OFF) -> None:
    assert response.status_code == 429, response.content
    assert response.json() == {"detail": lockout_message(wait), "code": "throttled"}
    assert response["Retry-After"] == str(wait)


def fail(times: int, username="alice", **kwargs) -> None:
    """Wrong passwords that do not lock yet: the form again, with its error."""
    for _ in range(times):
        response = web_login(username, WRONG, **kwargs)
        assert response.status_code == 200, response.status_code


# The web login ------------------------------------------------------------------------


def test_five_wrong_passwords_lock_the_username_out_from_that_address(production_limits, alice, clock):
    fail(4)

    assert_refused(web_login(password=WRONG))  # the fifth says so at once
    assert_refused(web_login())  # the right password too
    assert_refused(web_login(password=WRONG))


@pytest.mark.parametrize("language", ["en", "ur"])
def test_the_fourth_failure_warns_that_one_more_locks_the_account(production_limits, alice, clock, language):
    login_url = f"/{language}/accounts/login/"
    with translation.override(language):
        warning = last_try_warning(RequestFactory().get(login_url))
    for number in range(1, 4):
        page = web_login(password=WRONG, url=login_url).content.decode()
        assert warning not in page, number
    page = web_login(password=WRONG, url=login_url).content.decode()
    assert warning in page
    assert "15" in warning  # the cool-off's minutes
    # The fifth locks it; the lockout page says when to try again and leads back to the login.
    locked = web_login(password=WRONG, url=login_url)
    assert locked.status_code == 429
    assert f'href="{login_url}"' in locked.content.decode()


@pytest.mark.parametrize("language", ["en", "ur"])
def test_the_admin_login_warns_too(production_limits, db, clock, language):
    UserFactory(username="admin-alice", is_staff=True)
    login_url = f"/{language}/admin/login/"
    with translation.override(language):
        warning = last_try_warning(RequestFactory().get(login_url))
    for number in range(1, 4):
        page = web_login("admin-alice", WRONG, url=login_url).content.decode()
        assert warning not in page, number
    page = web_login("admin-alice", WRONG, url=login_url)
    assert page.status_code == 200
    errors = [note for note in page.content.decode().split('class="errornote"')[1:]]
    assert len(errors) == 2 and warning in errors[1]  # the wrong password, then the warning


def test_a_right_password_refused_for_another_reason_warns_not(production_limits, db, clock):
    """A student's right password at the admin login is refused (not staff) but was no failure."""
    UserFactory(username="not-staff")
    fail(4, username="not-staff")  # one more failure would lock it
    with translation.override("en"):
        warning = last_try_warning(RequestFactory().get(ADMIN_LOGIN_URL))
    page = web_login("not-staff", DEFAULT_PASSWORD, url=ADMIN_LOGIN_URL).content.decode()
    assert "errornote" in page and warning not in page


def test_four_wrong_passwords_are_not_enough(production_limits, alice, clock):
    fail(4)

    assert_logged_in(web_login())


def test_the_same_username_from_another_address_still_logs_in(production_limits, alice, clock):
    fail(4)
    assert_refused(web_login(password=WRONG))

    assert_logged_in(web_login(ip="10.0.0.2"))
    assert_refused(web_login())  # and the locked address is still locked


def test_a_username_is_counted_per_address(production_limits, alice, clock):
    """Nobody can lock a student out from elsewhere: failures from many addresses never add up."""
    for number in range(20):
        fail(1, ip=f"10.0.1.{number}")

    assert_logged_in(web_login(ip="10.0.2.1"))


def test_other_usernames_from_a_locked_address_still_log_in(production_limits, alice, clock):
    """No lockout of a whole address: a school's shared address keeps working for everyone else."""
    bob = UserFactory(username="bob")
    fail(4)
    assert_refused(web_login(password=WRONG))
    for number in range(30):
        fail(1, username=f"guess-{number}")

    assert_logged_in(web_login(bob.username))


def test_the_lockout_ends_after_the_cool_off(production_limits, alice, clock):
    fail(4)
    assert_refused(web_login(password=WRONG))

    clock.shift(COOL_OFF - 61)
    assert_refused(web_login(), wait=61)  # "2 minutes"
    clock.shift(60)
    assert_refused(web_login(), wait=1)  # trying again while locked out does not extend it
    clock.shift(1.5)
    assert_logged_in(web_login())


def test_failures_further_apart_than_the_cool_off_do_not_add_up(production_limits, alice, clock):
    fail(4)
    clock.shift(COOL_OFF + 1)
    fail(4)

    assert_logged_in(web_login())


def test_a_success_resets_the_count(production_limits, alice, clock):
    fail(4)
    assert_logged_in(web_login())
    fail(4)

    assert_logged_in(web_login())
    assert not AccessAttempt.objects.exists()


def test_the_refusal_page_is_in_the_page_language(production_limits, alice, clock, parse_html):
    fail(4)

    response = web_login(url="/ur/accounts/login/", password=WRONG)

    assert response.status_code == 429
    html = parse_html(response)
    assert (html.one("html")["lang"], html.one("html")["dir"]) == ("ur", "rtl")
    with translation.override("ur"):
        message = lockout_message(COOL_OFF)
    with translation.override("en"):
        assert message != lockout_message(COOL_OFF)  # translated, not the English text
    assert html.one("div", class_="alert", role="alert").text == message
    assert_refused(web_login(url="/ur/accounts/login/"))  # the right password, still refused, in Urdu
    assert message in web_login(url="/ur/accounts/login/").content.decode()


def test_the_admin_login_locks_too(production_limits, db, clock):
    UserFactory(username="admin-alice", is_staff=True)
    for _ in range(4):
        assert web_login("admin-alice", WRONG, url=ADMIN_LOGIN_URL).status_code == 200

    assert_refused(web_login("admin-alice", WRONG, url=ADMIN_LOGIN_URL))
    assert_refused(web_login("admin-alice", url=ADMIN_LOGIN_URL))
    assert_refused(web_login("admin-alice", url=LOGIN_URL))  # one count for every way in


def test_the_address_behind_the_proxy_is_the_one_counted(production_limits, settings, alice, clock):
    assert settings.REST_FRAMEWORK["NUM_PROXIES"] == 1  # the production default
    proxy = {"ip": "10.0.0.9"}
    fail(4, HTTP_X_FORWARDED_FOR="192.0.2.1", **proxy)
    assert_refused(web_login(password=WRONG, HTTP_X_FORWARDED_FOR="192.0.2.1", **proxy))

    # The proxy appends the address it saw; a client's own X-Forwarded-For stays on the left.
    assert_refused(web_login(HTTP_X_FORWARDED_FOR="198.51.100.7, 192.0.2.1", **proxy))
    # Another client behind the same proxy.
    assert_logged_in(web_login(HTTP_X_FORWARDED_FOR="192.0.2.2", **proxy))
    assert_logged_in(web_login(HTTP_X_FORWARDED_FOR="192.0.2.1, 192.0.2.2", **proxy))


def test_x_forwarded_for_is_not_trusted_without_proxies(production_limits, settings, alice, clock):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 0}
    for number in range(4):
        fail(1, ip="10.0.0.9", HTTP_X_FORWARDED_FOR=f"192.0.2.{number}")

    assert_refused(web_login(password=WRONG, ip="10.0.0.9", HTTP_X_FORWARDED_FOR="192.0.2.200"))


def test_a_forwarded_address_that_is_no_address_is_no_error(production_limits, alice, clock):
    """A request that did not come through the proxy can put anything in X-Forwarded-For; axes
    stores the address in an address column (PostgreSQL: inet)."""
    fail(2, HTTP_X_FORWARDED_FOR="not-an-address")

    assert list(AccessAttempt.objects.values_list("ip_address", "failures_since_start")) == [(None, 2)]
    assert_logged_in(web_login(HTTP_X_FORWARDED_FOR="not-an-address"))


def test_failures_sent_with_a_nul_in_their_headers_are_counted_not_an_error(production_limits, alice, clock):
    """axes records the User-Agent, Accept and query of a failure; PostgreSQL refuses a NUL in text."""
    headers = {"HTTP_USER_AGENT": "bot\x00", "HTTP_ACCEPT": "\x00/\x00"}
    fail(4, url=f"{LOGIN_URL}?next=%00", **headers)

    assert_refused(web_login(password=WRONG, url=f"{LOGIN_URL}?next=%00", **headers))
    assert_refused(web_login(**headers))
    attempt = AccessAttempt.objects.get()
    assert (attempt.user_agent, attempt.http_accept) == ("bot0x00", "0x00/0x00")
    assert "\x00" not in attempt.get_data


def test_a_stored_failure_keeps_neither_password_nor_csrf_token(production_limits, alice, clock):
    data = {"username": "alice", "password": "hunter2-secret", "csrfmiddlewaretoken": "csrf-secret"}
    assert Client(REMOTE_ADDR="10.0.0.1").post(LOGIN_URL, data).status_code == 200

    attempt = AccessAttempt.objects.get()
    assert (attempt.username, attempt.ip_address, attempt.failures_since_start) == ("alice", "10.0.0.1", 1)
    assert "hunter2-secret" not in attempt.post_data
    assert "csrf-secret" not in attempt.post_data


def test_the_session_reads_its_user_through_the_statement_backend(alice, clock):
    client = Client(REMOTE_ADDR="10.0.0.1")
    response = client.post(LOGIN_URL, {"username": "alice", "password": DEFAULT_PASSWORD})

    assert response.wsgi_request.session[BACKEND_SESSION_KEY] == "quizzes.accounts.backends.StatementModelBackend"
    assert client.get("/en/").wsgi_request.user == alice


def test_the_test_limits_are_out_of_reach(alice):
    fail(30)

    assert_logged_in(web_login())


# The API token endpoint ----------------------------------------------------------------


def test_token_locks_after_five_failures_even_with_the_right_password(production_limits, alice, clock):
    for _ in range(4):
        assert token_login(password=WRONG).status_code == 400

    assert_token_refused(token_login(password=WRONG))
    assert_token_refused(token_login())
    assert not Token.objects.filter(user=alice).exists()
    assert token_login(ip="10.0.0.2").status_code == 200  # from another address


def test_token_is_given_again_after_the_cool_off(production_limits, alice, clock):
    for _ in range(5):
        token_login(password=WRONG)
    clock.shift(COOL_OFF - 30)
    assert_token_refused(token_login(), wait=30)
    clock.shift(31)

    assert token_login().status_code == 200


def test_token_success_resets_the_count(production_limits, alice, clock):
    for _ in range(4):
        token_login(password=WRONG)
    assert token_login().status_code == 200
    for _ in range(4):
        token_login(password=WRONG)

    assert token_login().status_code == 200


def test_web_and_api_failures_add_up(production_limits, alice, clock):
    fail(3)
    for _ in range(2):
        token_login(password=WRONG)

    assert_token_refused(token_login())
    assert_refused(web_login())


@pytest.mark.parametrize("language", ["ur", "id"])
def test_token_refusal_is_in_the_request_language(production_limits, alice, clock, language):
    for _ in range(5):
        token_login(password=WRONG)

    response = token_login(HTTP_ACCEPT_LANGUAGE=language)

    with translation.override(language):
        message = lockout_message(COOL_OFF)
    with translation.override("en"):
        assert message != lockout_message(COOL_OFF)
    assert response.status_code == 429
    assert response.json() == {"detail": message, "code": "throttled"}


def test_token_username_longer_than_any_is_invalid_input(production_limits, alice, clock):
    """Not a lockout count: no username is that long, and axes' column holds 255 characters."""
    response = token_login("a" * 300, WRONG)

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert not AccessAttempt.objects.exists()


# Configuration -----------------------------------------------------------------------


def test_production_lockout_settings_from_env():
    values = production_settings(DJANGO_LOGIN_LOCKOUT_FAILURES="8", DJANGO_LOGIN_LOCKOUT_COOLOFF="3600")

    assert (values["AXES_FAILURE_LIMIT"], values["AXES_COOLOFF_TIME"]) == (8, "1:00:00")


def test_the_old_login_throttle_variables_are_refused():
    result = run_manage("check", env=production_env(DJANGO_LOGIN_THROTTLE_IP_FAILURES="20"))

    assert result.returncode != 0
    assert "DJANGO_LOGIN_THROTTLE_IP_FAILURES: no longer read" in result.stderr
    assert "DJANGO_LOGIN_LOCKOUT_FAILURES" in result.stderr
