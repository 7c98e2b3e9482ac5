"""Enrolments: who may take a course's quizzes."""

from django.utils.translation import gettext_lazy as _

from quizzes.models import Course, Enrollment

SELF_ENROLLMENT_CLOSED = _("This course does not accept self-enrolment; ask your teacher to enrol you.")


class EnrollmentError(Exception):
    def __init__(self, message, code: str):
        super().__init__(str(message))
        self.message = message
        self.code = code


def enrollment_create(*, user, course: Course) -> Enrollment:
    """Enrol ``user`` in ``course``; enrolling twice keeps the first enrolment."""
    enrollment, _created = Enrollment.objects.get_or_create(user=user, course=course)
    return enrollment


def enrollment_self_create(*, user, course: Course) -> Enrollment:
    """A student enrols themselves, where the course allows it."""
    if not course.allow_self_enrollment:
        raise EnrollmentError(SELF_ENROLLMENT_CLOSED, code="self_enrollment_closed")
    return enrollment_create(user=user, course=course)
