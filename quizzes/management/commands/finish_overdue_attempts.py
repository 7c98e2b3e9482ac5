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
        # One transaction per attempt, skipping a row another holds (an answer being taken, another
        # run of this command): no attempt waits for another, and each counted is one this run
        # finished. A skipped one is left to whoever touches it next, or to the next run.
        finished = sum(
            1 for attempt in overdue if attempt_finish_if_overdue(attempt=attempt, skip_locked=True) is not None
        )
        message = ngettext("Finished %(count)d overdue attempt.", "Finished %(count)d overdue attempts.", finished)
        self.stdout.write(self.style.SUCCESS(message % {"count": finished}))
