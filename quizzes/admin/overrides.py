"""The admin of accommodations: a quiz's overrides, inline on the quiz's page and in their own
list, and the course groups they may be for. ``quizzes/admin/registrations.py`` registers them; the forms
(``override_forms``) hold the rules, and every write goes through the services of
``quizzes.attempts.deadlines``, which move the deadlines of the attempts in progress it
changes; the page then says how many."""

from django.contrib import admin, messages
from django.db.models import Count
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from quizzes.admin.override_forms import CourseGroupForm, QuizOverrideForm
from quizzes.attempts.deadlines import (
    DeadlinesRecomputed,
    course_group_delete,
    course_group_members_changed,
    quiz_override_save,
    quiz_overrides_delete,
)
from quizzes.models import QuizOverride

NO_DEADLINE_MOVED = _("No attempt in progress needed a new deadline.")


def deadlines_message(modeladmin, request, done: DeadlinesRecomputed) -> None:
    """Tell whoever saved what the save did to the attempts in progress."""
    if not done.moved:
        modeladmin.message_user(request, NO_DEADLINE_MOVED, messages.INFO)
        return
    text = ngettext(
        "%(count)d attempt in progress got a new deadline.",
        "%(count)d attempts in progress got a new deadline.",
        len(done.moved),
    ) % {"count": len(done.moved)}
    if done.overdue:
        text += " " + ngettext(
            "%(count)d of them is past its new deadline: it takes no more answers and is finished with "
            "the answers it has.",
            "%(count)d of them are past their new deadline: they take no more answers and are finished with "
            "the answers they have.",
            len(done.overdue),
        ) % {"count": len(done.overdue)}
    modeladmin.message_user(request, text, messages.WARNING if done.overdue else messages.INFO)


def overrides_formset_save(formset) -> DeadlinesRecomputed:
    """Save an inline formset of overrides through the services (``QuizAdmin.save_formset``)."""
    formset.save(commit=False)
    done = DeadlinesRecomputed()
    for override in [*formset.new_objects, *(changed for changed, _fields in formset.changed_objects)]:
        done += quiz_override_save(override=override)
    if formset.deleted_objects:
        done += quiz_overrides_delete(overrides=formset.deleted_objects)
    return done


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

    def save_model(self, request, obj, form, change):
        deadlines_message(self, request, quiz_override_save(override=obj))

    def delete_model(self, request, obj):
        deadlines_message(self, request, quiz_overrides_delete(overrides=[obj]))

    def delete_queryset(self, request, queryset):
        deadlines_message(self, request, quiz_overrides_delete(overrides=list(queryset)))


class CourseGroupAdmin(admin.ModelAdmin):
    form = CourseGroupForm
    list_display = ("name", "course", "member_count")
    list_filter = ("course",)
    list_select_related = ("course",)
    search_fields = ("name", "course__slug", "members__username")
    filter_horizontal = ("members",)

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(member_count=Count("members"))

    def save_model(self, request, obj, form, change):
        # Who was in the group before the members saved with the form (save_related) change it.
        obj.members_before = set(obj.members.values_list("pk", flat=True)) if change else set()
        super().save_model(request, obj, form, change)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        done = course_group_members_changed(group=form.instance, before=form.instance.members_before)
        if done.moved or form.instance.members_before != set(form.instance.members.values_list("pk", flat=True)):
            deadlines_message(self, request, done)

    def delete_model(self, request, obj):
        deadlines_message(self, request, course_group_delete(group=obj))

    def delete_queryset(self, request, queryset):
        done = DeadlinesRecomputed()
        for group in queryset:
            done += course_group_delete(group=group)
        deadlines_message(self, request, done)

    @admin.display(description=_("members"), ordering="member_count")
    def member_count(self, group):
        return group.member_count
