"""The site's URLs and three that only tests reach: one that answers, one whose view fails, and
one whose failure quotes the request's credentials in its message (as careless code might)."""

from django.http import HttpResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from lms.urls import handler404, handler500
from lms.urls import urlpatterns as site_urlpatterns

FAILURE = "the view failed on purpose"


def answers(request):
    return HttpResponse("ok")


@csrf_exempt
def fails(request):
    raise RuntimeError(FAILURE)


@csrf_exempt
def fails_quoting_credentials(request):
    raise RuntimeError(f"{FAILURE}: {dict(request.headers)} {request.COOKIES} {request.POST}")


urlpatterns = [
    path("test-only/answers/", answers),
    path("test-only/fails/", fails),
    path("test-only/fails-quoting-credentials/", fails_quoting_credentials),
    *site_urlpatterns,
]

__all__ = ["handler404", "handler500", "urlpatterns"]
