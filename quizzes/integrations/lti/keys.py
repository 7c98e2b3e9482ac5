"""The tool's signing keys (django-lti's ``Key``): every active key is in the JWKS, and the
one that signs is the newest that has been published for ``LTI_KEY_PUBLISH_AHEAD``, so that a
platform caching the JWKS knows a key before it sees a signature by it. ``manage.py rotate_keys``
(django-lti) adds a key and deactivates those older than its ``--deactivate-after`` days."""

from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from lti_tool.models import Key


def key_ensure() -> None:
    """A first key when there is none (first login, ``lti_register``)."""
    # Two first requests at once may make two keys: both are published, either may sign.
    if not Key.objects.active().exists():
        Key.objects.generate()


def signing_key() -> Key:
    key_ensure()
    ahead = timedelta(seconds=settings.LTI_KEY_PUBLISH_AHEAD)
    published = Key.objects.active().filter(datetime_created__lte=timezone.now() - ahead)
    # Before any key is old enough (the first one), the oldest active key.
    return published.order_by("-datetime_created").first() or Key.objects.active().order_by("datetime_created").first()


def jwks() -> dict:
    key_ensure()
    return Key.objects.as_jwks()
