"""LTI 1.3: where a grade goes, which platform course is which course, launches seen."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from quizzes.models.content import Course, Quiz


class LtiGradeTarget(models.Model):
    """Where a student's grade in a quiz goes on an LTI platform: the line item of the resource
    link they launched it from (LTI Assignment and Grade Services). Every attempt of theirs
    that finishes sends the grade there (``OutboxMessage.Kind.LTI_SCORE``)."""

    quiz = models.ForeignKey(Quiz, on_delete=models.CASCADE, related_name="+", verbose_name=_("quiz"))
    lti_user = models.ForeignKey(
        "lti_tool.LtiUser", on_delete=models.CASCADE, related_name="+", verbose_name=_("LTI user"), db_index=False
    )
    line_item = models.ForeignKey(
        "lti_tool.LtiLineItem", on_delete=models.CASCADE, related_name="+", verbose_name=_("line item")
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("LTI grade target")
        verbose_name_plural = _("LTI grade targets")
        constraints = [
            models.UniqueConstraint(fields=["lti_user", "quiz", "line_item"], name="lti_grade_target_once"),
        ]

    def __str__(self):
        return f"{self.lti_user} · {self.quiz} → {self.line_item}"


class LtiCourseLink(models.Model):
    """Which course an LTI launch enrols in: a platform context's own (``context_id``, the
    platform's id of the course), else the registration's (``context_id`` blank)."""

    registration = models.ForeignKey(
        "lti_tool.LtiRegistration",
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("registration"),
        db_index=False,  # the lead of the unique (registration, context_id)
    )
    context_id = models.CharField(_("platform context id"), max_length=255, blank=True)
    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="+", verbose_name=_("course"))

    class Meta:
        verbose_name = _("LTI course link")
        verbose_name_plural = _("LTI course links")
        constraints = [
            models.UniqueConstraint(fields=["registration", "context_id"], name="lti_course_link_once"),
        ]

    def __str__(self):
        return f"{self.registration} · {self.context_id or '*'} → {self.course}"


class LtiNonce(models.Model):
    """A nonce the tool sent in an OIDC login, with its state: a launch deletes it, so that
    an id_token is accepted once (pylti1p3's cache storage never uses one up)."""

    nonce = models.CharField(max_length=128, primary_key=True)
    state = models.CharField(max_length=128)
    issued_at = models.DateTimeField(db_index=True)  # each login deletes the stale ones

    def __str__(self):
        return self.nonce
