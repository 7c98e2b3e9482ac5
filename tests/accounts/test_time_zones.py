"""Each user's time zone (quizzes/accounts/time_zones.py): chosen on a page, stored in their
preferences, copied into the session at login, and activated from there on every page with no
query of its own."""

from datetime import UTC, datetime

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client, RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import override

from common.dates import local_datetime
from quizzes.accounts.services import UNKNOWN_TIME_ZONE, time_zone_names
from quizzes.accounts.time_zone_choices import offered_zones
from quizzes.accounts.time_zones import SESSION_KEY, TIME_ZONE_SAVED, TimeZoneMiddleware
from quizzes.models import UserPreferences
from tests.factories import DEFAULT_PASSWORD, AttemptFactory

KARACHI = "Asia/Karachi"
# 20:00 UTC on the 20th: 01:00 on the 21st in Karachi (UTC+5, no summer time).
STARTED = datetime(2026, 11, 20, 20, 0, tzinfo=UTC)


def page_url(language: str = "en") -> str:
    with override(language):
        return reverse("time_zone")


def words(text) -> str:
    return " ".join(str(text).split())


def active_during(session: dict) -> tuple[str, str]:
    """(the active zone's name, a date written by common.dates) inside a request with ``session``."""
    request = RequestFactory().get("/en/")
    request.session = session
    seen = {}

    def view(request):
        seen["zone"] = timezone.get_current_timezone_name()
        seen["date"] = local_datetime(STARTED)
        return "response"

    assert TimeZoneMiddleware(view)(request) == "response"
    return seen["zone"], seen["date"]


class TestMiddleware:
    def test_activates_the_sessions_zone(self):
        zone, written = active_during({SESSION_KEY: KARACHI})
        assert zone == KARACHI
        assert written.endswith("PKT") and "Nov. 21, 2026" in written
        assert timezone.get_current_timezone_name() == settings.TIME_ZONE  # and only for the request

    @pytest.mark.parametrize("session", [{}, {SESSION_KEY: ""}, {SESSION_KEY: "Mars/Olympus_Mons"}])
    def test_the_site_default_otherwise(self, session):
        assert active_during(session)[0] == settings.TIME_ZONE

    def test_it_is_in_the_settings_after_authentication(self):
        middleware = settings.MIDDLEWARE
        ours = middleware.index("quizzes.accounts.time_zones.TimeZoneMiddleware")
        assert ours == middleware.index("django.contrib.auth.middleware.AuthenticationMiddleware") + 1

    def test_no_query_of_its_own(self, student, gc_quiz):
        """The dashboard costs the same with a zone in the session as without."""
        UserPreferences.objects.create(user=student, time_zone=KARACHI)
        counts = []
        for zone in (None, KARACHI):
            client = Client()
            client.force_login(student)
            session = client.session
            if zone is None:
                session.pop(SESSION_KEY, None)
            session.save()
            client.get(reverse("quizzes:dashboard"))
            with CaptureQueriesContext(connection) as queries:
                assert client.get(reverse("quizzes:dashboard")).status_code == 200
            counts.append(len(queries))
        assert counts[0] == counts[1]


class TestLogin:
    def test_the_login_copies_the_chosen_zone(self, student):
        UserPreferences.objects.create(user=student, time_zone=KARACHI)
        client = Client()
        response = client.post(reverse("login"), {"username": student.username, "password": DEFAULT_PASSWORD})
        assert response.status_code == 302
        assert client.session[SESSION_KEY] == KARACHI

    def test_no_zone_chosen_no_zone_in_the_session(self, student):
        client = Client()
        client.post(reverse("login"), {"username": student.username, "password": DEFAULT_PASSWORD})
        assert "_auth_user_id" in client.session
        assert SESSION_KEY not in client.session

    def test_an_empty_choice_is_the_site_default(self, student):
        UserPreferences.objects.create(user=student, time_zone="")
        client = Client()
        client.force_login(student)
        assert SESSION_KEY not in client.session


