"""The LTI tool against a loopback platform: configuration, registration, login and launch,
the user, enrollment, locale and grade target a launch writes, deep linking, and every refusal
writing nothing."""

import base64
import io
import json
from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.utils import timezone
from lti_tool.models import Key, LtiContext, LtiDeployment, LtiRegistration, LtiUser

from quizzes.accounts.roles import CONTENT_EDITORS, TEACHERS
from quizzes.models import Enrollment, LtiCourseLink, LtiGradeTarget, LtiNonce
from tests.integrations.lti_platform import INSTRUCTOR, LTI, LoopbackPlatform

COURSE = "memory-efficient-training"
QUIZ = "gradient-checkpointing"


@pytest.fixture
def platform(content):
    cache.clear()  # pylti1p3 keeps a platform's JWKS by its URL; each test's platform has its own key
    with LoopbackPlatform() as platform:
        platform.register(COURSE)
        yield platform


def counts():
    return (
        get_user_model().objects.count(),
        LtiUser.objects.count(),
        Enrollment.objects.count(),
        LtiGradeTarget.objects.count(),
        LtiContext.objects.count(),
    )


def test_a_launch_signs_in_enrols_and_opens_the_quiz(client, platform):
    response, _form = platform.launch(client, quiz=QUIZ)
    assert response.status_code == 302, response.content.decode()
    assert response["Location"] == f"/en/quizzes/{QUIZ}/"
    lti_user = LtiUser.objects.get()
    user = lti_user.auth_user
    assert (lti_user.sub, user.first_name, user.has_usable_password(), user.is_staff) == (
        "student-1",
        "Tendai",
        False,
        False,
    )
    assert Enrollment.objects.filter(user=user, course__slug=COURSE).exists()
    assert client.get(response["Location"]).status_code == 200
    target = LtiGradeTarget.objects.select_related("line_item").get()
    assert (target.quiz.slug, target.lti_user, target.line_item.url) == (
        QUIZ,
        lti_user,
        f"{platform.issuer}/courses/course-7/lineitems/1",
    )
    context = LtiContext.objects.get()
    assert context.memberships_url == f"{platform.issuer}/courses/course-7/memberships"


def test_a_second_launch_is_the_same_user(client, platform):
    platform.launch(client, quiz=QUIZ)
    before = counts()
    response, _form = platform.launch(client, quiz=QUIZ)
    assert response.status_code == 302
    assert counts() == before


@pytest.mark.parametrize(("locale", "language"), [("ur", "ur"), ("sn-ZW", "sn"), ("id_ID", "id"), ("fr-FR", "en")])
def test_the_quiz_opens_in_the_launch_locale(client, platform, locale, language):
    response, _form = platform.launch(client, quiz=QUIZ, locale=locale)
    assert response["Location"] == f"/{language}/quizzes/{QUIZ}/"


def test_a_course_not_connected_is_said_and_nothing_written(client, platform):
    LtiCourseLink.objects.all().delete()
    before = counts()
    response, _form = platform.launch(client, quiz=QUIZ)
    assert response.status_code == 403
    assert "Memory 101" in response.content.decode() and "not connected" in response.content.decode()
    assert counts() == before


def test_a_context_maps_to_its_own_course(client, platform, content):
    from quizzes.models import Course

    other = Course.objects.create(slug="other-course", title="Other")
    LtiCourseLink.objects.create(registration=LtiRegistration.objects.get(), context_id="course-7", course=other)
    response, _form = platform.launch(client)
    assert response["Location"] == "/en/"
    assert Enrollment.objects.get().course == other


def test_an_instructor_sees_the_reports_and_edits_nothing(client, platform):
    response, _form = platform.launch(client, quiz=QUIZ, sub="teacher-1", roles=(INSTRUCTOR,))
    assert response["Location"] == f"/en/admin/reports/gradebook/{COURSE}/"
    user = LtiUser.objects.get().auth_user
    assert user.is_staff and not user.is_superuser
    assert set(user.groups.values_list("name", flat=True)) == {TEACHERS}
    assert CONTENT_EDITORS not in user.groups.values_list("name", flat=True)
    assert not Enrollment.objects.exists()
    assert client.get(response["Location"]).status_code == 200


def _tampered(token: str) -> str:
    header, payload, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["sub"] = "someone-else"
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    return f"{header}.{forged}.{signature}"


