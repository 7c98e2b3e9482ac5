"""Admin: content editors edit every translation in language tabs; records are read-only."""

from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _
from modeltranslation.admin import TabbedTranslationAdmin, TranslationStackedInline, TranslationTabularInline

from quizzes.accounts.login import AdminLoginForm
from quizzes.admin.content import (
    QuestionMachineFilter,
    QuestionMissingFilter,
    QuestionReviewedFilter,
    QuestionSafeEditsMixin,
    QuestionStaleFilter,
    QuizMachineFilter,
    QuizMissingFilter,
    QuizReviewedFilter,
    QuizSafeEditsMixin,
    QuizStaleFilter,
    archive_questions,
    unarchive_questions,
)
from quizzes.admin.content_forms import (
    ChoiceInlineForm,
    ChoiceInlineFormSet,
    CourseAdminForm,
    QuestionAdminForm,
    QuestionInlineForm,
    QuestionInlineFormSet,
)
from quizzes.admin.enrollment_views import unenroll_selected
from quizzes.admin.language_settings import LanguageSettingAdmin
from quizzes.admin.outbox import OutboxMessageAdmin
from quizzes.admin.overrides import (
    CourseGroupAdmin,
    QuizOverrideAdmin,
    QuizOverrideInline,
    deadlines_message,
    overrides_formset_save,
)
from quizzes.admin.quiz_dates import TEACHERS_SETTINGS_FIELDSETS, QuizDatesForm
from quizzes.admin.quiz_settings import PoolDrawInline, QuizLayoutSettingsMixin
from quizzes.admin.records import AnswerAdmin, AttemptAdmin, RegradeAdmin
from quizzes.admin.translation_checks import TranslationChecksMixin
from quizzes.admin.translation_files import QuizTranslationFilesMixin
from quizzes.admin.translation_memory import TranslationMemoryMixin
from quizzes.admin.versions import QuestionVersionsMixin
from quizzes.attempts.deadlines import DEADLINE_SETTINGS, DeadlinesRecomputed, attempt_deadlines_recompute
from quizzes.content.languages import TRANSLATION_LANGUAGES, text_in
from quizzes.content.localized import quiz_localize
from quizzes.content.problems import content_problems, content_warnings
from quizzes.content.selectors import quiz_content_get, quiz_content_queryset
from quizzes.enrollment.services import enrollment_create, enrollment_delete, enrollments_delete
from quizzes.integrations.lti.roster_admin import roster_import
from quizzes.models import (
    Answer,
    Attempt,
    Choice,
    Course,
    CourseGroup,
    Enrollment,
    EnrollmentChange,
    LanguageSetting,
    OutboxMessage,
    Question,
    Quiz,
    QuizOverride,
    Regrade,
)


class ContentAdminMixin:
    """Language tabs served offline, right-to-left inputs for Urdu."""

    class Media:
        css = {"all": ("quizzes/admin.css", "quizzes/translation-memory.css")}
        js = ("quizzes/admin-a11y.js", "quizzes/translation-memory.js")


# The admin home lists the staff reports and tools (quizzes/admin/) first.
admin.site.index_template = "admin/staff_index.html"
# The site's own name in the header and the window title (not "Django administration").
admin.site.site_header = _("Quizzes: staff")
admin.site.site_title = _("Quizzes staff")
# Its login warns before the failure that locks the account, as the students' does.
admin.site.login_form = AdminLoginForm


@admin.register(Course)
class CourseAdmin(ContentAdminMixin, TabbedTranslationAdmin):
    form = CourseAdminForm
    list_display = ("title", "slug", "allow_self_enrollment", "quiz_count")
    list_filter = ("allow_self_enrollment",)
    search_fields = ("slug", "title_en", "title_ur", "title_sn", "title_ind")
    prepopulated_fields = {"slug": ("title_en",)}
    actions = (roster_import,)

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(quiz_count=Count("quizzes"))

    @admin.display(description=_("quizzes"), ordering="quiz_count")
    def quiz_count(self, course):
        return course.quiz_count


@admin.register(Enrollment)
class EnrollmentAdmin(admin.ModelAdmin):
    """Every write goes through the enrollment services, which log it in the enrollment history."""

    list_display = ("user", "course", "enrolled_at")
    list_filter = ("course",)
    search_fields = ("user__username", "user__first_name", "user__last_name", "user__email")
    list_select_related = ("user", "course")
    raw_id_fields = ("user",)
    date_hierarchy = "enrolled_at"
    actions = (unenroll_selected,)
    change_list_template = "staff/enrollment_change_list.html"

    def get_readonly_fields(self, request, obj=None):
        # Moving an enrollment would rewrite history: unenroll, then enroll, and both are logged.
        return ("user", "course", "enrolled_at") if obj is not None else ()

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # "Unenroll selected students" does it, and says what is kept
        return actions

    def save_model(self, request, obj, form, change):
        if change:
            return
        enrollment = enrollment_create(user=obj.user, course=obj.course, changed_by=request.user)
        obj.pk, obj.enrolled_at = enrollment.pk, enrollment.enrolled_at
        obj._state.adding = False

    def delete_model(self, request, obj):
        enrollment_delete(enrollment=obj, changed_by=request.user)

    def delete_queryset(self, request, queryset):
        enrollments_delete(enrollments=queryset, changed_by=request.user)


