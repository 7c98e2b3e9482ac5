"""The staff reports and tools are reachable from the admin home and the quiz
list, each shown only to staff whose permissions open it."""

import pytest
from django.urls import reverse

from quizzes.models import Quiz
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

STATISTICS = reverse("staff:statistics_index")
GRADEBOOK = reverse("staff:gradebook_courses")
ENROLL = reverse("staff:enroll_bulk")


def admin_home(client, user, language="en"):
    client.force_login(user)
    response = client.get(f"/{language}/admin/")
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("actor", ["editor", "teacher"])
def test_the_admin_home_links_every_report_and_tool(client, actor, request):
    html = admin_home(client, request.getfixturevalue(actor))
    assert "Reports and tools" in html
    for url in (STATISTICS, GRADEBOOK, ENROLL):
        assert f'href="{url}"' in html
        # ... and each link opens for this actor.
        assert client.get(url).status_code == 200


def test_staff_without_permissions_see_no_tools(client, db):
    html = admin_home(client, UserFactory(username="bare-staff", is_staff=True))
    assert "Reports and tools" not in html
    for url in (STATISTICS, GRADEBOOK, ENROLL):
        assert url not in html


def test_the_urdu_admin_home_links_the_urdu_pages(client, editor):
    html = admin_home(client, editor, "ur")
    assert 'href="/ur/admin/reports/statistics/"' in html


def test_the_quiz_list_links_each_quiz_statistics(client, editor, content):
    client.force_login(editor)
    html = client.get(reverse("admin:quizzes_quiz_changelist")).content.decode()
    for quiz in Quiz.objects.all():
        assert f'href="{reverse("staff:quiz_statistics", args=[quiz.pk])}"' in html
