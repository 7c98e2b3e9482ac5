"""Courses, their multiple-choice quizzes, and every attempt students make.

Content (Course, Quiz, Question, Choice) is translated field by field with
django-modeltranslation (see translation.py); English is the source and the
fallback. Records (Enrollment, Attempt, Answer) are written only through
the domains' services, and the invariants they rely on are database constraints.

One module per domain (content, versions, languages, enrollment, attempts, accounts,
api, outbox, lti); every model is imported from here (``from quizzes.models import Quiz``),
as Django finds them.
"""

from quizzes.models.accounts import UserPreferences
from quizzes.models.api import IdempotencyKey
from quizzes.models.attempts import Answer, Attempt, AttemptQuestion, QuizOverride, Regrade
from quizzes.models.content import Choice, Course, FeedbackTiming, PoolDraw, Question, QuestionKind, Quiz, new_token
from quizzes.models.enrollment import CourseGroup, Enrollment, EnrollmentChange
from quizzes.models.languages import MACHINE_TRANSLATIONS_DEFAULT, LanguageSetting, MachineTranslations
from quizzes.models.lti import LtiCourseLink, LtiGradeTarget, LtiNonce
from quizzes.models.outbox import OutboxMessage
from quizzes.models.versions import QuestionVersion, QuizContentVersion

__all__ = [
    "MACHINE_TRANSLATIONS_DEFAULT",
    "Answer",
    "Attempt",
    "AttemptQuestion",
    "Choice",
    "Course",
    "CourseGroup",
    "Enrollment",
    "EnrollmentChange",
    "FeedbackTiming",
    "IdempotencyKey",
    "LanguageSetting",
    "LtiCourseLink",
    "LtiGradeTarget",
    "LtiNonce",
    "MachineTranslations",
    "OutboxMessage",
    "PoolDraw",
    "Question",
    "QuestionKind",
    "QuestionVersion",
    "Quiz",
    "QuizContentVersion",
    "QuizOverride",
    "Regrade",
    "UserPreferences",
    "new_token",
]
