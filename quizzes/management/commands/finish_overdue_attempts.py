from django.core.management.base import BaseCommand
from django.utils import timezone
from django.utils.translation import ngettext

from quizzes.attempts.selectors import attempts_overdue
from quizzes.attempts.services import attempt_finish_if_overdue


class Command(BaseCommand):
    help = (
        "Finish every attempt in progress past its deadline and grace (ATTEMPT_DEADLINE_GRACE), "
        "with the answers it has; for cron."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="List the overdue attempts; finish none.")

    def handle(self, *args, dry_run=False, **options):
        overdue = attempts_overdue(now=timezone.now())
        if dry_run:
            for attempt in overdue:
                self.stdout.write(
                    f"{attempt.pk}\t{attempt.user.get_username()}\t{attempt.quiz.slug}\t{attempt.deadline.isoformat()}"
                )
            message = ngettext(
                "%(count)d overdue attempt would be finished.",
                "%(count)d overdue attempts would be finished.",
                len(overdue),
            )
            self.stdout.write(message % {"count": len(overdue)})
            return
        # Counted: each found overdue and finished when its service call returns (an answer that
        # touched it in between may have finished it first). One transaction per attempt (the
        # service's): a row an answer holds locked delays that attempt only, and each one
        # finished stays finished if a later one fails.
        finished = sum(1 for attempt in overdue if attempt_finish_if_overdue(attempt=attempt) is not None)
        message = ngettext("Finished %(count)d overdue attempt.", "Finished %(count)d overdue attempts.", finished)
        self.stdout.write(self.style.SUCCESS(message % {"count": finished}))
