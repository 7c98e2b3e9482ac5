import signal
import time

from django.core.management.base import BaseCommand
from django.utils.translation import gettext as _

from quizzes.integrations.senders import outbox_senders
from quizzes.outbox.delivery import deliver_due


class Command(BaseCommand):
    help = (
        "Send the outbox's due messages (xAPI statements to the LRS, grades to LTI platforms), "
        "retrying those whose receiver is down; with --once, send what is due and exit."
    )

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="Send what is due now, then exit.")
        parser.add_argument(
            "--interval", type=float, default=5.0, help="Seconds between two looks at the outbox (default 5)."
        )

    def handle(self, *args, once=False, interval=5.0, **options):
        senders = outbox_senders()
        if once:
            self._deliver(senders)
            return
        stopping = []
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_args: stopping.append(True))
        while not stopping:
            self._deliver(senders)
            # A plain wait between looks: a service loop, stopped by SIGTERM between two batches.
            waited = 0.0
            while waited < interval and not stopping:
                time.sleep(min(0.5, interval - waited))
                waited += 0.5

    def _deliver(self, senders):
        report = deliver_due(senders)
        for error in report.errors:
            self.stderr.write(error)
        if report.sent:
            message = _("Delivered %(delivered)d, to retry %(retried)d, refused %(refused)d.")
            counts = {"delivered": report.delivered, "retried": report.retried, "refused": report.refused}
            self.stdout.write(message % counts)