@admin.register(EnrollmentChange)
class EnrollmentChangeAdmin(admin.ModelAdmin):
    """The enrollment history: read-only, written only by the enrollment services."""

    list_display = ("changed_at", "user", "course", "action", "source", "changed_by")
    list_filter = ("course", "action", "source")
    search_fields = ("user__username", "user__first_name", "user__last_name")
    list_select_related = ("user", "course", "changed_by")
    date_hierarchy = "changed_at"
    readonly_fields = ("user", "course", "action", "source", "changed_by", "changed_at")

    def has_view_permission(self, request, obj=None):
        # Whoever may see enrollments may see their history.
        return super().has_view_permission(request, obj) or request.user.has_perm("quizzes.view_enrollment")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class QuestionInline(TranslationStackedInline):
    model = Question
    form = QuestionInlineForm
    formset = QuestionInlineFormSet
    fields = ("position", "kind", "text", "explanation", "pool", "keep_choice_order", "is_archived")
    extra = 0
    show_change_link = True
    ordering = ("position",)


@admin.register(Quiz)
class QuizAdmin(
    TranslationChecksMixin,
    QuizLayoutSettingsMixin,
    QuizTranslationFilesMixin,
    QuizSafeEditsMixin,
    TranslationMemoryMixin,
    ContentAdminMixin,
    TabbedTranslationAdmin,
):
    form = QuizDatesForm
    list_display = ("title", "course", "slug", "is_published", "pass_mark", "max_attempts", "question_count", "links")
    list_filter = (
        "is_published",
        "course",
        QuizMissingFilter,
        QuizStaleFilter,
        QuizMachineFilter,
        QuizReviewedFilter,
    )
    list_select_related = ("course",)
    search_fields = ("slug", "title_en", "title_ur", "title_sn", "title_ind")
    prepopulated_fields = {"slug": ("title_en",)}
    readonly_fields = ("problems", "translation_suggestions")
    fieldsets = (
        (None, {"fields": ("course", "slug", "position", "title", "description", "translation_suggestions")}),
        (_("Taking the quiz"), {"fields": ("is_published", "pass_mark", "max_attempts")}),
        *TEACHERS_SETTINGS_FIELDSETS,
        (
            _("Attempts: order and draw"),
            {
                "fields": ("shuffle_questions", "shuffle_choices", "questions_per_attempt"),
                "description": _("Pool draws are listed below the settings, before the questions."),
            },
        ),
        (_("Content check"), {"fields": ("problems",)}),
    )
    inlines = (PoolDrawInline, QuizOverrideInline, QuestionInline)

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(question_count=Count("questions"))

    def get_urls(self):
        preview = self.admin_site.admin_view(self.preview_view)
        return [
            path("<path:object_id>/preview/", preview, name="quizzes_quiz_preview"),
            *super().get_urls(),
        ]

    @admin.display(description=_("questions"), ordering="question_count")
    def question_count(self, quiz):
        return quiz.question_count

    @admin.display(description=_("pages"))
    def links(self, quiz):
        return format_html(
            '<a href="{}">{}</a> · <a href="{}">{}</a> · <a href="{}">{}</a>',
            reverse("admin:quizzes_quiz_preview", args=[quiz.pk]),
            _("Preview"),
            reverse("admin:quizzes_quiz_translations", args=[quiz.pk]),
            _("Translation status"),
            reverse("staff:quiz_statistics", args=[quiz.pk]),
            _("Item statistics"),
        )

    @admin.display(description=_("problems"))
    def problems(self, quiz):
        if quiz.pk is None:
            return "-"
        quizzes = list(quiz_content_queryset().filter(pk=quiz.pk))
        found = content_problems(quizzes)
        # Set by QuizAdminForm when it refuses publishing: the page lists them once, at the top.
        refused = getattr(quiz, "refused_problems", ())
        unlisted = [problem for problem in found if problem not in refused]
        if not found:
            result = _("None: every question has one correct choice and an explanation.")
        elif refused:
            result = format_html("<p>{}</p>", _("The content problems are listed at the top of the page."))
        else:
            result = ""
        if unlisted:
            result = format_html(
                "{}<ul>{}</ul>", result, format_html_join("", "<li>{}</li>", ((str(p),) for p in unlisted))
            )
        warnings = content_warnings(quizzes)
        if warnings:
            result = format_html(
                '{}<p class="content-warnings">{}</p><ul>{}</ul>',
                result,
                _("Warnings (publishing is allowed):"),
                format_html_join("", "<li>{}</li>", ((str(w),) for w in warnings)),
            )
        return result

    def save_formset(self, request, form, formset, change):
        if formset.model is QuizOverride:
            request.deadlines_recomputed += overrides_formset_save(formset)
        else:
            super().save_formset(request, form, formset, change)

    def save_related(self, request, form, formsets, change):
        # The overrides' formset adds what its services did; the quiz's own dates and limit, any
        # attempt in progress (in the admin's transaction, quizzes.attempts.deadlines).
        request.deadlines_recomputed = DeadlinesRecomputed()
        super().save_related(request, form, formsets, change)
        overrides_changed = any(formset.model is QuizOverride and formset.has_changed() for formset in formsets)
        if change and set(DEADLINE_SETTINGS) & set(form.changed_data):
            request.deadlines_recomputed += attempt_deadlines_recompute(quiz_ids=[form.instance.pk])
        if change and (overrides_changed or set(DEADLINE_SETTINGS) & set(form.changed_data)):
            deadlines_message(self, request, request.deadlines_recomputed)
        found = content_problems(quiz_content_queryset().filter(pk=form.instance.pk))
        if found:
            self.message_user(
                request,
                _("This quiz has %(count)d content problem(s); see “Content check”.") % {"count": len(found)},
                messages.WARNING,
            )

    def preview_view(self, request, object_id):
        quiz_stub = get_object_or_404(Quiz, pk=object_id)
        if not self.has_view_permission(request, quiz_stub):
            raise PermissionDenied
        language = request.GET.get("language", "en")
        if language not in dict(settings.LANGUAGES):
            language = "en"
        view = quiz_localize(quiz=quiz_content_get(slug=quiz_stub.slug), language=language)
        context = {
            **self.admin_site.each_context(request),
            "title": _("Preview: %(quiz)s") % {"quiz": quiz_stub},
            "opts": self.opts,
            "original": quiz_stub,
            "quiz": view,
            "languages": settings.LANGUAGES,
            "has_view_permission": True,
        }
        return TemplateResponse(request, "admin/quizzes/quiz/preview.html", context)


