"""Question files in the admin: import a Moodle XML, GIFT, Aiken or seed file; download a quiz
as one. Content editors only (the files carry the answer key). Both call what the commands
call (``quizzes.content.formats.files``)."""

from pathlib import Path

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods

from common.converters import parse_id
from common.staff_access import staff_context, staff_view
from quizzes.admin.question_file_forms import QuestionFileExportForm, QuestionFileImportForm
from quizzes.content.formats.common import UnsupportedQuestion, skipped_line
from quizzes.content.formats.files import (
    CONTENT_TYPES,
    EXTENSIONS,
    MULTILINGUAL,
    question_file_import,
    quiz_export_file,
)
from quizzes.content.seedformat import SeedFormatError
from quizzes.content.selectors import quiz_content_get
from quizzes.content.services import ContentImportError, SameTitleError
from quizzes.models import Quiz

IMPORT_PERMISSIONS = (
    "quizzes.add_quiz",
    "quizzes.change_quiz",
    "quizzes.add_question",
    "quizzes.change_question",
    "quizzes.add_choice",
    "quizzes.change_choice",
)
EXPORT_PERMISSIONS = ("quizzes.change_quiz",)


@staff_view(*IMPORT_PERMISSIONS)
@require_http_methods(["GET", "POST"])
def question_file_import_view(request):
    if request.method == "POST":
        form = QuestionFileImportForm(request.POST, request.FILES)
        if form.is_valid():
            response = _import(request, form)
            if response is not None:
                return response
    else:
        quiz_id = parse_id(request.GET.get("quiz", ""))
        quiz = Quiz.objects.filter(pk=quiz_id).first() if quiz_id else None
        form = QuestionFileImportForm(initial={"quiz": quiz} if quiz else {})
    context = staff_context(request, title=_("Import questions"), form=form, opts=Quiz._meta)
    return TemplateResponse(request, "staff/question_file_import.html", context)


def _import(request, form):
    data = form.cleaned_data
    upload = data["file"]
    try:
        result = question_file_import(
            file_format=data["file_format"],
            data=upload.read(),
            language=data["language"],
            quiz_slug=data["quiz"].slug if data["quiz"] else None,
            course_slug=data["course"].slug if data["course"] else None,
            default_title=Path(upload.name).stem,
            skip_unsupported=data["skip_unsupported"],
            same_title=data["same_title"],
        )
    except SeedFormatError as error:
        form.add_error("file", _("Line %(line)d: %(message)s") % {"line": error.line, "message": error.message})
        if isinstance(error, UnsupportedQuestion):
            form.add_error("file", _("Tick “import the questions this site can take” below to import the others."))
        return None
    except SameTitleError as error:
        advice = _(
            "Choose it under “into quiz” to bring this file into it, or tick “make a new quiz even if the course "
            "has one of the same title” to make another."
        )
        form.add_error(None, f"{error} {advice}")
        return None
    except ContentImportError as error:
        form.add_error(None, str(error))
        return None
    if result.created:
        message = _("Created quiz “%(quiz)s” (unpublished): check it, then publish it.")
    else:
        message = _("Imported %(languages)s into quiz “%(quiz)s”.")
    messages.success(request, message % {"quiz": result.quiz, "languages": ", ".join(result.languages)})
    if result.skipped:
        count = len(result.skipped)
        summary = ngettext(
            "%(count)d question of a kind this site has not was skipped:",
            "%(count)d questions of kinds this site has not were skipped:",
            count,
        )
        messages.warning(request, summary % {"count": count})
    for skipped in result.skipped:
        line = _("Line %(line)d: %(message)s") % {"line": skipped.line, "message": skipped_line(skipped)}
        messages.warning(request, line)
    return redirect("admin:quizzes_quiz_change", result.quiz.pk)


@staff_view(*EXPORT_PERMISSIONS)
@require_GET
def question_file_export_view(request, pk):
    stub = get_object_or_404(Quiz, pk=pk)
    form = QuestionFileExportForm(request.GET if "file_format" in request.GET else None)
    if form.is_valid():
        file_format, language = form.cleaned_data["file_format"], form.cleaned_data["language"]
        try:
            text = quiz_export_file(quiz=quiz_content_get(slug=stub.slug), file_format=file_format, language=language)
        except ValueError as error:
            form.add_error(None, str(error))
        else:
            name = stub.slug if file_format in MULTILINGUAL else f"{stub.slug}.{language}"
            response = HttpResponse(
                text.encode("utf-8"), content_type=CONTENT_TYPES.get(file_format, "text/plain; charset=utf-8")
            )
            response["Content-Disposition"] = f'attachment; filename="{name}.{EXTENSIONS[file_format]}"'
            return response
    context = staff_context(
        request, title=_("Export questions: %(quiz)s") % {"quiz": stub}, form=form, opts=Quiz._meta, original=stub
    )
    return TemplateResponse(request, "staff/question_file_export.html", context)
