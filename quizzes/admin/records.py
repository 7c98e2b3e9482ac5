"""The admin of records: attempts, their answers and regrades, read-only (written only by the
quiz services). ``quizzes/admin/registrations.py`` registers them."""

from django.contrib import admin
from django.template.loader import render_to_string
from django.utils.translation import get_language, get_language_info
from django.utils.translation import gettext_lazy as _

from quizzes.admin.attempt_review import attempt_seen
from quizzes.models import Answer


class ReadOnlyAdminMixin:
    """Attempts and answers are records: written only by the quiz services."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class AnswerInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = Answer
    fields = ("question", "choice", "is_correct", "language", "answered_at")
    readonly_fields = fields
    extra = 0

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("question__quiz", "choice")


ATTEMPT_FIELDS = (
    "user",
    "quiz",
    "is_practice",
    "number",
    "state",
    "score",
    "max_score",
    "pass_mark",
    "started_at",
    "deadline",
    "finished_at",
)


class AttemptAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ATTEMPT_FIELDS
    list_filter = ("state", "is_practice", "quiz__course", "quiz")
    list_select_related = ("user", "quiz")
    search_fields = ("user__username", "quiz__slug")
    date_hierarchy = "started_at"
    fieldsets = (
        (None, {"fields": ATTEMPT_FIELDS}),
        (_("What the student saw"), {"fields": ("seen",)}),
    )
    readonly_fields = ("seen",)
    inlines = (AnswerInline,)

    @admin.display(description=_("questions, in the attempt's order"))
    def seen(self, attempt):
        language = get_language()
        context = {
            "questions": attempt_seen(attempt=attempt),
            "ui_language": language,
            "ui_direction": "rtl" if get_language_info(language)["bidi"] else "ltr",
        }
        return render_to_string("admin/quizzes/attempt/_seen.html", context)


class AnswerAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("attempt", "question", "choice", "is_correct", "language", "answered_at")
    list_filter = ("is_correct", "language", "question__quiz")
    list_select_related = ("attempt__user", "attempt__quiz", "question__quiz", "choice")
    search_fields = ("attempt__user__username",)
    date_hierarchy = "answered_at"


class RegradeAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """The record of every change of a correct choice after students answered."""

    list_display = (
        "changed_at",
        "question",
        "old_correct_choice",
        "new_correct_choice",
        "changed_by",
        "answers_changed",
        "attempts_regraded",
        "students_affected",
    )
    list_filter = ("question__quiz",)
    list_select_related = ("question__quiz", "old_correct_choice", "new_correct_choice", "changed_by")
    date_hierarchy = "changed_at"
    fields = (*list_display, "answers", "attempts")
    readonly_fields = fields

    def has_view_permission(self, request, obj=None):
        # Whoever may read attempts may read how they were regraded.
        return request.user.has_perm("quizzes.view_attempt")
