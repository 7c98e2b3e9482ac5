"""LTI registrations in the admin: django-lti's page (the platform's issuer, client id, URLs
and its deployments inline) with which course each platform context opens beside it."""

import lti_tool.admin  # registers django-lti's pages first: this module replaces one of them
from django.contrib import admin
from django.utils.translation import gettext_lazy as _
from lti_tool.models import LtiRegistration

from quizzes.models import LtiCourseLink


class LtiCourseLinkInline(admin.TabularInline):
    model = LtiCourseLink
    extra = 1
    autocomplete_fields = ["course"]
    verbose_name_plural = _("Courses: a platform context id, or blank for every other context of this registration")


class LtiRegistrationAdmin(lti_tool.admin.LtiRegistrationAdmin):
    inlines = [lti_tool.admin.LtiDeploymentInline, LtiCourseLinkInline]
    search_fields = ["name", "issuer", "client_id"]


admin.site.unregister(LtiRegistration)
admin.site.register(LtiRegistration, LtiRegistrationAdmin)
