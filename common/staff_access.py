"""The gate of every staff page: an admin login, then one model permission."""

from functools import wraps

from django.contrib import admin
from django.core.exceptions import PermissionDenied

from common import replica


def staff_view(*permissions: str):
    """Serve the view to active staff holding every one of ``permissions``.

    Anonymous users and non-staff go to the admin login (as on any admin page);
    staff without the permissions get 403.
    """

    def decorate(view):
        @wraps(view)
        def guarded(request, *args, **kwargs):
            if not request.user.has_perms(permissions):
                raise PermissionDenied
            return view(request, *args, **kwargs)

        return admin.site.admin_view(guarded)

    return decorate


def staff_context(request, **context) -> dict:
    """The admin's template context (site header, sidebar, user links), where a report read from
    (``replica_status``, staff/base.html), plus ``context``."""
    return {**admin.site.each_context(request), "replica_status": replica.status(), **context}
