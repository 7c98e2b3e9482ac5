"""Translation files on a quiz's translation status page: download the texts of one language
as XLIFF or PO, upload a translator's file back. Both call what the commands call
(``quizzes.content.translation_files``); editors with the change permission on quizzes."""

from django import forms
from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from quizzes.content.languages import TRANSLATION_LANGUAGES
from quizzes.content.selectors import quiz_content_get
from quizzes.content.translation_files.export import FORMATS, PO, XLIFF, translations_export
from quizzes.content.translation_files.imports import TranslationFileError, translations_import
from quizzes.models import Quiz

MAX_FILE_SIZE = 5 * 1024 * 1024
CONTENT_TYPES = {XLIFF: "application/x-xliff+xml", PO: "text/x-gettext-translation"}
EXTENSIONS = {XLIFF: "xlf", PO: "po"}


def _language_choices():
    names = dict(settings.LANGUAGES)
    return [(code, names[code]) for code in TRANSLATION_LANGUAGES]


class TranslationFileUploadForm(forms.Form):
    file = forms.FileField(label=gettext_lazy("file"), help_text=gettext_lazy("An XLIFF or PO file."))
    language = forms.ChoiceField(label=gettext_lazy("language"), choices=_language_choices)
    skip_stale = forms.BooleanField(
        label=gettext_lazy("skip stale units"),
        required=False,
        help_text=gettext_lazy("Import the rest when some units were written against an English changed since."),
    )
    reviewed = forms.BooleanField(
        label=gettext_lazy("reviewed"),
        required=False,
        help_text=gettext_lazy("From a reviewer: its translations count as reviewed."),
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_FILE_SIZE:
            raise forms.ValidationError(
                gettext_lazy("The file is larger than %(size)d MB."),
                code="too_large",
                params={"size": MAX_FILE_SIZE // 1024 // 1024},
            )
        return upload


class QuizTranslationFilesMixin:
    """The download and upload URLs of a quiz's translation files, for ``QuizAdmin``."""

    def get_urls(self):
        download = self.admin_site.admin_view(self.translation_file_download_view)
        upload = self.admin_site.admin_view(self.translation_file_upload_view)
        return [
            path(
                "<path:object_id>/translations/file/<str:language>.<str:fmt>",
                download,
                name="quizzes_quiz_translation_file",
            ),
            path("<path:object_id>/translations/upload/", upload, name="quizzes_quiz_translation_upload"),
            *super().get_urls(),
        ]

    def _translation_quiz(self, request, object_id) -> Quiz:
        stub = get_object_or_404(Quiz, pk=object_id)
        if not self.has_change_permission(request, stub):
            raise PermissionDenied
        return stub

    def translation_file_download_view(self, request, object_id, language, fmt):
        stub = self._translation_quiz(request, object_id)
        if language not in TRANSLATION_LANGUAGES or fmt not in FORMATS:
            raise Http404
        quiz = quiz_content_get(slug=stub.slug)
        data = translations_export(quiz, language=language, fmt=fmt, exported_by=request.user)
        response = HttpResponse(data, content_type=f"{CONTENT_TYPES[fmt]}; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{stub.slug}.{language}.{EXTENSIONS[fmt]}"'
        return response

    def translation_file_upload_view(self, request, object_id):
        quiz = self._translation_quiz(request, object_id)
        result = None
        if request.method == "POST":
            form = TranslationFileUploadForm(request.POST, request.FILES)
            if form.is_valid():
                data = form.cleaned_data
                try:
                    result = translations_import(
                        quiz,
                        data["file"].read(),
                        language=data["language"],
                        skip_stale=data["skip_stale"],
                        reviewed=data["reviewed"],
                    )
                except TranslationFileError as error:
                    form.add_error("file", str(error))
        else:
            form = TranslationFileUploadForm(initial={"language": request.GET.get("language")})
        context = {
            **self.admin_site.each_context(request),
            "title": _("Upload a translation file: %(quiz)s") % {"quiz": quiz},
            "opts": self.opts,
            "original": quiz,
            "form": form,
            "result": result,
        }
        return TemplateResponse(request, "admin/quizzes/quiz/translation_upload.html", context)
