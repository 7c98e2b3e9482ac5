"""The admin of the outbox: what was sent to other systems, what waits and why. Messages are
written only by the services that record what they report; staff may send one again."""

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from quizzes.admin.records import ReadOnlyAdminMixin
from quizzes.outbox.delivery import outbox_retry

OUTBOX_FIELDS = (
    "kind",
    "key",
    "subject_id",
    "state",
    "tries",
    "created_at",
    "due_at",
    "delivered_at",
    "last_error",
    "payload",
)


class OutboxMessageAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("kind", "key", "state", "tries", "created_at", "due_at", "delivered_at")
    list_filter = ("state", "kind")
    search_fields = ("key", "last_error")
    date_hierarchy = "created_at"
    fields = OUTBOX_FIELDS
    readonly_fields = OUTBOX_FIELDS
    actions = ["send_again"]

    @admin.action(description=_("Send the selected messages again now"), permissions=["view"])
    def send_again(self, request, queryset):
        count = outbox_retry(message_ids=queryset.values_list("pk", flat=True))
        message = ngettext(
            "%(count)d message will be sent again by the next run of send_outbox.",
            "%(count)d messages will be sent again by the next run of send_outbox.",
            count,
        )
        self.message_user(request, message % {"count": count}, messages.SUCCESS)
