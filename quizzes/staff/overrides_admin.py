"""The admin of accommodations: a quiz's overrides, inline on the quiz's page and in their own
list, and the course groups they may be for. ``quizzes/admin.py`` registers them; the forms
(``override_forms``) hold the rules."""

from django.contrib import admin
from django.db.models import Count
from django.utils.translation import gettext_lazy as _

from quizzes.models import QuizOverride
from quizzes.staff.override_forms import CourseGroupForm, QuizOverrideForm

OVERRIDE_SETTINGS = ("opens_at", "closes_at", "time_limit", "max_attempts")


class QuizOverrideInline(admin.TabularInline):
    model = QuizOverride
    form = QuizOverrideForm
    fields = ("user", "group", *OVERRIDE_SETTINGS)
    extra = 0
    verbose_name = _("override")
    verbose_name_plural = _(
        "overrides: other dates, time limit or attempts for one student or a group (empty: the quiz's)"
    )

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("user", "group__course")

    # Saved with the quiz's page: whoever may not change the quiz sees its overrides read-only
    # (and edits them in their own list, with the override permissions alone).
    def has_add_permission(self, request, obj=None):
        return super().has_add_permission(request, obj) and request.user.has_perm("quizzes.change_quiz")

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and request.user.has_perm("quizzes.change_quiz")

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and request.user.has_perm("quizzes.change_quiz")


class QuizOverrideAdmin(admin.ModelAdmin):
    form = QuizOverrideForm
    list_display = ("quiz", "user", "group", *OVERRIDE_SETTINGS)
    list_filter = ("quiz__course", "quiz")
    list_select_related = ("quiz", "user", "group__course")
    search_fields = ("user__username", "group__name", "quiz__slug")
    fields = ("quiz", "user", "group", *OVERRIDE_SETTINGS)


class CourseGroupAdmin(admin.ModelAdmin):
    form = CourseGroupForm
    list_display = ("name", "course", "member_count")
    list_filter = ("course",)
    list_select_related = ("course",)
    search_fields = ("name", "course__slug", "members__username")
    filter_horizontal = ("members",)

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(member_count=Count("members"))

    @admin.display(description=_("members"), ordering="member_count")
    def member_count(self, group):
        return group.member_count
