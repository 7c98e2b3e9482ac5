"""The admin forms of accommodations: a quiz's override for one student or a group, and the
groups of a course.

An override is for one student enrolled in the quiz's course, or for one group of that course;
it sets at least one setting, a positive time limit, and leaves the quiz closing after it opens
for whom it applies to: its dates are judged with the quiz's where it leaves one empty (the
values ``quizzes.attempts.rules.quiz_rules`` gives). A group's members are students enrolled
in its course. Each refusal names its field, in the editor's language, and nothing is saved;
the database constraints of ``QuizOverride`` stay behind the forms as the last word.
"""

from django import forms
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from common.dates import local_datetime
from quizzes.admin.quiz_dates import time_limit_error
from quizzes.attempts.rules import OVERRIDDEN, quiz_rules
from quizzes.models import CourseGroup, Enrollment, QuizOverride

UNKNOWN_USERNAME = _("No user has the username “%(value)s”.")
NEITHER_STUDENT_NOR_GROUP = _("Choose the student or the group this override is for.")
BOTH_STUDENT_AND_GROUP = _("An override is for a student or for a group, not both: empty one of them.")
STUDENT_NOT_ENROLLED = _("%(student)s is not enrolled in %(course)s: enroll them first, or choose another student.")
GROUP_OF_ANOTHER_COURSE = _("The group %(group)s is not of this quiz's course, %(course)s.")
OVERRIDE_CLOSES_BEFORE_OPENS = _(
    "With this override the quiz would close (%(closes_at)s) before it opens (%(opens_at)s)."
)
NOTHING_OVERRIDDEN = _("Set at least one of: opens at, closes at, time limit, maximum attempts.")
MEMBERS_NOT_ENROLLED = _("Not enrolled in %(course)s: %(students)s. Enroll them first, or take them out of the group.")
GROUP_OVERRIDES_IN_COURSE = _(
    "This group has overrides of quizzes of %(course)s: delete them before moving the group to another course."
)


class StudentField(forms.ModelChoiceField):
    """A user by username, typed: a list of every user would not fit the page."""

    widget = forms.TextInput

    def __init__(self, **kwargs):
        User = get_user_model()
        super().__init__(
            queryset=User.objects.all(),
            to_field_name=User.USERNAME_FIELD,
            error_messages={"invalid_choice": UNKNOWN_USERNAME},
            **kwargs,
        )


class QuizOverrideForm(forms.ModelForm):
    user = StudentField(label=_("student"), required=False, help_text=_("Their username."))

    class Meta:
        model = QuizOverride
        fields = ("quiz", "user", "group", "opens_at", "closes_at", "time_limit", "max_attempts")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.user_id is not None:  # the username, as the field is typed
            self.initial["user"] = self.instance.user.get_username()
        if "group" in self.fields:
            self.fields["group"].queryset = CourseGroup.objects.select_related("course")

    def clean(self):
        cleaned_data = super().clean()
        quiz = cleaned_data.get("quiz")
        if quiz is None or quiz.course_id is None or {"user", "group"} & set(self.errors):
            return cleaned_data
        user, group = cleaned_data.get("user"), cleaned_data.get("group")
        if user is None and group is None:
            self.add_error("user", ValidationError(NEITHER_STUDENT_NOR_GROUP, code="neither_student_nor_group"))
        elif user is not None and group is not None:
            self.add_error("group", ValidationError(BOTH_STUDENT_AND_GROUP, code="both_student_and_group"))
        elif user is not None and not Enrollment.objects.filter(user=user, course_id=quiz.course_id).exists():
            params = {"student": user.get_username(), "course": quiz.course}
            self.add_error("user", ValidationError(STUDENT_NOT_ENROLLED, code="student_not_enrolled", params=params))
        elif group is not None and group.course_id != quiz.course_id:
            params = {"group": group.name, "course": quiz.course}
            self.add_error(
                "group", ValidationError(GROUP_OF_ANOTHER_COURSE, code="group_of_another_course", params=params)
            )
        self._clean_settings(quiz, cleaned_data)
        return cleaned_data

    def _clean_settings(self, quiz, cleaned_data) -> None:
        if set(OVERRIDDEN) & set(self.errors):
            return
        if all(cleaned_data.get(name) is None for name in OVERRIDDEN):
            self.add_error(None, ValidationError(NOTHING_OVERRIDDEN, code="nothing_overridden"))
            return
        if error := time_limit_error(cleaned_data.get("time_limit")):
            self.add_error("time_limit", error)
        # The user only says whose override it is; quiz_rules reads the dates of one override alike.
        candidate = QuizOverride(quiz=quiz, **{name: cleaned_data.get(name) for name in OVERRIDDEN})
        rules = quiz_rules(quiz, [candidate])
        if rules.opens_at and rules.closes_at and rules.closes_at <= rules.opens_at:
            field = "closes_at" if cleaned_data.get("closes_at") else "opens_at"
            params = {"opens_at": local_datetime(rules.opens_at), "closes_at": local_datetime(rules.closes_at)}
            error = ValidationError(OVERRIDE_CLOSES_BEFORE_OPENS, code="closes_before_opens", params=params)
            self.add_error(field, error)


class CourseGroupForm(forms.ModelForm):
    class Meta:
        model = CourseGroup
        fields = ("course", "name", "members")

    def clean(self):
        cleaned_data = super().clean()
        course, members = cleaned_data.get("course"), cleaned_data.get("members")
        if course is None:
            return cleaned_data
        if members is not None:
            enrolled = set(Enrollment.objects.filter(course=course, user__in=members).values_list("user_id", flat=True))
            strangers = sorted(member.get_username() for member in members if member.pk not in enrolled)
            if strangers:
                params = {"course": course, "students": ", ".join(strangers)}
                error = ValidationError(MEMBERS_NOT_ENROLLED, code="members_not_enrolled", params=params)
                self.add_error("members", error)
        moved = self.instance.pk is not None and self.instance.course_id != course.pk
        if moved and QuizOverride.objects.filter(group_id=self.instance.pk).exists():
            params = {"course": self.instance.course}
            error = ValidationError(GROUP_OVERRIDES_IN_COURSE, code="group_has_overrides", params=params)
            self.add_error("course", error)
        return cleaned_data
