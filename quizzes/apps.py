from django.apps import AppConfig
from django.db.backends.signals import connection_created
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


class QuizzesConfig(AppConfig):
    name = "quizzes"
    verbose_name = _("Quizzes")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from axes.signals import user_locked_out

        from common import metrics, pooler
        from quizzes.accounts import time_zones  # noqa: F401  (its login receiver)
        from quizzes.accounts.metrics import login_locked_out
        from quizzes.accounts.roles import staff_groups_on_migrate

        # Their receivers follow every content write: the content cache's version, the questions' versions;
        # and every request: the language settings it read are forgotten when it ends.
        from quizzes.content import cache, machine_translations, versions  # noqa: F401
        from quizzes.outbox.metrics import OutboxFigures

        # The operator's figures (common/metrics.py): the outbox read when scraped, lockouts counted.
        metrics.register_collector(OutboxFigures())
        user_locked_out.connect(login_locked_out, dispatch_uid="lms_login_lockouts")

        # Each new PostgreSQL connection: directly to the server, or through a pooler (common/pooler.py).
        connection_created.connect(pooler.connection_created, dispatch_uid="common_pooler")

        # Permissions exist only once post_migrate has created them (auth's
        # handler runs first), so the staff groups are kept up to date here.
        post_migrate.connect(staff_groups_on_migrate, sender=self, dispatch_uid="quizzes_staff_groups")
