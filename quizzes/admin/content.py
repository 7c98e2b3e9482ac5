"""What the quiz and question admin pages do beyond declaring fields.

- Translation status: the "Missing in" / "Stale in" list filters, the quiz's
  translation status page, the status block of a question's page.
- Safe edits: changing the correct choice of an answered question asks for a
  confirmation, then regrades (``quizzes.admin.regrade_confirmation``); deleting
  answered content is refused with the reason and the way out (archive instead).

The admin classes in ``quizzes/admin/registrations.py`` mix these in.
"""

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from quizzes.admin.regrade_confirmation import QuestionRegradeMixin
from quizzes.content.archive import questions_archive
from quizzes.content.languages import TRANSLATION_LANGUAGES
from quizzes.content.machine_translations import language_settings
from quizzes.content.selectors import quiz_content_get
from quizzes.content.services import translations_confirm
from quizzes.content.translation_status import (
    HUMAN_STATES,
    Status,
    question_needs_q,
    quiz_needs_q,
    quiz_translation_report,
    translation_columns,
    translation_status,
)
from quizzes.content.true_false import true_false_choices_translate
from quizzes.managers import is_answered
from quizzes.models import Answer, Attempt, Question, Quiz


def _language_names() -> dict[str, str]:
    return {code: str(name) for code, name in settings.LANGUAGES}


# List filters ----------------------------------------------------------------------


class _TranslationFilter(admin.SimpleListFilter):
    kind: str

    def lookups(self, request, model_admin):
        names = _language_names()
        return [(code, names[code]) for code in TRANSLATION_LANGUAGES]

    def queryset(self, request, queryset):
        if self.value() in TRANSLATION_LANGUAGES:
            return queryset.filter(self.needs(self.kind, self.value()))
        return queryset


class QuestionMissingFilter(_TranslationFilter):
    title = _("missing in (shown in English)")
    parameter_name = "missing_in"
    kind = Status.MISSING
    needs = staticmethod(question_needs_q)


class QuestionStaleFilter(_TranslationFilter):
    title = _("stale in (English changed since)")
    parameter_name = "stale_in"
    kind = Status.STALE
    needs = staticmethod(question_needs_q)


class QuestionMachineFilter(_TranslationFilter):
    title = _("machine translation in (to be checked)")
    parameter_name = "machine_in"
    kind = Status.MACHINE
    needs = staticmethod(question_needs_q)


class QuestionReviewedFilter(_TranslationFilter):
    title = _("with reviewed texts in")
    parameter_name = "reviewed_in"
    kind = Status.REVIEWED
    needs = staticmethod(question_needs_q)


class QuizMissingFilter(QuestionMissingFilter):
    needs = staticmethod(quiz_needs_q)


class QuizMachineFilter(QuestionMachineFilter):
    needs = staticmethod(quiz_needs_q)


class QuizReviewedFilter(QuestionReviewedFilter):
    needs = staticmethod(quiz_needs_q)


class QuizStaleFilter(QuestionStaleFilter):
    needs = staticmethod(quiz_needs_q)


# Deleting answered content ------------------------------------------------------------


def _refusing_delete_selected(modeladmin, request, queryset):
    refused = modeladmin.delete_refused_in(queryset)
    if refused:
        modeladmin.message_user(request, modeladmin.delete_refused_message(refused), messages.ERROR)
        return None
    return delete_selected(modeladmin, request, queryset)


class RefuseDeletingAnsweredMixin:
    """Replaces Django's generic "protected related objects" page for content
    that students' answers point at with the reason and what to do instead."""

    delete_refused_template = "admin/quizzes/delete_refused.html"

    def delete_refused_in(self, queryset) -> list:
        raise NotImplementedError

    def delete_refused_message(self, refused) -> str:
        raise NotImplementedError

    def delete_refusal_context(self, request, obj) -> dict | None:
        raise NotImplementedError

    def delete_view(self, request, object_id, extra_context=None):
        obj = self.get_object(request, unquote(object_id))
        if obj is not None and self.has_delete_permission(request, obj):
            refusal = self.delete_refusal_context(request, obj)
            if refusal is not None:
                context = {
                    **self.admin_site.each_context(request),
                    "opts": self.opts,
                    "object": obj,
                    "title": _("Cannot delete %(object)s") % {"object": obj},
                    **refusal,
                }
                return TemplateResponse(request, self.delete_refused_template, context)
        return super().delete_view(request, object_id, extra_context)

    def get_actions(self, request):
        actions = super().get_actions(request)
        if "delete_selected" in actions:
            _func, name, description = actions["delete_selected"]
            actions["delete_selected"] = (_refusing_delete_selected, name, description)
        return actions


