"""A platform's registration written in one step (``manage.py lti_register``): the registration,
its deployment (active) and the course it opens, made or brought to the values given, so that
running it twice changes nothing."""

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import transaction
from django.utils.translation import gettext_lazy as _
from lti_tool.models import LtiDeployment, LtiRegistration

from quizzes.integrations.lti.keys import key_ensure
from quizzes.models import Course, LtiCourseLink

UNKNOWN_COURSE = _("There is no course with the slug %(slug)s.")
BAD_URL = _("%(field)s is not an absolute http(s) URL: %(url)s")
EMPTY = _("%(field)s may not be empty.")


class RegistrationError(Exception):
    pass


@dataclass(frozen=True)
class RegistrationWritten:
    registration: LtiRegistration
    changed: bool


def _checked(**values) -> None:
    for field in ("issuer", "client_id", "deployment_id"):
        if not values[field].strip():
            raise RegistrationError(EMPTY % {"field": field})
    for field in ("keyset_url", "auth_url", "token_url"):
        try:
            URLValidator(schemes=["http", "https"])(values[field])
        except ValidationError:
            raise RegistrationError(BAD_URL % {"field": field, "url": values[field]}) from None


@transaction.atomic
def lti_registration_write(
    *,
    issuer: str,
    client_id: str,
    deployment_id: str,
    keyset_url: str,
    auth_url: str,
    token_url: str,
    course_slug: str,
    context_id: str = "",
    name: str = "",
) -> RegistrationWritten:
    _checked(
        issuer=issuer,
        client_id=client_id,
        deployment_id=deployment_id,
        keyset_url=keyset_url,
        auth_url=auth_url,
        token_url=token_url,
    )
    course = Course.objects.filter(slug=course_slug).first()
    if course is None:
        raise RegistrationError(UNKNOWN_COURSE % {"slug": course_slug})
    key_ensure()
    wanted = {"keyset_url": keyset_url, "auth_url": auth_url, "token_url": token_url, "is_active": True}
    registration, created = LtiRegistration.objects.select_for_update().get_or_create(
        issuer=issuer, client_id=client_id, defaults={**wanted, "name": name or issuer}
    )
    changed = created
    stale = {field: value for field, value in wanted.items() if getattr(registration, field) != value}
    if name and registration.name != name:
        stale["name"] = name
    if stale:
        for field, value in stale.items():
            setattr(registration, field, value)
        registration.save(update_fields=[*stale, "datetime_modified"])
        changed = True
    deployment, created = LtiDeployment.objects.get_or_create(
        registration=registration, deployment_id=deployment_id, defaults={"is_active": True}
    )
    if not deployment.is_active:
        deployment.is_active = True
        deployment.save(update_fields=["is_active", "datetime_modified"])
        created = True
    changed = changed or created
    link, created = LtiCourseLink.objects.get_or_create(
        registration=registration, context_id=context_id, defaults={"course": course}
    )
    if link.course_id != course.pk:
        link.course = course
        link.save(update_fields=["course"])
        created = True
    return RegistrationWritten(registration=registration, changed=changed or created)
