"""Platform users and the site's accounts: an LTI user is known by its issuer and subject
(``sub``); the first time we meet one (a launch, a roster) it gets an account of its own."""

import hashlib
from collections.abc import Mapping

from django.contrib.auth import get_user_model
from django.db import transaction
from lti_tool.models import LtiRegistration, LtiUser

# The platform's claims (a launch's id_token, a roster's member) that we keep, by our field.
PROFILE_CLAIMS = {
    "given_name": "given_name",
    "family_name": "family_name",
    "name": "name",
    "email": "email",
    "picture_url": "picture",
}


def lti_username(issuer: str, sub: str) -> str:
    """The account name of a platform's user: stable, within 150 characters, the same for
    every registration of that platform (an issuer has one user namespace)."""
    return "lti-" + hashlib.sha256(f"{issuer}\n{sub}".encode()).hexdigest()[:24]


def lti_user_link(*, registration: LtiRegistration, sub: str, claims: Mapping) -> LtiUser:
    """The platform user ``sub`` of ``registration``, with its profile from ``claims`` and linked to
    an account: theirs from before, or a new one without a password (they come in through
    the platform)."""
    profile = {field: str(claims[claim]) for field, claim in PROFILE_CLAIMS.items() if claims.get(claim)}
    with transaction.atomic():
        lti_user, _created = LtiUser.objects.select_for_update().get_or_create(
            registration=registration, sub=sub, defaults=profile
        )
        changed = [field for field, value in profile.items() if getattr(lti_user, field) != value]
        for field in changed:
            setattr(lti_user, field, profile[field])
        if changed:
            lti_user.save(update_fields=[*changed, "datetime_modified"])
        lti_account_link(lti_user)
    return lti_user


def lti_account_link(lti_user: LtiUser):
    """The account of a platform user (a launch's, a roster's): linked already, else theirs under
    another registration of the same issuer, else the one named after them, made now without a
    password (they come in through the platform). Links it and returns it."""
    if lti_user.auth_user_id is None:
        profile = {"given_name": lti_user.given_name, "family_name": lti_user.family_name, "email": lti_user.email}
        lti_user.auth_user = _account(lti_user.registration.issuer, lti_user.sub, profile)
        lti_user.save(update_fields=["auth_user", "datetime_modified"])
    return lti_user.auth_user


def _account(issuer: str, sub: str, profile: Mapping):
    """The account of (issuer, sub): linked already under another registration of the issuer,
    else the one named after it, made now if need be."""
    known = (
        LtiUser.objects.filter(registration__issuer=issuer, sub=sub, auth_user__isnull=False)
        .select_related("auth_user")
        .first()
    )
    if known is not None:
        return known.auth_user
    User = get_user_model()
    user, created = User.objects.get_or_create(
        username=lti_username(issuer, sub),
        defaults={
            "first_name": profile.get("given_name", "")[:150],
            "last_name": profile.get("family_name", "")[:150],
            "email": profile.get("email", "")[:254],
        },
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user
