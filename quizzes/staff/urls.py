"""Staff pages, under /<lang>/admin/reports/ (beside the admin's own URLs)."""

from django.urls import path  # noqa: F401

from quizzes import converters  # noqa: F401  (registers <id:>)

app_name = "staff"

urlpatterns = [
    # Item statistics (quizzes/staff/statistics*.py), gradebook and enrolment
    # (quizzes/staff/gradebook*.py, enrolment*.py), translation status.
]
