"""Error pages: JSON under /api/, the site's translated pages elsewhere."""

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
