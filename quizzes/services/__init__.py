"""Writes. Web views, API views, the admin and management commands all come
through these functions; none writes records on its own."""

from quizzes.services.accounts import demo_accounts_create
from quizzes.services.attempts import (
    AttemptError,
    attempt_answer_submit,
    attempt_finish,
    attempt_start,
)
from quizzes.services.content import ContentImportError, quiz_create_from_file, quiz_import, quiz_translation_import
from quizzes.services.enrollments import EnrollmentError, enrollment_create, enrollment_self_create

__all__ = [
    "AttemptError",
    "ContentImportError",
    "EnrollmentError",
    "attempt_answer_submit",
    "attempt_finish",
    "attempt_start",
    "demo_accounts_create",
    "enrollment_create",
    "enrollment_self_create",
    "quiz_create_from_file",
    "quiz_import",
    "quiz_translation_import",
]
