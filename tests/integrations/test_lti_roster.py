"""The platform's roster into the course (NRPS): learners get an account once and an
enrollment; a second run changes nothing; a platform error writes nothing."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from quizzes.integrations.lti.roster import RosterError, course_lti_contexts, course_roster_import
from quizzes.integrations.lti.users import lti_username
from quizzes.models import Course, Enrollment, EnrollmentChange, LtiCourseLink

LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
User = get_user_model()


def member(sub, roles, status="Active", **profile):
    return {"user_id": sub, "roles": roles, "status": status, **profile}


@pytest.fixture
def roster(platform, lti_context, student):
    from lti_tool.models import LtiUser

    # The student launched before: their platform user is linked to their account, enrolled.
    LtiUser.objects.create(registration=lti_context.deployment.registration, sub="s-1", auth_user=student)
    platform.state.members_pages = [
        [
            member("s-1", ["Learner"]),
            member("s-2", [LEARNER], given_name="Tendai", family_name="Moyo", email="tendai@example.org"),
            member("t-1", [INSTRUCTOR], name="Dr Rahman"),
        ],
        [
            member("s-3", [LEARNER, "http://purl.imsglobal.org/vocab/lis/v2/membership/Learner#Learner"]),
            member("s-4", [LEARNER], status="Inactive"),
        ],
    ]
    return lti_context


def enrolled(course):
    return set(Enrollment.objects.filter(course=course).values_list("user__username", flat=True))


def test_the_roster_enrols_the_active_learners_once(platform, roster, course, student, editor):
    before = enrolled(course)
    report = course_roster_import(course=course, changed_by=editor, contexts=[roster])
    assert (report.added, report.already_enrolled, report.left_out) == (2, 1, 2)
    issuer = roster.deployment.registration.issuer
    new = {lti_username(issuer, "s-2"), lti_username(issuer, "s-3")}
    assert enrolled(course) == before | new
    tendai = User.objects.get(username=lti_username(issuer, "s-2"))
    assert (tendai.first_name, tendai.last_name, tendai.email) == ("Tendai", "Moyo", "tendai@example.org")
    assert not tendai.has_usable_password()
    assert not User.objects.filter(username__in=[lti_username(issuer, s) for s in ("t-1", "s-4")]).exists()
    # Both pages read, the next page's address followed as the platform wrote it.
    [_first, second] = [r for r in platform.state.requests if r.method == "GET"]
    assert second.query == {"page": ["2"], "Rlid": ["AbC"]}
    assert second.headers["accept"] == "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
    assert roster.memberships.filter(is_instructor=True).count() == 1  # django-lti's record too

    users, changes = User.objects.count(), EnrollmentChange.objects.count()
    again = course_roster_import(course=course, changed_by=editor, contexts=[roster])
    assert (again.added, again.already_enrolled, again.left_out) == (0, 3, 2)
    assert (User.objects.count(), EnrollmentChange.objects.count()) == (users, changes)


def test_a_platform_failing_on_a_later_page_changes_nothing(platform, roster, course, editor):
    platform.state.members_status, platform.state.members_failing_from = 503, 2
    before = (User.objects.count(), Enrollment.objects.count(), EnrollmentChange.objects.count())
    with pytest.raises(RosterError) as raised:
        course_roster_import(course=course, changed_by=editor, contexts=[roster])
    assert raised.value.code == "platform_failed" and "503" in str(raised.value)
    assert (User.objects.count(), Enrollment.objects.count(), EnrollmentChange.objects.count()) == before
    assert not roster.memberships.exists()


def test_a_course_without_a_connected_context_says_so(db, course, editor):
    with pytest.raises(RosterError) as raised:
        course_roster_import(course=course, changed_by=editor)
    assert raised.value.code == "no_context"


@pytest.fixture
def admin_client(client, db):
    client.force_login(User.objects.create_superuser("root", "root@example.org", "pw"))
    return client


def test_the_course_admin_action_reports_the_counts(admin_client, platform, roster, course, student):
    # The course is connected to the platform's context, as a launch reads it.
    LtiCourseLink.objects.create(
        registration=roster.deployment.registration, context_id=roster.id_on_platform, course=course
    )
    url = reverse("admin:quizzes_course_changelist")
    response = admin_client.post(url, {"action": "roster_import", "_selected_action": [course.pk]}, follow=True)
    assert "enrolled 2, already enrolled 1, left out 2" in response.content.decode()

    platform.state.members_status = 500
    response = admin_client.post(url, {"action": "roster_import", "_selected_action": [course.pk]}, follow=True)
    assert "nothing was changed" in response.content.decode()


def test_the_contexts_of_a_course_are_its_links_own_first_else_the_registrations_default(roster, course, editor):
    from lti_tool.models import LtiContext

    registration = roster.deployment.registration
    other = LtiContext.objects.create(
        deployment=roster.deployment, id_on_platform="other", memberships_url=roster.memberships_url
    )
    elsewhere = Course.objects.create(slug="elsewhere", title="Elsewhere")
    LtiCourseLink.objects.create(registration=registration, context_id="", course=course)  # the default
    LtiCourseLink.objects.create(registration=registration, context_id="other", course=elsewhere)
    assert list(course_lti_contexts(course)) == [roster]
    assert list(course_lti_contexts(elsewhere)) == [other]


def test_a_platform_user_has_one_account_under_every_registration_of_its_issuer(lti_context):
    from lti_tool.models import LtiRegistration

    from quizzes.integrations.lti.users import lti_user_link

    first = lti_context.deployment.registration
    second = LtiRegistration.objects.create(
        name="Same LMS, other client", issuer=first.issuer, client_id="other", auth_url=first.auth_url,
        token_url=first.token_url, keyset_url=first.keyset_url,
    )  # fmt: skip
    one = lti_user_link(registration=first, sub="s-9", claims={"given_name": "Ayu", "email": "ayu@example.org"})
    two = lti_user_link(registration=second, sub="s-9", claims={"name": "Ayu Lestari"})
    again = lti_user_link(registration=first, sub="s-9", claims={})
    assert one.auth_user_id == two.auth_user_id == again.auth_user_id
    assert (again.pk, again.given_name, two.name) == (one.pk, "Ayu", "Ayu Lestari")
    assert User.objects.filter(username=lti_username(first.issuer, "s-9")).count() == 1
