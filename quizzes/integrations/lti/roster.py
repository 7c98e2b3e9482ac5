"""A course's roster from its LTI platforms (Names and Role Provisioning Services 2.0).

Staff bring a platform's roster into the course: every active Learner of each platform
context connected to it gets an account (``lti_user_link``, as a launch would) and an
enrollment. All or nothing: every page of every context is read before anything is written,
so a platform that fails half way changes nothing.

What it never does is unenroll. A member who is Inactive, or no longer listed, keeps their
enrollment (and their attempts, always): the enrollment may come from staff or another
context, and staff unenroll in the admin, where what is kept is shown.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils.translation import gettext_lazy as _
from lti_tool.lti_core.constants import ContextRole
from lti_tool.lti_core.utils import normalize_role
from lti_tool.models import LtiContext

from quizzes.enrollment.services import enrollment_create
from quizzes.integrations.lti.tokens import MEMBERSHIPS_SCOPE, ServiceError, service_request
from quizzes.integrations.lti.users import lti_user_link
from quizzes.models import Course, Enrollment, LtiCourseLink

MEMBERSHIPS_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
MAX_PAGES = 1000
NO_CONTEXT = _("No platform context with a roster is connected to the course “%(course)s”.")
PLATFORM_FAILED = _(
    "The platform did not give the roster of “%(context)s”, so nothing was changed in “%(course)s”: %(error)s"
)
NOT_A_ROSTER = _("the answer is not a membership container")


class RosterError(Exception):
    def __init__(self, message: str, code: str):
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass
class RosterReport:
    course: Course
    added: int = 0
    already_enrolled: int = 0
    left_out: int = 0  # not a learner, or not active


def course_lti_contexts(course: Course):
    """The platform contexts whose roster is the course's: those its course links name
    (``LtiCourseLink``, as a launch reads them: a context's own link first, else its registration's
    default link), with a roster service."""
    own = LtiCourseLink.objects.filter(
        registration=OuterRef("deployment__registration"), context_id=OuterRef("id_on_platform")
    )
    default = LtiCourseLink.objects.filter(
        course=course, registration=OuterRef("deployment__registration"), context_id=""
    )
    return (
        LtiContext.objects.filter(Exists(own.filter(course=course)) | (Exists(default) & ~Exists(own)))
        .exclude(memberships_url="")
        .select_related("deployment__registration")
        .order_by("pk")
    )


def context_members(context: LtiContext) -> list[dict]:
    """Every member of the context, page after page (``Link: <...>; rel="next"``)."""
    registration = context.deployment.registration
    members: list[dict] = []
    url, seen = context.memberships_url, set()
    while url and url not in seen and len(seen) < MAX_PAGES:
        seen.add(url)
        response = service_request(registration, MEMBERSHIPS_SCOPE, "GET", url, accept=MEMBERSHIPS_TYPE)
        try:
            page = response.json()["members"]
        except (ValueError, KeyError, TypeError):
            raise ServiceError(str(NOT_A_ROSTER), retry=False) from None
        if not isinstance(page, list) or not all(isinstance(member, dict) for member in page):
            raise ServiceError(str(NOT_A_ROSTER), retry=False)
        members.extend(page)
        url = response.links.get("next", {}).get("url")
    return members


def is_active_learner(member: dict) -> bool:
    roles = {normalize_role(str(role)) for role in member.get("roles") or ()}
    # NRPS: a member without a status is active.
    return bool(member.get("user_id")) and ContextRole.LEARNER in roles and member.get("status", "Active") == "Active"


def course_roster_import(*, course: Course, changed_by, contexts: Iterable[LtiContext] | None = None) -> RosterReport:
    """Enroll the active learners of the course's platform contexts (``course_lti_contexts``
    unless ``contexts`` is given); ``RosterError``, with nothing written, if a platform fails."""
    contexts = list(course_lti_contexts(course) if contexts is None else contexts)
    if not contexts:
        raise RosterError(NO_CONTEXT % {"course": course}, code="no_context")
    rosters = []
    for context in contexts:
        try:
            rosters.append((context, context_members(context)))
        except ServiceError as error:
            params = {"context": context, "course": course, "error": error}
            raise RosterError(PLATFORM_FAILED % params, code="platform_failed") from None
    report = RosterReport(course=course)
    seen: set[int] = set()
    with transaction.atomic():
        enrolled = set(Enrollment.objects.filter(course=course).values_list("user_id", flat=True))
        for context, members in rosters:
            registration = context.deployment.registration
            for member in members:
                if not is_active_learner(member):
                    report.left_out += 1
                    continue
                lti_user = lti_user_link(registration=registration, sub=str(member["user_id"]), claims=member)
                user_id = lti_user.auth_user_id
                if user_id in seen:
                    continue
                seen.add(user_id)
                if user_id in enrolled:
                    report.already_enrolled += 1
                    continue
                enrollment_create(user=lti_user.auth_user, course=course, changed_by=changed_by)
                report.added += 1
            # django-lti's record of who is what in the context (read by the launch's roles).
            listed = [
                {"status": "Active", **m} for m in members if m.get("user_id") and isinstance(m.get("roles"), list)
            ]
            context.update_memberships(listed)
    return report