def _record_counts(answers) -> dict:
    counts = answers.aggregate(
        answers=Count("pk"), attempts=Count("attempt", distinct=True), students=Count("attempt__user", distinct=True)
    )
    return counts


# The question admin ----------------------------------------------------------------------


@admin.action(description=_("Archive the selected questions (answers stay on record)"), permissions=["change"])
def archive_questions(modeladmin, request, queryset):
    count = questions_archive(questions=queryset, archived=True)
    modeladmin.message_user(
        request, ngettext("%(count)d question archived.", "%(count)d questions archived.", count) % {"count": count}
    )


@admin.action(description=_("Bring back the selected archived questions"), permissions=["change"])
def unarchive_questions(modeladmin, request, queryset):
    count = questions_archive(questions=queryset, archived=False)
    modeladmin.message_user(
        request,
        ngettext("%(count)d question brought back.", "%(count)d questions brought back.", count) % {"count": count},
    )


def object_translation_states(obj) -> dict[str, list[tuple[str, Status]]]:
    """language code -> [(field, status)] of every translation of ``obj`` with English to translate."""
    found: dict[str, list[tuple[str, Status]]] = {}
    for name, language, _translated in translation_columns(type(obj)):
        status = translation_status(obj, name, language)
        if status is not None:
            found.setdefault(language, []).append((name, status))
    return found


# Each field's state in the status block, those needing work first.
_STATE_LABELS = (
    (Status.STALE, _("stale: %(fields)s")),
    (Status.MISSING, _("missing (shown in English): %(fields)s")),
    (Status.MACHINE, _("machine translation: %(fields)s")),
    (Status.TRANSLATED, _("translated: %(fields)s")),
    (Status.REVIEWED, _("reviewed: %(fields)s")),
)


class QuestionSafeEditsMixin(QuestionRegradeMixin, RefuseDeletingAnsweredMixin):
    """Regrade confirmation, archive instead of delete, translation status block."""

    # Deleting -----------------------------------------------------------------------
    def delete_refused_in(self, queryset):
        return list(queryset.answered())

    def delete_refused_message(self, refused):
        names = ", ".join(str(question) for question in refused)
        return ngettext(
            "Question %(questions)s can't be deleted: students answered it and their answers stay on record. "
            "Archive it instead.",
            "Questions %(questions)s can't be deleted: students answered them and their answers stay on record. "
            "Archive them instead.",
            len(refused),
        ) % {"questions": names}

    def delete_refusal_context(self, request, question):
        if not is_answered(question):
            return None
        answers = Answer.objects.filter(question=question)
        return {
            "counts": _record_counts(answers),
            "reason": _(
                "Students have answered this question. Their answers, and the scores computed from them, "
                "are part of their records, so the question can't be deleted."
            ),
            "instead": _(
                "Archive it instead: it will no longer be asked (new attempts leave it out of their maximum "
                "score) and every answer stays on record. An archived question can be brought back."
            ),
            "archive_url": (
                reverse("admin:quizzes_question_archive", args=[question.pk])
                if self.has_change_permission(request, question) and not question.is_archived
                else None
            ),
            "archive_label": _("Archive instead"),
            "back_url": reverse("admin:quizzes_question_change", args=[question.pk]),
        }

    def get_urls(self):
        archive = self.admin_site.admin_view(self.archive_view)
        return [path("<path:object_id>/archive/", archive, name="quizzes_question_archive"), *super().get_urls()]

    def archive_view(self, request, object_id):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        question = get_object_or_404(Question, pk=object_id)
        if not self.has_change_permission(request, question):
            raise PermissionDenied
        questions_archive(questions=[question], archived=True)
        self.message_user(
            request,
            _("Question %(question)s is archived: it is no longer asked, and its answers stay on record.")
            % {"question": question},
        )
        return HttpResponseRedirect(reverse("admin:quizzes_question_change", args=[question.pk]))

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        # A true or false question's choices in every language, in the site's words where the
        # editor wrote none.
        true_false_choices_translate(form.instance)
        languages = form.cleaned_data.get("translations_reviewed") or []
        if languages:
            translations_confirm(question=form.instance, languages=languages)

    # The translation status block -----------------------------------------------------------
    @admin.display(description=_("translation status"))
    def translation_status(self, question):
        if question.pk is None:
            return "-"
        names = _language_names()
        field_names = {"text": _("text"), "explanation": _("explanation")}
        states = {code: [] for code in TRANSLATION_LANGUAGES}
        for code, found in object_translation_states(question).items():
            states[code] += [(str(field_names[name]), status) for name, status in found]
        for choice in question.choices.filter(is_archived=False).order_by("position"):
            label = _("choice %(position)s") % {"position": choice.position}
            for code, found in object_translation_states(choice).items():
                states[code] += [(str(label), status) for _name, status in found]
        rows = []
        for code in TRANSLATION_LANGUAGES:
            parts = []
            for status, label in _STATE_LABELS:
                fields = [where for where, found in states[code] if found == status]
                if fields:
                    parts.append((f"state-{status.value}", label % {"fields": ", ".join(fields)}))
            found = {status for _where, status in states[code]}
            css = (
                "translation-stale"
                if Status.STALE in found
                else "translation-missing"
                if found - set(HUMAN_STATES)
                else "translation-ok"
            )
            rows.append((names[code], css, format_html_join("; ", '<span class="{}">{}</span>', parts)))
        return format_html(
            '<dl class="translation-status">{}</dl>',
            format_html_join("", '<dt>{}</dt><dd class="{}">{}</dd>', rows),
        )