@pytest.mark.parametrize(
    "refusal",
    [
        "tampered signature",
        "expired token",
        "unknown deployment",
        "inactive deployment",
        "wrong audience",
        "wrong authorized party",
        "state mismatch",
    ],
)
def test_refused_launches_write_nothing(client, platform, refusal):
    before = counts()
    options = {}
    if refusal == "tampered signature":
        options["tamper"] = _tampered
    elif refusal == "expired token":
        options.update(iat=1_700_000_000, exp=1_700_000_300)
    elif refusal == "unknown deployment":
        options[LTI + "deployment_id"] = "deployment-unknown"
    elif refusal == "inactive deployment":
        LtiDeployment.objects.update(is_active=False)
    elif refusal == "wrong audience":
        options.update(aud=["another-tool"], azp="another-tool")
    elif refusal == "wrong authorized party":
        options.update(aud=[platform.client_id, "another-tool"], azp="another-tool")
    if refusal == "state mismatch":
        login = platform.login(client)
        query = platform.authorize(login["Location"])
        token = platform.sign(platform.claims(query["nonce"], quiz=QUIZ))
        response = client.post("/lti/launch/", {"id_token": token, "state": "state-forged"})
    else:
        response, _form = platform.launch(client, quiz=QUIZ, **options)
    assert response.status_code == 403, response.content.decode()
    assert "refused" in response.content.decode()
    assert counts() == before
    assert "_auth_user_id" not in client.session


def test_a_replayed_id_token_is_refused(client, platform):
    response, form = platform.launch(client, quiz=QUIZ)
    assert response.status_code == 302
    before = counts()
    replay = client.post("/lti/launch/", form)
    assert replay.status_code == 403
    assert "already used" in replay.content.decode()
    assert counts() == before
    assert not LtiNonce.objects.exists()


def test_a_nonce_the_tool_never_issued_is_refused(client, platform):
    login = platform.login(client)
    query = platform.authorize(login["Location"])
    token = platform.sign(platform.claims("a-nonce-of-the-attackers", quiz=QUIZ))
    before = counts()
    response = client.post("/lti/launch/", {"id_token": token, "state": query["state"]})
    assert response.status_code == 403
    assert counts() == before


def test_a_refusal_speaks_the_users_language(client, platform):
    LtiCourseLink.objects.all().delete()
    response, _form = platform.launch(client, quiz=QUIZ, locale="ur")
    assert response.status_code == 403
    assert 'lang="ur"' in response.content.decode()


def test_login_without_a_known_registration_is_refused(client, platform):
    response = platform.login(client, iss="https://unknown.example")
    assert response.status_code == 400
    get = platform.login(client, method="get")
    assert get.status_code == 302 and get["Location"].startswith(platform.auth_url)


