"""The quiz admin's teachers' settings: dates, time limit and review options.

The database refuses a close before the open and a time limit of zero or less (the
constraints of ``Quiz``); ``QuizDatesForm`` refuses them first, each on its field with a
message in the editor's language, and a review "after the quiz closes" of a quiz that never
closes. ``QuizAdmin`` in ``quizzes/admin/registrations.py`` uses the form and the fieldsets.
"""

from datetime import timedelta

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from quizzes.admin.content_forms import QuizAdminForm
from quizzes.models import FeedbackTiming

CLOSES_BEFORE_OPENS = _("The close date must be after the open date.")
TIME_LIMIT_NOT_POSITIVE = _("The time limit must be longer than zero (hours:minutes:seconds, e.g. 00:20:00).")
AFTER_CLOSE_WITHOUT_CLOSE = _(
    "Feedback “after the quiz closes” needs a close date: set “closes at”, or choose another feedback timing."
)

TEACHERS_SETTINGS_FIELDSETS = (
    (
        _("Dates and time limit"),
        {
            "fields": ("opens_at", "closes_at", "time_limit"),
            "description": _("Overrides for one student or a group are listed below the settings."),
        },
    ),
    (_("Review options"), {"fields": ("feedback_timing", "show_right_answer")}),
)


def time_limit_error(time_limit: timedelta | None) -> ValidationError | None:
    if time_limit is not None and time_limit <= timedelta(0):
        return ValidationError(TIME_LIMIT_NOT_POSITIVE, code="time_limit_not_positive")
    return None


class QuizDatesForm(QuizAdminForm):
    """The quiz's admin form, with its dates, time limit and review options checked."""

    def clean(self):
        cleaned_data = super().clean()
        opens_at, closes_at = cleaned_data.get("opens_at"), cleaned_data.get("closes_at")
        if opens_at and closes_at and closes_at <= opens_at:
            self.add_error("closes_at", ValidationError(CLOSES_BEFORE_OPENS, code="closes_before_opens"))
        if error := time_limit_error(cleaned_data.get("time_limit")):
            self.add_error("time_limit", error)
        if (
            cleaned_data.get("feedback_timing") == FeedbackTiming.AFTER_CLOSE
            and not closes_at
            and "closes_at" not in self.errors
        ):
            self.add_error("feedback_timing", ValidationError(AFTER_CLOSE_WITHOUT_CLOSE, code="after_close_no_close"))
        return cleaned_data