class QuizSafeEditsMixin(RefuseDeletingAnsweredMixin):
    """Refuse deleting a quiz with attempts; the translation status page."""

    def delete_refused_in(self, queryset):
        return list(queryset.attempted())

    def delete_refused_message(self, refused):
        names = ", ".join(str(quiz) for quiz in refused)
        return ngettext(
            "Quiz %(quizzes)s can't be deleted: students have attempted it and their attempts stay on record. "
            "Unpublish it instead.",
            "Quizzes %(quizzes)s can't be deleted: students have attempted them and their attempts stay on record. "
            "Unpublish them instead.",
            len(refused),
        ) % {"quizzes": names}

    def delete_refusal_context(self, request, quiz):
        if not Quiz.objects.filter(pk=quiz.pk).attempted().exists():
            return None
        answers = Answer.objects.filter(attempt__quiz=quiz)
        attempts = Attempt.objects.filter(quiz=quiz)
        counts = _record_counts(answers)
        counts["attempts"] = attempts.count()
        counts["students"] = attempts.values("user").distinct().count()
        return {
            "counts": counts,
            "reason": _(
                "Students have attempted this quiz. Their attempts, answers and scores are part of their "
                "records, so the quiz can't be deleted."
            ),
            "instead": _(
                "Unpublish it instead (untick “published” on its page): students no longer see it, "
                "and every attempt stays on record."
            ),
            "archive_url": None,
            "back_url": reverse("admin:quizzes_quiz_change", args=[quiz.pk]),
        }

    def get_urls(self):
        translations = self.admin_site.admin_view(self.translations_view)
        return [
            path("<path:object_id>/translations/", translations, name="quizzes_quiz_translations"),
            *super().get_urls(),
        ]

    def translations_view(self, request, object_id):
        quiz_stub = get_object_or_404(Quiz, pk=object_id)
        if not self.has_view_permission(request, quiz_stub):
            raise PermissionDenied
        quiz = quiz_content_get(slug=quiz_stub.slug)
        changelist = reverse("admin:quizzes_question_changelist")
        reports = quiz_translation_report(quiz)
        language_setting = {setting.language: setting for setting in language_settings()}
        for report in reports:
            report.language_setting = language_setting[report.code]
            report.stale_url = f"{changelist}?quiz__id__exact={quiz.pk}&stale_in={report.code}"
            report.missing_url = f"{changelist}?quiz__id__exact={quiz.pk}&missing_in={report.code}"
        context = {
            **self.admin_site.each_context(request),
            "title": _("Translation status: %(quiz)s") % {"quiz": quiz},
            "opts": self.opts,
            "original": quiz,
            "reports": reports,
            "has_view_permission": True,
        }
        return TemplateResponse(request, "admin/quizzes/quiz/translations.html", context)