def test_deep_linking_round_trip(client, platform):
    response, _form = platform.launch(client, claims=platform.deep_linking_claims)
    assert response.status_code == 302 and response["Location"] == "/lti/deep-link/"
    page = client.get("/lti/deep-link/")
    assert page.status_code == 200 and QUIZ in page.content.decode()
    answer = client.post("/lti/deep-link/", {"quiz": QUIZ})
    assert answer.status_code == 200
    html = answer.content.decode()
    assert f'action="{platform.issuer}/deep-link-return"' in html
    assert platform.issuer in answer["Content-Security-Policy"]
    token = html.split('name="JWT" value="')[1].split('"')[0]
    message = platform.read_deep_link_response(token, client.get("/lti/jwks.json").json())
    assert message[LTI + "message_type"] == "LtiDeepLinkingResponse"
    assert message[LTI + "deployment_id"] == platform.deployment_id
    assert message["https://purl.imsglobal.org/spec/lti-dl/claim/data"] == "opaque-platform-data"
    [item] = message["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert item["type"] == "ltiResourceLink" and item["custom"] == {"quiz": QUIZ}
    assert item["url"].endswith("/lti/launch/") and item["title"] == "Gradient Checkpointing Quiz"
    assert item["lineItem"]["scoreMaximum"] == 100 and item["lineItem"]["label"]
    assert client.post("/lti/deep-link/", {"quiz": QUIZ}).status_code == 400  # used up


def test_a_learner_may_not_deep_link(client, platform):
    before = counts()
    response, _form = platform.launch(
        client, claims=lambda nonce: {**platform.deep_linking_claims(nonce), LTI + "roles": [LTI[:0] + "Learner"]}
    )
    assert response.status_code == 403
    assert counts() == before


def test_config_json(client, settings):
    settings.LMS_SITE_URL = "https://quiz.example.org"
    config = client.get("/lti/config.json").json()
    assert config["oidc_initiation_url"] == "https://quiz.example.org/lti/login/"
    assert config["target_link_uri"] == "https://quiz.example.org/lti/launch/"
    assert config["public_jwk_url"] == "https://quiz.example.org/lti/jwks.json"
    assert config["title"] and config["description"] and config["scopes"]
    [canvas] = config["extensions"]
    assert {p["message_type"] for p in canvas["settings"]["placements"]} == {"LtiDeepLinkingRequest"}
    assert canvas["domain"] == "quiz.example.org"


def test_jwks_lists_every_active_key_and_a_new_key_signs_only_once_published(client, db):
    from quizzes.integrations.lti.keys import signing_key

    assert len(client.get("/lti/jwks.json").json()["keys"]) == 1  # made when none exists
    first = Key.objects.get()
    rotated = timezone.now() + timedelta(days=1)
    with time_machine.travel(rotated, tick=False):
        call_command("rotate_keys", stdout=io.StringIO())
        kids = {key["kid"] for key in client.get("/lti/jwks.json").json()["keys"]}
        assert kids == {str(key) for key in Key.objects.all()} and len(kids) == 2
        assert signing_key() == first
    with time_machine.travel(rotated + timedelta(hours=2), tick=False):
        assert signing_key() == Key.objects.latest()
    with time_machine.travel(rotated + timedelta(days=8), tick=False):
        call_command("rotate_keys", stdout=io.StringIO())
        assert not Key.objects.get(pk=first.pk).is_active  # kept published for rotate_keys' 7 days


def test_lti_register_twice_is_the_same_rows(content):
    options = dict(
        issuer="https://moodle.example.org",
        client_id="abc",
        deployment_id="1",
        keyset_url="https://moodle.example.org/mod/lti/certs.php",
        auth_url="https://moodle.example.org/mod/lti/auth.php",
        token_url="https://moodle.example.org/mod/lti/token.php",
        course=COURSE,
    )
    call_command("lti_register", **options, stdout=io.StringIO())

    def rows():
        return (
            list(LtiRegistration.objects.values()),
            list(LtiDeployment.objects.values()),
            list(LtiCourseLink.objects.values()),
            Key.objects.count(),
        )

    first = rows()
    call_command("lti_register", **options, stdout=io.StringIO())
    assert rows() == first
    assert LtiDeployment.objects.get().is_active


@pytest.mark.parametrize(
    ("change", "message"),
    [({"course": "nope"}, "no course"), ({"keyset_url": "not a url"}, "keyset_url"), ({"client_id": " "}, "client_id")],
)
def test_lti_register_refuses_bad_input_and_writes_nothing(content, change, message):
    options = dict(
        issuer="https://moodle.example.org",
        client_id="abc",
        deployment_id="1",
        keyset_url="https://moodle.example.org/certs",
        auth_url="https://moodle.example.org/auth",
        token_url="https://moodle.example.org/token",
        course=COURSE,
    )
    with pytest.raises(CommandError, match=message):
        call_command("lti_register", **{**options, **change})
    assert not LtiRegistration.objects.exists()


def test_a_finished_attempt_after_a_launch_enqueues_the_grade_for_the_line_item(client, platform):
    from quizzes.attempts.services import attempt_finish, attempt_start
    from quizzes.models import OutboxMessage, Quiz

    platform.launch(client, quiz=QUIZ)
    user = LtiUser.objects.get().auth_user
    attempt, _new = attempt_start(user=user, quiz=Quiz.objects.get(slug=QUIZ))
    attempt_finish(attempt=attempt)
    message = OutboxMessage.objects.get(kind=OutboxMessage.Kind.LTI_SCORE)
    assert (message.subject_id, message.payload) == (attempt.pk, {"target": LtiGradeTarget.objects.get().pk})


def test_a_launch_without_a_token_is_refused(client, platform):
    assert client.post("/lti/launch/", {}).status_code == 403
    assert client.post("/lti/launch/", {"id_token": "not.a.jwt", "state": "x"}).status_code == 403
    assert client.get("/lti/launch/").status_code == 405


def test_an_unknown_quiz_is_said_and_nothing_written(client, platform):
    before = counts()
    response, _form = platform.launch(client, quiz="no-such-quiz")
    assert response.status_code == 404 and "no-such-quiz" in response.content.decode()
    assert counts() == before


def test_a_launch_that_loses_a_race_for_its_rows_is_taken_again(client, platform, monkeypatch):
    """Two first launches of one platform user at once: the one whose INSERT meets the other's
    committed row (IntegrityError) is rolled back whole and accepted on its second try."""
    from django.db import IntegrityError

    from quizzes.integrations.lti import services

    real, calls = services.sync_data_from_launch, []

    def racing(lti_launch):
        calls.append(True)
        real(lti_launch)
        if len(calls) == 1:  # this launch's rows written, then the other's commit wins
            raise IntegrityError("duplicate key value violates unique constraint")

    monkeypatch.setattr(services, "sync_data_from_launch", racing)
    response, _form = platform.launch(client, quiz=QUIZ)
    assert response.status_code == 302 and response["Location"] == f"/en/quizzes/{QUIZ}/"
    assert len(calls) == 2
    assert LtiUser.objects.filter(sub="student-1").count() == 1
    assert Enrollment.objects.filter(user=LtiUser.objects.get(sub="student-1").auth_user).count() == 1
