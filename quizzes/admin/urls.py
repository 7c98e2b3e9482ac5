"""Staff pages, under /<lang>/admin/reports/ (beside the admin's own URLs)."""

from django.urls import path

from quizzes.admin import enrollment_views as enrollment_views
from quizzes.admin import question_file_views
from quizzes.reports import gradebook_views, statistics_views

app_name = "staff"

urlpatterns = [
    # Item statistics (quizzes/admin/statistics*.py), gradebook and enrollment
    # (quizzes/admin/gradebook*.py, enrollment*.py), translation status.
    path("statistics/", statistics_views.statistics_index, name="statistics_index"),
    path("quizzes/<id:pk>/statistics/", statistics_views.quiz_statistics, name="quiz_statistics"),
    path("gradebook/", gradebook_views.gradebook_course_list, name="gradebook_courses"),
    path("gradebook/<slug:course_slug>/", gradebook_views.gradebook, name="gradebook"),
    path("gradebook/<slug:course_slug>/export.csv", gradebook_views.gradebook_export, name="gradebook_export"),
    path("enrollments/bulk/", enrollment_views.enroll_bulk, name="enroll_bulk"),
    path("enrollments/bulk/confirm/", enrollment_views.enroll_bulk_confirm, name="enroll_bulk_confirm"),
    # Question files: Moodle XML, GIFT, Aiken (quizzes/admin/question_file_views.py).
    path("quizzes/import/", question_file_views.question_file_import_view, name="question_file_import"),
    path("quizzes/<id:pk>/export/", question_file_views.question_file_export_view, name="question_file_export"),
]
