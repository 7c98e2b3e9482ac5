"""Forgot your password: Django's reset, in the page's language, end to end with the e-mail read
from the test backend's outbox; no account enumeration; a link works once and expires."""

import re
from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.test import Client
from django.utils import timezone, translation

from tests.factories import DEFAULT_PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a-new-passphrase-for-amna-2026"


@pytest.fixture
def amna():
    return UserFactory(username="amna", email="amna@example.org")


def reset_link(message) -> str:
    found = re.search(r"https?://[^/\s]+(/\S+/accounts/reset/\S+/)", message.body)
    assert found, message.body
    return found.group(1)


def logs_in(password: str) -> bool:
    response = Client().post("/en/accounts/login/", {"username": "amna", "password": password})
    return response.status_code == 302


def said(text: str, language: str) -> str:
    with translation.override(language):
        return translation.gettext(text)


@pytest.mark.parametrize("language", ["en", "ur"])
def test_a_student_resets_a_forgotten_password(amna, language):
    client = Client()
    login = client.get(f"/{language}/accounts/login/").content.decode()
    assert f'href="/{language}/accounts/password-reset/"' in login

    response = client.post(f"/{language}/accounts/password-reset/", {"email": "amna@example.org"})
    assert response.status_code == 302 and response["Location"] == f"/{language}/accounts/password-reset/sent/"
    (message,) = mail.outbox
    assert message.to == ["amna@example.org"]
    with translation.override(language):
        assert message.subject == translation.gettext("A new password for %(site)s") % {"site": "testserver"}
    assert said("Hello %(name)s,", language) % {"name": "amna"} in message.body
    link = reset_link(message)
    assert link.startswith(f"/{language}/accounts/reset/")

    form = client.get(link, follow=True)  # Django moves the token into the session first
    assert form.status_code == 200 and b"new_password1" in form.content
    done = client.post(form.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert done["Location"] == f"/{language}/accounts/reset/done/"
    assert logs_in(NEW_PASSWORD) and not logs_in(DEFAULT_PASSWORD)

    # The link works once.
    again = Client().get(link, follow=True).content.decode()
    assert (
        said("This link does not work any more: it was used already, or it is too old. Ask for a new one.", language)
        in again
    )


def test_an_unknown_address_looks_the_same_and_sends_nothing(amna):
    known = Client().post("/en/accounts/password-reset/", {"email": "amna@example.org"})
    unknown = Client().post("/en/accounts/password-reset/", {"email": "nobody@example.org"})
    assert (unknown.status_code, unknown["Location"]) == (known.status_code, known["Location"])
    assert len(mail.outbox) == 1  # the known one's alone


def test_an_expired_link_is_refused(amna, settings):
    Client().post("/en/accounts/password-reset/", {"email": "amna@example.org"})
    link = reset_link(mail.outbox[0])
    with time_machine.travel(timezone.now() + timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT + 60)):
        page = Client().get(link, follow=True).content.decode()
    assert "This link does not work any more" in page
    assert "new_password1" not in page


def test_a_bad_address_is_refused_in_the_page_language(amna):
    page = Client().post("/ur/accounts/password-reset/", {"email": "not an address"}).content.decode()
    assert said("Enter a valid email address.", "ur") in page
    assert not mail.outbox
