"""What an accepted LTI launch writes: the platform's user linked to ours (created once per
issuer and subject), django-lti's records of the deployment, context, membership and resource
link, the student's enrollment and, with Assignment and Grade Services, where their grade goes.
All or nothing: a launch refused here (a course not connected, an unknown quiz) writes nothing.
"""

from dataclasses import dataclass

from django.contrib.auth.models import Group
from django.db import IntegrityError, transaction
from django.utils.translation import gettext_lazy as _
from lti_tool.lti_core.constants import ContextRole
from lti_tool.lti_core.utils import normalize_role
from lti_tool.models import LtiLaunch, LtiLineItem, LtiUser
from lti_tool.utils import sync_data_from_launch

from quizzes.accounts.roles import TEACHERS, staff_groups_ensure
from quizzes.enrollment.services import enrollment_create
from quizzes.integrations.lti.users import lti_account_link
from quizzes.models import Course, LtiCourseLink, LtiGradeTarget, Quiz

NOT_CONNECTED = _(
    "This course (%(context)s) is not connected to a course of this site. Ask the site's staff to connect it."
)
TEACHERS_ONLY = _("Only teachers may add quizzes to a course.")
UNKNOWN_QUIZ = _("This link names a quiz (%(quiz)s) that this course does not have.")

CONTEXT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/context"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
# The grade posted is the best finished attempt's exact score, scaled to the column's maximum
# (quizzes/attempts/grading.py).
SCORE_MAXIMUM = 100
TEACHING_ROLES = {ContextRole.INSTRUCTOR, ContextRole.ADMINISTRATOR, ContextRole.CONTENT_DEVELOPER}
INSTITUTION_ADMINISTRATOR = "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator"


class LaunchRefused(Exception):
    def __init__(self, message, *, status: int = 403):
        super().__init__(str(message))
        self.message = message
        self.status = status


@dataclass(frozen=True)
class LaunchResult:
    user: object
    course: Course
    quiz: Quiz | None
    teaches: bool


def launch_teaches(lti_launch: LtiLaunch) -> bool:
    roles = {normalize_role(role) for role in lti_launch.roles_claim or []}
    return bool(roles & TEACHING_ROLES) or INSTITUTION_ADMINISTRATOR in roles


def launch_course(lti_launch: LtiLaunch) -> Course:
    """The course of the platform's context, else the registration's; refused when neither."""
    context = lti_launch.get_claim(CONTEXT_CLAIM) or {}
    links = LtiCourseLink.objects.filter(
        registration=lti_launch.registration, context_id__in=[context.get("id", ""), ""]
    )
    link = min(links.select_related("course"), key=lambda link: link.context_id == "", default=None)
    if link is None:
        name = context.get("title") or context.get("label") or context.get("id") or "?"
        raise LaunchRefused(NOT_CONNECTED % {"context": name})
    return link.course


def _launch_quiz(lti_launch: LtiLaunch, course: Course) -> Quiz | None:
    slug = lti_launch.get_custom_claim("quiz")
    if not slug or not isinstance(slug, str):
        return None
    quiz = Quiz.objects.published().filter(course=course, slug=slug).first()
    if quiz is None:
        raise LaunchRefused(UNKNOWN_QUIZ % {"quiz": slug}, status=404)
    return quiz


def _grade_target(lti_launch: LtiLaunch, lti_user: LtiUser, quiz: Quiz) -> None:
    ags = lti_launch.get_claim(AGS_CLAIM) or {}
    if not ags.get("lineitem"):
        return
    resource_link = lti_launch.resource_link
    line_item, _created = LtiLineItem.objects.get_or_create(
        url=ags["lineitem"],
        defaults={
            "context": lti_launch.context,
            "resource_link": resource_link,
            "maximum_score": SCORE_MAXIMUM,
            "label": (resource_link.title or quiz.title)[:255],
            "resource_id": quiz.slug,
        },
    )
    LtiGradeTarget.objects.get_or_create(quiz=quiz, lti_user=lti_user, line_item=line_item)


def launch_accept(*, lti_launch: LtiLaunch) -> LaunchResult:
    """Link, enrol and record a validated resource link or deep linking launch.

    Two first launches of one platform user (or of one context, link or line item) at the same
    moment both try to create its rows; the one whose INSERT loses is rolled back whole and
    taken again, finding the rows the other committed."""
    try:
        return _launch_accept(lti_launch=lti_launch)
    except IntegrityError:
        return _launch_accept(lti_launch=lti_launch)


@transaction.atomic
def _launch_accept(*, lti_launch: LtiLaunch) -> LaunchResult:
    course = launch_course(lti_launch)
    teaches = launch_teaches(lti_launch)
    if lti_launch.is_deep_link_launch and not teaches:
        raise LaunchRefused(TEACHERS_ONLY)
    quiz = _launch_quiz(lti_launch, course) if lti_launch.is_resource_launch else None
    sync_data_from_launch(lti_launch)
    lti_user = lti_launch.user
    user = lti_account_link(lti_user)
    if teaches:
        # Reports of their course; content stays with the "Content editors" group alone.
        if not user.is_staff:
            user.is_staff = True
            user.save(update_fields=["is_staff"])
        user.groups.add(Group.objects.filter(name=TEACHERS).first() or staff_groups_ensure()[TEACHERS])
    else:
        enrollment_create(user=user, course=course)
        if quiz is not None:
            _grade_target(lti_launch, lti_user, quiz)
    return LaunchResult(user=user, course=course, quiz=quiz, teaches=teaches)
