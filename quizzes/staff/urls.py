"""Staff pages, under /<lang>/admin/reports/ (beside the admin's own URLs)."""

from django.urls import path

from quizzes import converters  # noqa: F401  (registers <id:>)
from quizzes.staff import enrolment_views, gradebook_views, statistics_views

app_name = "staff"

urlpatterns = [
    # Item statistics (quizzes/staff/statistics*.py), gradebook and enrolment
    # (quizzes/staff/gradebook*.py, enrolment*.py), translation status.
    path("statistics/", statistics_views.statistics_index, name="statistics_index"),
    path("quizzes/<id:pk>/statistics/", statistics_views.quiz_statistics, name="quiz_statistics"),
    path("gradebook/", gradebook_views.gradebook_course_list, name="gradebook_courses"),
    path("gradebook/<slug:course_slug>/", gradebook_views.gradebook, name="gradebook"),
    path("gradebook/<slug:course_slug>/export.csv", gradebook_views.gradebook_export, name="gradebook_export"),
    path("enrolments/bulk/", enrolment_views.enrol_bulk, name="enrol_bulk"),
    path("enrolments/bulk/confirm/", enrolment_views.enrol_bulk_confirm, name="enrol_bulk_confirm"),
]
