"""The item statistics pages: an index of quizzes, and one quiz's report (HTML or CSV)."""

import csv

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import get_language, get_language_bidi
from django.utils.translation import gettext as _

from common.replica import reads_from_replica
from common.staff_access import staff_context, staff_view
from quizzes.models import Quiz
from quizzes.reports import item_measures, statistics, translation_flags
from quizzes.reports.charts import question_chart

PERMISSION = "quizzes.view_attempt"
INCLUDE_IN_PROGRESS = "in_progress"


@staff_view(PERMISSION)
@reads_from_replica
def statistics_index(request):
    quizzes = statistics.quizzes_with_attempt_counts()
    return render(
        request,
        "staff/statistics_index.html",
        staff_context(request, title=_("Item statistics"), quizzes=quizzes),
    )


@staff_view(PERMISSION)
@reads_from_replica
def quiz_statistics(request, pk: int):
    quiz = get_object_or_404(Quiz.objects.select_related("course"), pk=pk)
    include_in_progress = request.GET.get("include") == INCLUDE_IN_PROGRESS
    report = statistics.quiz_statistics(quiz=quiz, language=get_language(), include_in_progress=include_in_progress)
    if request.GET.get("format") == "csv":
        return _csv_response(report)
    rtl = get_language_bidi()
    questions = [(question, question_chart(question, rtl=rtl)) for question in report.questions]
    return render(
        request,
        "staff/statistics_quiz.html",
        staff_context(
            request,
            title=_("Item statistics: %(quiz)s") % {"quiz": quiz},
            report=report,
            questions=questions,
            rules={
                "min_attempts": item_measures.MIN_ATTEMPTS_FOR_DISCRIMINATION,
                "group_percent": item_measures.GROUP_PERCENT,
                "flag_min_answers": translation_flags.FLAG_MIN_ANSWERS,
                "flag_min_points": translation_flags.FLAG_MIN_POINTS,
                "flag_max_p": translation_flags.FLAG_MAX_P_VALUE,
            },
            include_value=INCLUDE_IN_PROGRESS,
        ),
    )


def _number(value: float | None, digits: int = 1) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _csv_response(report: statistics.QuizStatistics) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="statistics-{report.quiz.slug}.csv"'
    writer = csv.writer(response)
    writer.writerow(
        [
            "question",
            "archived",
            "answers",
            "correct",
            "facility_percent",
            "discrimination_upper_lower",
            "upper_correct",
            "lower_correct",
            "group_size",
            "item_total_correlation",
            "choice_counts",
            "language_facility",
            "flagged_languages",
            "version_facility",
            "judged_revisions",
        ]
    )
    for question in report.questions:
        discrimination = question.discrimination
        writer.writerow(
            [
                question.position,
                int(question.is_archived),
                question.answers,
                question.correct,
                _number(question.facility),
                _number(discrimination.index if discrimination else None, 2),
                discrimination.upper_correct if discrimination else "",
                discrimination.lower_correct if discrimination else "",
                discrimination.group_size if discrimination else "",
                _number(question.point_biserial, 2),
                " ".join(
                    f"{choice.position}{'*' if choice.is_correct else ''}:{choice.count}" for choice in question.choices
                ),
                " ".join(
                    f"{language.language}:{_number(language.facility)}/{language.answers}"
                    for language in question.languages
                ),
                " ".join(language.language for language in question.flagged_languages),
                " ".join(
                    f"{version.number}:{_number(version.facility)}/{version.answers}" for version in question.versions
                ),
                # language:revision:judged answers+earlier answers not counted
                " ".join(
                    f"{language.language}:{language.revision}:{language.judged_answers}+{language.earlier_answers}"
                    for language in question.languages
                ),
            ]
        )
    return response
