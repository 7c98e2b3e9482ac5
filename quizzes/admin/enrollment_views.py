"""Bulk enrollment: a course and a list of usernames -> a preview -> confirm -> a report.

The preview writes nothing; it signs what it showed (the names, and the
accounts it would enroll), and the confirm step plans again and writes only
if the plan is still the one shown, all in one transaction.
"""

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from common.converters import parse_id
from common.staff_access import staff_context, staff_view
from quizzes.admin.enrollment_forms import (
    EXPIRED,
    BulkEnrollmentConfirmForm,
    BulkEnrollmentForm,
    preview_token,
    preview_token_read,
)
from quizzes.enrollment.selectors import enrollments_with_attempts_kept, similar_usernames
from quizzes.enrollment.services import (
    EnrollmentError,
    enrollments_bulk_create,
    enrollments_bulk_plan,
    enrollments_delete,
)
from quizzes.models import Course, Enrollment

PERMISSION = "quizzes.add_enrollment"


@staff_view(PERMISSION)
@require_http_methods(["GET", "POST"])
def enroll_bulk(request):
    """The form (GET, or POST with errors), then the preview (valid POST)."""
    if request.method == "POST":
        form = BulkEnrollmentForm(request.POST, request.FILES)
        if form.is_valid():
            course = form.cleaned_data["course"]
            plan = enrollments_bulk_plan(course=course, usernames=form.cleaned_data["names"])
            return _preview(request, course=course, names=form.cleaned_data["names"], plan=plan)
    else:
        course_id = parse_id(request.GET.get("course", ""))
        initial = {"course": course_id} if course_id and Course.objects.filter(pk=course_id).exists() else {}
        form = BulkEnrollmentForm(initial=initial)
    context = staff_context(request, title=_("Enroll students in bulk"), form=form, opts=Enrollment._meta)
    return TemplateResponse(request, "staff/enroll_bulk.html", context)


@staff_view(PERMISSION)
@require_POST
def enroll_bulk_confirm(request):
    form = BulkEnrollmentConfirmForm(request.POST)
    payload = preview_token_read(form.cleaned_data["token"], staff_user=request.user) if form.is_valid() else None
    course = Course.objects.filter(pk=payload["course"]).first() if payload else None
    if course is None:
        messages.error(request, EXPIRED)
        return redirect("staff:enroll_bulk")
    names = [str(name) for name in payload["names"]]
    try:
        plan = enrollments_bulk_create(
            course=course, usernames=names, changed_by=request.user, expected_user_ids=payload["users"]
        )
    except EnrollmentError as error:
        # Something changed since the preview: show the new one, write nothing.
        messages.warning(request, error.message)
        return _preview(request, course=course, names=names, plan=enrollments_bulk_plan(course=course, usernames=names))
    _report(request, plan)
    changelist = reverse("admin:quizzes_enrollment_changelist")
    return redirect(f"{changelist}?{urlencode({'course__id__exact': course.pk})}")


def _preview(request, *, course, names, plan):
    token = preview_token(course=course, names=names, user_ids=plan.user_ids, staff_user=request.user)
    context = staff_context(
        request,
        title=ngettext(
            "Check the enrollment of %(count)d student in %(course)s",
            "Check the enrollment of %(count)d students in %(course)s",
            len(plan.to_enroll),
        )
        % {"count": len(plan.to_enroll), "course": course},
        course=course,
        plan=plan,
        confirm_form=BulkEnrollmentConfirmForm(initial={"token": token}),
        opts=Enrollment._meta,
        name_count=len(names),
        similar=similar_usernames(plan.unknown),
    )
    return TemplateResponse(request, "staff/enroll_preview.html", context)


def _report(request, plan) -> None:
    enrolled = len(plan.to_enroll)
    messages.success(
        request,
        ngettext("%(count)d student enrolled in %(course)s.", "%(count)d students enrolled in %(course)s.", enrolled)
        % {"count": enrolled, "course": plan.course},
    )
    if plan.already_enrolled:
        messages.info(
            request,
            ngettext(
                "%(count)d was already enrolled: %(names)s.",
                "%(count)d were already enrolled: %(names)s.",
                len(plan.already_enrolled),
            )
            % {"count": len(plan.already_enrolled), "names": _names(user.username for user in plan.already_enrolled)},
        )
    problems = [
        (
            plan.unknown,
            ngettext(
                "%(count)d unknown username skipped: %(names)s.",
                "%(count)d unknown usernames skipped: %(names)s.",
                len(plan.unknown),
            ),
        ),
        (
            plan.ambiguous,
            ngettext(
                "%(count)d ambiguous username skipped (several accounts differ only in letter case): %(names)s.",
                "%(count)d ambiguous usernames skipped (several accounts differ only in letter case): %(names)s.",
                len(plan.ambiguous),
            ),
        ),
        (
            [user.username for user in plan.inactive],
            ngettext(
                "%(count)d inactive account skipped: %(names)s.",
                "%(count)d inactive accounts skipped: %(names)s.",
                len(plan.inactive),
            ),
        ),
    ]
    for names, message in problems:
        if names:
            messages.warning(request, message % {"count": len(names), "names": _names(names)})


def _names(names, limit: int = 20) -> str:
    names = list(names)
    shown = ", ".join(names[:limit])
    if len(names) > limit:
        return shown + " " + str(_("and %(count)d more") % {"count": len(names) - limit})
    return shown


# Unenrolling, from the Enrollment changelist ----------------------------------------------


@admin.action(permissions=["delete"], description=_("Unenroll selected students (their attempts are kept)"))
def unenroll_selected(modeladmin, request, queryset):
    """Admin action: a confirmation page listing the attempts kept, then ``enrollments_delete``."""
    if request.POST.get("post") == "yes":
        count = enrollments_delete(enrollments=queryset, changed_by=request.user)
        modeladmin.message_user(
            request,
            ngettext(
                "%(count)d student unenrolled; their attempts are kept.",
                "%(count)d students unenrolled; their attempts are kept.",
                count,
            )
            % {"count": count},
            messages.SUCCESS,
        )
        return None
    enrollments = enrollments_with_attempts_kept(queryset)
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": _("Unenroll these students?"),
        "opts": modeladmin.model._meta,
        "enrollments": list(enrollments),
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
    }
    return TemplateResponse(request, "staff/enroll_unenroll_confirm.html", context)
