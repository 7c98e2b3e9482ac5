"""The Course admin's action that brings the platforms' rosters into the course."""

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _

from quizzes.integrations.lti.roster import RosterError, course_roster_import

ROSTER_DONE = _(
    "“%(course)s”, from the platform's roster: enrolled %(added)d, already enrolled %(already)d, "
    "left out %(left_out)d (not active learners)."
)


@admin.action(description=_("Bring the platform's roster into the course"), permissions=["change"])
def roster_import(modeladmin, request, queryset):
    for course in queryset.order_by("slug"):
        try:
            report = course_roster_import(course=course, changed_by=request.user)
        except RosterError as error:
            modeladmin.message_user(request, error.message, messages.ERROR)
            continue
        counts = {"course": course, "added": report.added, "already": report.already_enrolled}
        modeladmin.message_user(request, ROSTER_DONE % {**counts, "left_out": report.left_out}, messages.SUCCESS)
