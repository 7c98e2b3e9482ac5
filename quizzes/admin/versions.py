"""A question's versions in its admin pages: the list on its change page, and the "Versions"
page with what changed between each version and the one before (per field and language).

Whoever may view the question may view its versions. ``QuestionAdmin`` in
``quizzes/admin/registrations.py`` mixes this in.
"""

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext_lazy as _

from quizzes.content.versions_diff import question_version_history, question_versions
from quizzes.models import Question


class QuestionVersionsMixin:
    versions_template = "admin/quizzes/question/versions.html"

    def get_urls(self):
        versions = self.admin_site.admin_view(self.versions_view)
        return [path("<path:object_id>/versions/", versions, name="quizzes_question_versions"), *super().get_urls()]

    @admin.display(description=_("versions"))
    def versions(self, question):
        if question.pk is None:
            return "-"
        versions = list(question_versions(question_id=question.pk))
        return render_to_string(
            "admin/quizzes/question/_versions_table.html",
            {
                "versions": versions,
                "current": versions[-1].number if versions else None,
                "versions_url": reverse("admin:quizzes_question_versions", args=[question.pk]),
            },
        )

    def versions_view(self, request, object_id):
        question = get_object_or_404(Question.objects.select_related("quiz"), pk=object_id)
        if not self.has_view_permission(request, question):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "title": _("Versions: %(question)s") % {"question": question},
            "opts": self.opts,
            "original": question,
            "entries": question_version_history(question_id=question.pk),
            "has_view_permission": True,
        }
        return TemplateResponse(request, self.versions_template, context)
