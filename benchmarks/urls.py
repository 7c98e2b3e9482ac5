"""The site's URLs and, first, the ceiling view (benchmarks/ceiling.py): only in the benchmark's server."""

from django.urls import path

from benchmarks.ceiling import ceiling
from lms.urls import handler404, handler500
from lms.urls import urlpatterns as site_urlpatterns

urlpatterns = [path("bench/ceiling/", ceiling), *site_urlpatterns]

__all__ = ["handler404", "handler500", "urlpatterns"]
