"""The gradebook: pick a course, then its students against its quizzes, on screen or as CSV.

A student's override of a quiz is noted in their cell; the CSV has a column of the overrides
of each quiz that has any."""

import csv

from django import forms
from django.core.paginator import Paginator
from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.http import urlencode
from django.utils.translation import get_language, gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET

from common.replica import reads_from_replica
from common.staff_access import staff_context, staff_view
from quizzes.content.shown import localized
from quizzes.models import Attempt, Course, Quiz
from quizzes.reports.gradebook import (
    DEFAULT_SORT,
    SORTS,
    GradebookFilters,
    gradebook_courses,
    gradebook_passed_counts,
    gradebook_quizzes,
    gradebook_rows,
    gradebook_rows_iter,
    gradebook_students,
)
from quizzes.reports.gradebook_overrides import gradebook_overrides

PERMISSIONS = ("quizzes.view_attempt", "quizzes.view_enrollment")
STUDENTS_PER_PAGE = 100
EXPORT_CHUNK = 500
# OWASP, "CSV Injection": a spreadsheet reads a cell starting with one of
# these as a formula; a leading apostrophe makes it text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class GradebookFilterForm(forms.Form):
    quiz = forms.ModelChoiceField(
        queryset=Quiz.objects.none(), to_field_name="slug", required=False, label=_("Quiz"), empty_label=_("All")
    )
    q = forms.CharField(label=_("Search students"), required=False, max_length=200)
    former = forms.BooleanField(label=_("Include former students"), required=False)
    unpublished = forms.BooleanField(label=_("Include unpublished quizzes"), required=False)
    sort = forms.ChoiceField(
        label=_("Sort by"),
        required=False,
        choices=[
            ("username", _("username (A to Z)")),
            ("-username", _("username (Z to A)")),
            ("name", _("last name (A to Z)")),
            ("-name", _("last name (Z to A)")),
        ],
    )

    def __init__(self, *args, course: Course, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["quiz"].queryset = Quiz.objects.filter(course=course).order_by("position", "slug")

    def filters(self) -> GradebookFilters:
        """The filters asked for; the defaults where a value was not valid."""
        self.is_valid()  # cleaned_data keeps the valid fields only
        data = self.cleaned_data
        sort = data.get("sort") or DEFAULT_SORT
        return GradebookFilters(
            quiz=data.get("quiz"),
            search=(data.get("q") or "").strip(),
            include_former=bool(data.get("former")),
            include_unpublished=bool(data.get("unpublished")),
            sort=sort if sort in SORTS else DEFAULT_SORT,
        )


@staff_view(*PERMISSIONS)
@require_GET
@reads_from_replica
def gradebook_course_list(request):
    context = staff_context(request, title=_("Gradebook"), courses=gradebook_courses())
    return TemplateResponse(request, "staff/gradebook_courses.html", context)


@staff_view(*PERMISSIONS)
@require_GET
@reads_from_replica
def gradebook(request, course_slug):
    course = get_object_or_404(Course, slug=course_slug)
    form = GradebookFilterForm(request.GET, course=course)
    filters = form.filters()
    quizzes = gradebook_quizzes(course=course, filters=filters)
    students = gradebook_students(course=course, filters=filters)
    page = Paginator(students, STUDENTS_PER_PAGE).get_page(request.GET.get("page"))
    rows = gradebook_rows(page.object_list, quizzes, gradebook_overrides(quizzes))
    passed = gradebook_passed_counts(students=students, quizzes=quizzes)
    language = get_language()
    query = {key: value for key, value in request.GET.items() if key != "page"}
    context = staff_context(
        request,
        title=_("Gradebook: %(course)s") % {"course": course},
        course=course,
        form=form,
        filters=filters,
        columns=[
            {"quiz": quiz, "title": localized(quiz, "title", language), "passed": passed.get(quiz.pk, 0)}
            for quiz in quizzes
        ],
        rows=rows,
        page=page,
        student_total=page.paginator.count,
        query=urlencode(query),
        attempts_url=reverse("admin:quizzes_attempt_changelist"),
        attempt_opts=Attempt._meta,
    )
    return TemplateResponse(request, "staff/gradebook.html", context)


@staff_view(*PERMISSIONS)
@require_GET
@reads_from_replica
def gradebook_export(request, course_slug):
    """The gradebook with the same filters, every student, as CSV (UTF-8 with a BOM, for Excel)."""
    course = get_object_or_404(Course, slug=course_slug)
    filters = GradebookFilterForm(request.GET, course=course).filters()
    quizzes = gradebook_quizzes(course=course, filters=filters)
    overrides = gradebook_overrides(quizzes)
    language = get_language()
    # Translated now, in the request's language: the rows are written later, as they stream.
    header = [gettext("username"), gettext("full name"), gettext("email")]
    if filters.include_former:
        header.append(gettext("enrollment"))
    for quiz in quizzes:
        title = localized(quiz, "title", language).text
        header += [
            gettext("%(quiz)s: best %%") % {"quiz": title},
            gettext("%(quiz)s: attempts") % {"quiz": title},
            gettext("%(quiz)s: passed") % {"quiz": title},
        ]
        if quiz.pk in overrides.quiz_ids:
            header.append(gettext("%(quiz)s: override") % {"quiz": title})
    words = {
        "yes": gettext("yes"),
        "no": gettext("no"),
        "enrolled": gettext("enrolled"),
        "former": gettext("former student"),
    }
    rows = gradebook_rows_iter(
        course=course, filters=filters, quizzes=quizzes, overrides=overrides, chunk_size=EXPORT_CHUNK
    )
    in_request_language = _in_request_language(language, timezone.get_current_timezone())
    lines = _csv_lines(header, rows, words, filters, overridden=overrides.quiz_ids, note_text=in_request_language)
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    filename = f"gradebook-{course.slug}-{timezone.localdate().isoformat()}.csv"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


class _Line:
    """csv.writer writes into this; each row comes back as a string to stream."""

    def write(self, value: str) -> str:
        return value


def csv_safe(value) -> str:
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def _in_request_language(language, time_zone):
    def text(note) -> str:
        with translation.override(language), timezone.override(time_zone):
            return note.text

    return text


def _csv_lines(header, rows, words, filters, overridden, note_text):
    writer = csv.writer(_Line())
    yield "\ufeff" + writer.writerow([csv_safe(cell) for cell in header])
    for row in rows:
        student = row.student
        cells = [student.username, student.get_full_name(), student.email]
        if filters.include_former:
            cells.append(words["enrolled"] if row.is_enrolled else words["former"])
        for quiz, cell in row.cells:
            if not cell.finished:
                passed = ""
            else:
                passed = words["yes"] if cell.passed else words["no"]
            cells += ["" if cell.best_percent is None else cell.best_percent, cell.attempts, passed]
            if quiz.pk in overridden:
                cells.append(note_text(cell.override) if cell.override else "")
        yield writer.writerow([csv_safe(value) for value in cells])
