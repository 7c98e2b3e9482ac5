from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from quizzes.accounts.services import demo_accounts_create


class Command(BaseCommand):
    help = "Development only: create the demo accounts student/student, editor/editor and teacher/teacher."

    def handle(self, *args, **options):
        if not settings.DEBUG:
            raise CommandError(
                _("seed_demo creates accounts with well-known passwords; it runs only with DJANGO_DEBUG=1.")
            )
        demo_accounts_create()
        self.stdout.write(
            self.style.SUCCESS(
                _(
                    "Demo accounts: student / student (enrolled), editor / editor (content editor, staff), "
                    "teacher / teacher (teacher, staff)."
                )
            )
        )
