"""Error pages: JSON under /api/, the site's translated pages elsewhere."""

from django.conf import settings
from django.http import JsonResponse
from django.utils.translation import gettext as _
from django.views import defaults

API_PREFIX = "/api/"


def page_not_found(request, exception):
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": _("Not found."), "code": "not_found"}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request):
    if request.path.startswith(API_PREFIX):
        return JsonResponse({"detail": _("A server error occurred."), "code": "server_error"}, status=500)
    return defaults.server_error(request)


class ApiNotFoundInDebugMiddleware:
    """With DEBUG on (``make run``), Django answers a path it cannot resolve with its HTML debug
    page instead of ``handler404``: under /api/ the same JSON 404 as with DEBUG off."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            settings.DEBUG
            and response.status_code == 404
            and request.path.startswith(API_PREFIX)
            and response.get("Content-Type", "").startswith("text/html")
        ):
            return page_not_found(request, None)
        return response
