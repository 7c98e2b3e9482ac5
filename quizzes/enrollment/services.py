"""Enrollments: who may take a course's quizzes, and the history of who did.

Every enrollment and unenrollment goes through this module and writes a line of
``EnrollmentChange`` in the same transaction, so that the history can never
miss a change. Unenrolling deletes the ``Enrollment`` row (access ends at
once) and keeps the student's attempts and answers.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from quizzes.models import Course, Enrollment, EnrollmentChange

SELF_ENROLLMENT_CLOSED = _("This course does not accept self-enrollment; ask your teacher to enroll you.")
BULK_PLAN_CHANGED = _(
    "Enrollments or accounts changed since the preview; nothing was written. Check the new preview and confirm again."
)
NOT_ENROLLED = _("This student is not enrolled in this course.")

Source = EnrollmentChange.Source
Action = EnrollmentChange.Action

# Concurrent enrollments of the same students (two staff members, a student
# enrolling themselves) make a bulk insert fail; the whole plan is then made again.
_BULK_RETRIES = 3


class EnrollmentError(Exception):
    def __init__(self, message, code: str):
        super().__init__(str(message))
        self.message = message
        self.code = code


def _log(*, user, course: Course, action: str, source: str, changed_by) -> EnrollmentChange:
    return EnrollmentChange.objects.create(
        user=user, course=course, action=action, source=source, changed_by=changed_by
    )


def enrollment_create(*, user, course: Course, changed_by=None, source: str | None = None) -> Enrollment:
    """Enroll ``user`` in ``course``; enrolling twice keeps the first enrollment (and logs once).

    ``source`` defaults to "staff" when ``changed_by`` is given, to "system" otherwise.
    """
    if source is None:
        source = Source.STAFF if changed_by is not None else Source.SYSTEM
    with transaction.atomic():
        enrollment, created = Enrollment.objects.get_or_create(user=user, course=course)
        if created:
            _log(user=user, course=course, action=Action.ENROLLED, source=source, changed_by=changed_by)
    return enrollment


def enrollment_self_create(*, user, course: Course) -> Enrollment:
    """A student enrolls themselves, where the course allows it."""
    if not course.allow_self_enrollment:
        raise EnrollmentError(SELF_ENROLLMENT_CLOSED, code="self_enrollment_closed")
    return enrollment_create(user=user, course=course, changed_by=user, source=Source.SELF)


def enrollments_delete(*, enrollments: Iterable[Enrollment], changed_by=None, source: str = Source.STAFF) -> int:
    """Unenroll: delete these enrollments and log each; attempts and answers are kept.

    Returns how many were deleted (an enrollment someone else removed meanwhile is skipped).
    """
    ids = [enrollment.pk for enrollment in enrollments]
    with transaction.atomic():
        # Locked, so that the rows deleted are exactly the rows logged.
        locked = list(
            Enrollment.objects.select_for_update(of=("self",))
            .filter(pk__in=ids)
            .order_by("pk")
            .values_list("pk", "user_id", "course_id")
        )
        if not locked:
            return 0
        Enrollment.objects.filter(pk__in=[pk for pk, _user, _course in locked]).delete()
        EnrollmentChange.objects.bulk_create(
            EnrollmentChange(
                user_id=user_id, course_id=course_id, action=Action.UNENROLLED, source=source, changed_by=changed_by
            )
            for _pk, user_id, course_id in locked
        )
    return len(locked)


def enrollment_delete(
    *, enrollment: Enrollment | None = None, user=None, course: Course | None = None, changed_by=None
) -> bool:
    """Unenroll one student (``enrollment=``, or ``user=`` and ``course=``); False if not enrolled."""
    if enrollment is None:
        if user is None or course is None:
            raise TypeError("enrollment_delete() needs enrollment=, or user= and course=")
        enrollment = Enrollment.objects.filter(user=user, course=course).first()
        if enrollment is None:
            return False
    return enrollments_delete(enrollments=[enrollment], changed_by=changed_by) == 1


# Bulk enrollment -----------------------------------------------------------------------


@dataclass
class BulkEnrollmentPlan:
    """What enrolling a list of usernames in a course would do.

    ``case_matched`` pairs a name as typed with the account it matched when
    only the letter case differs (and only one account matches).
    """

    course: Course
    to_enroll: list = field(default_factory=list)
    already_enrolled: list = field(default_factory=list)
    inactive: list = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    ambiguous: list[str] = field(default_factory=list)
    case_matched: list[tuple[str, str]] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)

    @property
    def user_ids(self) -> frozenset[int]:
        return frozenset(user.pk for user in self.to_enroll)

    @property
    def has_problems(self) -> bool:
        return bool(self.unknown or self.ambiguous or self.inactive)


def usernames_clean(usernames: Iterable[str]) -> list[str]:
    """The names stripped of surrounding whitespace, empty ones dropped, in order (duplicates kept)."""
    return [name for name in (str(raw).strip() for raw in usernames) if name]


def enrollments_bulk_plan(*, course: Course, usernames: Sequence[str]) -> BulkEnrollmentPlan:
    """Match ``usernames`` to accounts and sort them: to enroll, already enrolled, inactive, unknown.

    Usernames are case-sensitive in Django: an exact match wins; otherwise a
    name matches the one account that differs only in case (reported), and
    is ambiguous if several do. A name given twice is enrolled once (reported).
    A fixed number of queries, however many names.
    """
    User = get_user_model()
    plan = BulkEnrollmentPlan(course=course)
    names = usernames_clean(usernames)
    exact = {user.username: user for user in User.objects.filter(username__in=set(names))}
    missing = {name.lower() for name in names if name not in exact}
    by_lower: dict[str, list] = {}
    if missing:
        for user in User.objects.annotate(lowered=Lower("username")).filter(lowered__in=missing):
            by_lower.setdefault(user.username.lower(), []).append(user)
    matched = []
    seen_names: set[str] = set()
    seen_users: set[int] = set()
    for name in names:
        if name in seen_names:
            plan.duplicates.append(name)
            continue
        seen_names.add(name)
        user = exact.get(name)
        if user is None:
            candidates = by_lower.get(name.lower(), [])
            if len(candidates) > 1:
                plan.ambiguous.append(name)
                continue
            if not candidates:
                plan.unknown.append(name)
                continue
            user = candidates[0]
            plan.case_matched.append((name, user.username))
        if user.pk in seen_users:
            plan.duplicates.append(name)
            continue
        seen_users.add(user.pk)
        matched.append(user)
    enrolled = set(
        Enrollment.objects.filter(course=course, user_id__in=[user.pk for user in matched]).values_list(
            "user_id", flat=True
        )
    )
    for user in matched:
        if user.pk in enrolled:
            plan.already_enrolled.append(user)
        elif not user.is_active:
            plan.inactive.append(user)
        else:
            plan.to_enroll.append(user)
    return plan


def enrollments_bulk_create(
    *, course: Course, usernames: Sequence[str], changed_by, expected_user_ids: Iterable[int] | None = None
) -> BulkEnrollmentPlan:
    """Enroll every active account named in ``usernames`` in ``course``, all or nothing.

    Returns the plan carried out (who was enrolled, who already was, unknown
    names, inactive accounts...). With ``expected_user_ids`` (the accounts a
    preview showed), nothing is written and ``EnrollmentError`` is raised
    (code "bulk_plan_changed") if the accounts to enroll are no longer exactly those.
    """
    expected = None if expected_user_ids is None else frozenset(expected_user_ids)
    for attempt in range(_BULK_RETRIES):
        try:
            with transaction.atomic():
                plan = enrollments_bulk_plan(course=course, usernames=usernames)
                if expected is not None and plan.user_ids != expected:
                    raise EnrollmentError(BULK_PLAN_CHANGED, code="bulk_plan_changed")
                Enrollment.objects.bulk_create(Enrollment(user=user, course=course) for user in plan.to_enroll)
                EnrollmentChange.objects.bulk_create(
                    EnrollmentChange(
                        user=user, course=course, action=Action.ENROLLED, source=Source.BULK, changed_by=changed_by
                    )
                    for user in plan.to_enroll
                )
            return plan
        except IntegrityError:
            # Someone enrolled one of these students meanwhile: plan again (and,
            # with a preview to honour, report the change instead of writing).
            if attempt == _BULK_RETRIES - 1:
                raise
    raise AssertionError("unreachable")
