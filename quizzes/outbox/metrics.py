"""The outbox's backlog for the operator, read from the database when ``/metrics`` is scraped
(``common.metrics.register_collector``, from the app's ``ready``): messages waiting by kind, and
the age of the oldest, the figure to alert on when a receiver is down."""

from django.db.models import Count, Min
from django.utils import timezone
from prometheus_client.core import GaugeMetricFamily

from quizzes.models import OutboxMessage


class OutboxFigures:
    def collect(self):
        waiting = OutboxMessage.objects.filter(state=OutboxMessage.State.PENDING)
        pending = GaugeMetricFamily(
            "lms_outbox_pending", "Outbox messages waiting to be sent, by kind.", labels=["kind"]
        )
        counts = dict(waiting.order_by().values_list("kind").annotate(count=Count("pk")).values_list("kind", "count"))
        for kind in OutboxMessage.Kind.values:
            pending.add_metric([kind], counts.get(kind, 0))
        oldest = GaugeMetricFamily(
            "lms_outbox_oldest_pending_age_seconds", "Age of the oldest message waiting to be sent (0: none)."
        )
        first = waiting.aggregate(first=Min("created_at"))["first"]
        oldest.add_metric([], (timezone.now() - first).total_seconds() if first else 0)
        yield pending
        yield oldest
