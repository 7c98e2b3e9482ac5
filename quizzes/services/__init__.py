"""Writes. Web views, API views, the admin and management commands all come
through these functions; none writes records on its own."""

from quizzes.services.accounts import demo_accounts_create
from quizzes.services.archive import ArchiveError, choice_archive, questions_archive
from quizzes.services.attempts import (
    AttemptError,
    attempt_answer_submit,
    attempt_finish,
    attempt_start,
)
from quizzes.services.content import (
    ContentImportError,
    quiz_create_from_file,
    quiz_import,
    quiz_translation_import,
    translations_confirm,
)
from quizzes.services.enrollments import (
    BulkEnrollmentPlan,
    EnrollmentError,
    enrollment_create,
    enrollment_delete,
    enrollment_self_create,
    enrollments_bulk_create,
    enrollments_bulk_plan,
    enrollments_delete,
)
from quizzes.services.regrade import RegradeError, question_correct_choice_change

__all__ = [
    "ArchiveError",
    "AttemptError",
    "BulkEnrollmentPlan",
    "ContentImportError",
    "EnrollmentError",
    "RegradeError",
    "attempt_answer_submit",
    "attempt_finish",
    "attempt_start",
    "choice_archive",
    "demo_accounts_create",
    "enrollment_create",
    "enrollment_delete",
    "enrollment_self_create",
    "enrollments_bulk_create",
    "enrollments_bulk_plan",
    "enrollments_delete",
    "question_correct_choice_change",
    "questions_archive",
    "quiz_create_from_file",
    "quiz_import",
    "quiz_translation_import",
    "translations_confirm",
]
