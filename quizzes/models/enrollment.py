"""Who may take a course: enrollments, their history, and the groups teachers make."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from quizzes.models.content import Course


class Enrollment(models.Model):
    # A foreign key with db_index=False is the lead of a composite index of its model, which
    # finds its rows as well: one index fewer to update per INSERT (tests/test_indexes.py).
    user = models.ForeignKey(  # the lead of the unique (user, course)
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="enrollments",
        verbose_name=_("user"),
        db_index=False,
    )
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="enrollments", verbose_name=_("course"))
    enrolled_at = models.DateTimeField(_("enrolled at"), auto_now_add=True)

    class Meta:
        ordering = ["course", "user"]
        verbose_name = _("enrollment")
        verbose_name_plural = _("enrollments")
        constraints = [
            models.UniqueConstraint(fields=["user", "course"], name="enrollment_unique_user_course"),
        ]

    def __str__(self):
        return f"{self.user} @ {self.course}"


class EnrollmentChange(models.Model):
    """A line of a course's enrollment history: who joined or left, when, by whose hand.

    Unenrolling deletes the Enrollment row (access ends at once) but keeps the
    student's attempts and answers; this log keeps the history of the change.
    """

    class Action(models.TextChoices):
        ENROLLED = "enrolled", _("enrolled")
        UNENROLLED = "unenrolled", _("unenrolled")

    class Source(models.TextChoices):
        SELF = "self", _("by the student")
        STAFF = "staff", _("by staff")
        BULK = "bulk", _("by staff, in bulk")
        SYSTEM = "system", _("by the system")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="enrollment_changes", verbose_name=_("user")
    )
    course = models.ForeignKey(  # the lead of the index (course, user)
        Course, on_delete=models.CASCADE, related_name="enrollment_changes", verbose_name=_("course"), db_index=False
    )
    action = models.CharField(_("action"), max_length=20, choices=Action.choices)
    source = models.CharField(_("source"), max_length=20, choices=Source.choices)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("changed by"),
    )
    changed_at = models.DateTimeField(_("changed at"), auto_now_add=True)

    class Meta:
        ordering = ["-changed_at", "-pk"]
        verbose_name = _("enrollment change")
        verbose_name_plural = _("enrollment changes")
        indexes = [models.Index(fields=["course", "user"], name="enrollmentchange_course_user")]

    def __str__(self):
        return f"{self.user} @ {self.course}: {self.get_action_display()}"


class CourseGroup(models.Model):
    """Students of one course who share an accommodation (a QuizOverride), such as extra time."""

    course = models.ForeignKey(  # the lead of the unique (course, name)
        Course, on_delete=models.CASCADE, related_name="groups", verbose_name=_("course"), db_index=False
    )
    name = models.CharField(_("name"), max_length=100)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="course_groups", blank=True, verbose_name=_("members")
    )

    class Meta:
        ordering = ["course", "name"]
        verbose_name = _("course group")
        verbose_name_plural = _("course groups")
        constraints = [models.UniqueConstraint(fields=["course", "name"], name="coursegroup_unique_name")]

    def __str__(self):
        return f"{self.course.slug} · {self.name}"
