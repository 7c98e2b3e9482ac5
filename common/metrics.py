"""Prometheus metrics: requests by route, and the figures the domains count (``lms_``-prefixed),
served at ``/metrics`` to the allowed addresses only.

prometheus-client keeps the figures. Under gunicorn's several workers each process writes its
own files in ``PROMETHEUS_MULTIPROC_DIR`` (deploy/gunicorn.conf.py makes it and marks a worker
that leaves), and a scrape adds them up (the library's multiprocess mode); without that
variable (``make run``, the tests) the process's own registry is served. Figures read from the
database when scraped (the outbox, the replica) come from collectors the domains register
(``register_collector``), asked only by a scrape. ``LMS_METRICS=0`` turns the request figures off.
"""

import ipaddress
import os
import time
from functools import cache

from django.conf import settings
from django.db import DatabaseError
from django.http import Http404, HttpResponse
from django.views.decorators.cache import never_cache
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily

from common import replica
from common.throttle import client_ip

REQUESTS = Counter(
    "lms_http_requests", "Requests answered, by route (view name), method and status.", ["route", "method", "status"]
)
LATENCY = Histogram(
    "lms_http_request_duration_seconds",
    "Time to answer a request, by route (view name) and method.",
    ["route", "method"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)


class ReplicaFigures:
    """The reports' replica, when one is configured: how far behind it is (-1: unreachable)."""

    def collect(self):
        if not replica.configured():
            return
        lag = GaugeMetricFamily("lms_replica_lag_seconds", "How far the reports' replica is behind (-1: unreachable).")
        try:
            lag.add_metric([], replica.lag_seconds())
        except DatabaseError:
            lag.add_metric([], -1)
        yield lag


_collectors: list = [ReplicaFigures()]


def register_collector(collector) -> None:
    """Add a collector whose figures are read when ``/metrics`` is scraped (by every worker
    that serves a scrape: gauges of the database, not of the process)."""
    _collectors.append(collector)


def _registry() -> CollectorRegistry:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = CollectorRegistry(auto_describe=True)
        registry.register(_Default())
    for collector in _collectors:
        registry.register(collector)
    return registry


class _Default:
    """The process's own registry, served beside the scrape-time collectors."""

    def collect(self):
        return REGISTRY.collect()


@cache
def _allowed_networks() -> tuple:
    return tuple(ipaddress.ip_network(network, strict=False) for network in settings.METRICS_ALLOWED_NETWORKS)


def allowed(request) -> bool:
    """Whether the client, by the address the site sees behind its proxy, may read the metrics."""
    address = client_ip(request)
    try:
        ip = ipaddress.ip_address(address) if address else None
    except ValueError:
        return False
    return ip is not None and any(ip in network for network in _allowed_networks())


@never_cache
def metrics_view(request):
    """The metrics in Prometheus' text format; anyone else gets the site's 404."""
    if not allowed(request):
        raise Http404
    return HttpResponse(generate_latest(_registry()), content_type=CONTENT_TYPE_LATEST)


class RequestMetricsMiddleware:
    """Counts and times every request by its route's view name (a bounded set of labels)."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.enabled = settings.METRICS_ENABLED

    def __call__(self, request):
        if not self.enabled:
            return self.get_response(request)
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        route = match.view_name if match is not None else "unmatched"
        method = request.method if request.method in _METHODS else "other"
        LATENCY.labels(route, method).observe(time.perf_counter() - started)
        REQUESTS.labels(route, method, str(response.status_code)).inc()
        return response


_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
