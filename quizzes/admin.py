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

from quizzes.content_problems import content_problems
from quizzes.forms import ChoiceInlineFormSet, QuizAdminForm
from quizzes.i18n import TRANSLATION_LANGUAGES, text_in
from quizzes.localized import quiz_localize
from quizzes.models import Answer, Attempt, Choice, Course, Enrollment, Question, Quiz
from quizzes.selectors import quiz_content_get, quiz_content_queryset


class ContentAdminMixin:
    """Language tabs served offline, right-to-left inputs for Urdu."""

    class Media:
        css = {"all": ("quizzes/admin.css",)}


@admin.register(Course)
class CourseAdmin(ContentAdminMixin, TabbedTranslationAdmin):
    list_display = ("title", "slug", "allow_self_enrollment", "quiz_count")
    list_filter = ("allow_self_enrollment",)
    search_fields = ("slug", "title_en", "title_ur", "title_sn", "title_ind")
    prepopulated_fields = {"slug": ("title_en",)}

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(quiz_count=Count("quizzes"))

    @admin.display(description=_("quizzes"), ordering="quiz_count")
    def quiz_count(self, course):
        return course.quiz_count


@admin.register(Enrollment)
class EnrollmentAdmin(admin.ModelAdmin):
    list_display = ("user", "course", "enrolled_at")
    list_filter = ("course",)
    search_fields = ("user__username", "user__first_name", "user__last_name", "user__email")
    list_select_related = ("user", "course")
    raw_id_fields = ("user",)
    date_hierarchy = "enrolled_at"


class QuestionInline(TranslationStackedInline):
    model = Question
    fields = ("position", "text", "explanation")
    extra = 0
    show_change_link = True
    ordering = ("position",)


@admin.register(Quiz)
class QuizAdmin(ContentAdminMixin, TabbedTranslationAdmin):
    form = QuizAdminForm
    list_display = ("title", "course", "slug", "is_published", "pass_mark", "max_attempts", "question_count", "links")
    list_filter = ("is_published", "course")
    list_select_related = ("course",)
    search_fields = ("slug", "title_en", "title_ur", "title_sn", "title_ind")
    prepopulated_fields = {"slug": ("title_en",)}
    readonly_fields = ("problems",)
    fieldsets = (
        (None, {"fields": ("course", "slug", "position", "title", "description")}),
        (_("Taking the quiz"), {"fields": ("is_published", "pass_mark", "max_attempts")}),
        (_("Content check"), {"fields": ("problems",)}),
    )
    inlines = (QuestionInline,)

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

    @admin.display(description=_("preview"))
    def links(self, quiz):
        url = reverse("admin:quizzes_quiz_preview", args=[quiz.pk])
        return format_html('<a href="{}">{}</a>', url, _("Preview"))

    @admin.display(description=_("problems"))
    def problems(self, quiz):
        if quiz.pk is None:
            return "-"
        found = content_problems(quiz_content_queryset().filter(pk=quiz.pk))
        if not found:
            return _("None: every question has one correct choice, an explanation and complete translations.")
        return format_html("<ul>{}</ul>", format_html_join("", "<li>{}</li>", ((str(p),) for p in found)))

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
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
    formset = ChoiceInlineFormSet
    fields = ("position", "text", "is_correct")
    extra = 0
    min_num = 2
    ordering = ("position",)


@admin.register(Question)
class QuestionAdmin(ContentAdminMixin, TabbedTranslationAdmin):
    list_display = ("__str__", "short_text", "quiz", "translated_into")
    list_display_links = ("__str__", "short_text")
    list_filter = ("quiz__course", "quiz")
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
    fields = ("quiz", "position", "text", "explanation")
    inlines = (ChoiceInline,)
    ordering = ("quiz", "position")

    @admin.display(description=_("text"))
    def short_text(self, question):
        text = text_in(question, "text", "en")
        return text if len(text) <= 90 else text[:89] + "…"

    @admin.display(description=_("translated into"))
    def translated_into(self, question):
        return ", ".join(code for code in TRANSLATION_LANGUAGES if text_in(question, "text", code)) or "-"


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


@admin.register(Attempt)
class AttemptAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("user", "quiz", "number", "state", "score", "max_score", "pass_mark", "started_at", "finished_at")
    list_filter = ("state", "quiz__course", "quiz")
    list_select_related = ("user", "quiz")
    search_fields = ("user__username", "quiz__slug")
    date_hierarchy = "started_at"
    inlines = (AnswerInline,)


@admin.register(Answer)
class AnswerAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("attempt", "question", "choice", "is_correct", "language", "answered_at")
    list_filter = ("is_correct", "language", "question__quiz")
    list_select_related = ("attempt__user", "attempt__quiz", "question__quiz", "choice")
    search_fields = ("attempt__user__username",)
    date_hierarchy = "answered_at"
