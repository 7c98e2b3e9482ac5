"""LTI registrations in the admin, and the settings a framed tool needs."""

import json
import os
import subprocess
import sys

from django.urls import reverse
from lti_tool.models import LtiDeployment, LtiRegistration

from quizzes.models import LtiCourseLink
from tests.factories import UserFactory

COURSE = "memory-efficient-training"


def test_a_registration_page_shows_its_deployments_and_courses(client, course):
    registration = LtiRegistration.objects.create(
        name="Moodle",
        issuer="https://moodle.example.org",
        client_id="abc",
        auth_url="https://moodle.example.org/auth",
        token_url="https://moodle.example.org/token",
        keyset_url="https://moodle.example.org/certs",
    )
    LtiDeployment.objects.create(registration=registration, deployment_id="7", is_active=True)
    LtiCourseLink.objects.create(registration=registration, context_id="", course=course)
    client.force_login(UserFactory(username="admin-1", is_staff=True, is_superuser=True))
    page = client.get(reverse("admin:lti_tool_ltiregistration_change", args=[registration.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="deployments-0-deployment_id"' in html and 'value="7"' in html
    assert "a platform context id, or blank" in html and f'<option value="{course.pk}" selected>' in html


def _settings_with(env: dict) -> dict:
    script = (
        "import json, django; django.setup(); from django.conf import settings as s; "
        "print(json.dumps([s.SESSION_COOKIE_SAMESITE, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SAMESITE, "
        "s.CONTENT_SECURITY_POLICY['DIRECTIVES']['frame-ancestors'], "
        "'django.middleware.clickjacking.XFrameOptionsMiddleware' in s.MIDDLEWARE]))"
    )
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "lms.settings", "DJANGO_SECRET_KEY": "x" * 60, **env}
    output = subprocess.run([sys.executable, "-c", script], env=environment, capture_output=True, text=True, check=True)
    return json.loads(output.stdout)


def test_framing_platforms_get_samesite_none_cookies_and_frame_ancestors():
    framed = _settings_with({"LTI_FRAME_ANCESTORS": "https://moodle.example.org,https://canvas.example.org"})
    assert framed == [
        "None",
        True,
        "None",
        ["'self'", "https://moodle.example.org", "https://canvas.example.org"],
        False,
    ]
    default = _settings_with({"LTI_FRAME_ANCESTORS": ""})
    assert default == ["Lax", True, "Lax", ["'none'"], True]
