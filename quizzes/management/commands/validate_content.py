import sys

from django.core.management.base import BaseCommand
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from quizzes.content.problems import content_problems, content_warnings


class Command(BaseCommand):
    help = (
        "List every content problem (answer key, choices, English text) and exit 1 if there is any; "
        "then, apart, the warnings (missing, stale or checked translations), which never fail the run."
    )

    def handle(self, *args, **options):
        problems = content_problems()
        for problem in problems:
            self.stdout.write(str(problem))
        # Warnings do not fail the run: students read a missing text in English, a stale text is
        # mostly right, and a translator may know better than a check.
        for warning in content_warnings():
            self.stdout.write(self.style.WARNING(_("Warning: %(warning)s") % {"warning": warning}))
        if problems:
            count = len(problems)
            self.stderr.write(
                ngettext("%(count)d content problem.", "%(count)d content problems.", count) % {"count": count}
            )
            sys.exit(1)
        self.stdout.write(self.style.SUCCESS(_("No content problems.")))