class TestPage:
    def test_the_form(self, student_client, parse_html):
        response = student_client.get(page_url())
        assert response.status_code == 200
        select = parse_html(response).one("select", name="time_zone")
        options = [option["value"] for option in select.find_all("option")]
        assert sorted(options) == list(offered_zones())
        assert set(options) <= set(time_zone_names())  # every one offered may be saved
        assert KARACHI in options and "UTC" in options
        # The tz database's places, not its obsolete aliases.
        assert "Africa/Asmara" in options and "Africa/Asmera" not in options and "US/Pacific" not in options
        assert [option["value"] for option in select.find_all("option", selected=True)] == [settings.TIME_ZONE]
        # By region, UTC first.
        assert [group["label"] for group in select.find_all("optgroup")][:3] == ["UTC", "Africa", "The Americas"]

    @pytest.mark.parametrize(
        ("language", "expected"),
        [("en", "Pakistan Time"), ("ur", "پاکستان وقت"), ("id", "Waktu Pakistan"), ("sn", "Pakistan")],
    )
    def test_places_are_named_in_the_page_language(self, student_client, parse_html, language, expected):
        page = parse_html(student_client.get(f"/{language}/account/time-zone/"))
        karachi = page.one("option", value=KARACHI)
        assert karachi.text.startswith(expected) and "UTC+05:00" in karachi.text

    def test_nothing_chosen_yet_proposes_the_phones_zone_and_a_choice_stops_it(self, student_client, parse_html):
        proposal = parse_html(student_client.get(page_url())).one("p", class_="device-zone")
        assert "%(zone)s" in proposal["data-propose"]  # filled by time-zone.js with the phone's zone
        student_client.post(page_url(), {"time_zone": KARACHI})
        assert "data-propose" not in parse_html(student_client.get(page_url())).one("p", class_="device-zone").attrs

    def test_linked_from_every_page(self, student_client, parse_html):
        page = parse_html(student_client.get(reverse("quizzes:dashboard")))
        assert page.one("a", class_="time-zone")["href"] == page_url()

    def test_choosing_a_zone(self, student, student_client, parse_html):
        response = student_client.post(page_url(), {"time_zone": KARACHI})
        assert response.status_code == 302 and response["Location"] == page_url()
        assert UserPreferences.objects.get(user=student).time_zone == KARACHI
        assert student_client.session[SESSION_KEY] == KARACHI
        page = parse_html(student_client.get(page_url()))
        assert words(page.one("div", class_="messages").text) == words(TIME_ZONE_SAVED % {"zone": KARACHI})
        assert [o["value"] for o in page.one("select").find_all("option", selected=True)] == [KARACHI]

    def test_choosing_again_updates_the_same_row(self, student, student_client):
        student_client.post(page_url(), {"time_zone": KARACHI})
        student_client.post(page_url(), {"time_zone": "Africa/Harare"})
        assert list(UserPreferences.objects.filter(user=student).values_list("time_zone", flat=True)) == [
            "Africa/Harare"
        ]

    @pytest.mark.parametrize("language", ["en", "ur"])
    @pytest.mark.parametrize("zone", ["Mars/Olympus_Mons", "", "asia/karachi", "<b>UTC</b>"])
    def test_an_unknown_zone_is_refused(self, student, student_client, parse_html, language, zone):
        response = student_client.post(page_url(language), {"time_zone": zone})
        assert response.status_code == 400
        with override(language):
            expected = words(UNKNOWN_TIME_ZONE % {"zone": zone or "—"})
        page = parse_html(response)
        assert words(page.one("div", class_="alert").text) == expected
        assert page.one("html")["lang"] == language
        assert b"<b>UTC</b>" not in response.content  # escaped
        assert not UserPreferences.objects.filter(user=student).exists()
        assert SESSION_KEY not in student_client.session

    def test_log_in_first(self, db):
        response = Client().get(page_url())
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


class TestDatesOnAPage:
    def test_the_quiz_page_writes_dates_in_the_chosen_zone(self, student, student_client, gc_quiz, parse_html):
        attempt = AttemptFactory(user=student, quiz=gc_quiz, number=1)
        type(attempt).objects.filter(pk=attempt.pk).update(started_at=STARTED)

        def started_cell() -> str:
            page = parse_html(student_client.get(reverse("quizzes:quiz", kwargs={"slug": gc_quiz.slug})))
            row = page.one("section", aria_labelledby="past-attempts").one("tbody").one("tr")
            return words(row.find_all("td")[0].text)

        assert started_cell().startswith("11/20/2026")
        student_client.post(page_url(), {"time_zone": KARACHI})
        assert started_cell().startswith("11/21/2026")