class ChoiceInline(TranslationTabularInline):
    model = Choice
    form = ChoiceInlineForm
    formset = ChoiceInlineFormSet
    fields = ("position", "text", "is_correct", "is_archived")
    extra = 0
    min_num = 2
    ordering = ("position",)


@admin.register(Question)
class QuestionAdmin(
    TranslationChecksMixin,
    QuestionVersionsMixin,
    QuestionSafeEditsMixin,
    TranslationMemoryMixin,
    ContentAdminMixin,
    TabbedTranslationAdmin,
):
    form = QuestionAdminForm
    list_display = ("__str__", "short_text", "quiz", "pool", "translated_into", "is_archived")
    list_display_links = ("__str__", "short_text")
    list_filter = (
        "quiz__course",
        "quiz",
        "is_archived",
        "kind",
        "pool",
        QuestionMissingFilter,
        QuestionStaleFilter,
        QuestionMachineFilter,
        QuestionReviewedFilter,
    )
    actions = (archive_questions, unarchive_questions)
    list_select_related = ("quiz",)
    search_fields = (
        "text_en",
        "text_ur",
        "text_sn",
        "text_ind",
        "explanation_en",
        "choices__text_en",
        "choices__text_ur",
        "choices__text_sn",
        "choices__text_ind",
    )
    fields = (
        "quiz",
        "position",
        "kind",
        "text",
        "explanation",
        "pool",
        "keep_choice_order",
        "is_archived",
        "translation_status",
        "translation_checks",
        "translation_suggestions",
        "translations_reviewed",
        "versions",
    )
    readonly_fields = ("translation_status", "translation_checks", "translation_suggestions", "versions")
    inlines = (ChoiceInline,)
    ordering = ("quiz", "position")

    @admin.display(description=_("text"))
    def short_text(self, question):
        text = text_in(question, "text", "en")
        return text if len(text) <= 90 else text[:89] + "…"

    @admin.display(description=_("translated into"))
    def translated_into(self, question):
        return ", ".join(code for code in TRANSLATION_LANGUAGES if text_in(question, "text", code)) or "-"


admin.site.register(QuizOverride, QuizOverrideAdmin)
admin.site.register(CourseGroup, CourseGroupAdmin)
admin.site.register(Attempt, AttemptAdmin)
admin.site.register(Answer, AnswerAdmin)
admin.site.register(Regrade, RegradeAdmin)
admin.site.register(OutboxMessage, OutboxMessageAdmin)
admin.site.register(LanguageSetting, LanguageSettingAdmin)

# LTI registrations (django-lti's page, with the courses each platform context opens).
import quizzes.integrations.lti.admin  # noqa: E402, F401
