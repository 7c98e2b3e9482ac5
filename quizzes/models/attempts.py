"""Attempts, their layouts and answers, regrades, and the teachers' overrides of a quiz's settings."""

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from quizzes.attempts import grading
from quizzes.managers import (
    GRADED_IS_PRACTICE,
    AttemptQuerySet,
)
from quizzes.models.content import Choice, Question, Quiz
from quizzes.models.enrollment import CourseGroup
from quizzes.models.versions import QuestionVersion


class Attempt(models.Model):
    class State(models.TextChoices):
        IN_PROGRESS = grading.IN_PROGRESS, _("in progress")
        FINISHED = grading.FINISHED, _("finished")

    user = models.ForeignKey(  # the lead of the unique (user, quiz, number)
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="attempts",
        verbose_name=_("user"),
        db_index=False,
    )
    quiz = models.ForeignKey(Quiz, on_delete=models.PROTECT, related_name="attempts", verbose_name=_("quiz"))
    number = models.PositiveSmallIntegerField(_("number"))
    state = models.CharField(_("state"), max_length=20, choices=State.choices, default=State.IN_PROGRESS)
    started_at = models.DateTimeField(_("started at"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    score = models.PositiveSmallIntegerField(_("score"), null=True, blank=True)
    max_score = models.PositiveSmallIntegerField(_("maximum score"))
    # Copied from the quiz when the attempt starts, so that a later edit of the
    # quiz does not change a grade a student has already earned.
    pass_mark = models.PositiveSmallIntegerField(_("pass mark (%)"))
    # The earlier of the start plus the time limit and the close date, as they apply to the
    # student now (quizzes/attempts/rules.py): set at the start and again while in progress when
    # the quiz's dates or limit or an override change (quizzes/attempts/deadlines.py); no answer
    # is taken after it (plus ATTEMPT_DEADLINE_GRACE). None: no limit.
    deadline = models.DateTimeField(_("deadline"), null=True, blank=True)
    # A practice of the questions an attempt missed: numbered apart, not counted in any grade.
    is_practice = models.BooleanField(_("practice"), default=False)

    objects = AttemptQuerySet.as_manager()

    class Meta:
        ordering = ["user", "quiz", "number"]
        verbose_name = _("attempt")
        verbose_name_plural = _("attempts")
        constraints = [
            models.UniqueConstraint(fields=["user", "quiz", "is_practice", "number"], name="attempt_unique_number"),
            models.UniqueConstraint(
                fields=["user", "quiz", "is_practice"],
                condition=Q(state="in_progress"),
                name="attempt_one_in_progress_per_user_quiz",
            ),
            models.CheckConstraint(
                condition=Q(deadline__isnull=True) | Q(deadline__gte=F("started_at")),
                name="attempt_deadline_after_start",
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="attempt_number_positive"),
            models.CheckConstraint(
                condition=Q(score__isnull=True) | Q(score__lte=F("max_score")), name="attempt_score_within_max"
            ),
            models.CheckConstraint(condition=Q(pass_mark__lte=100), name="attempt_pass_mark_at_most_100"),
            models.CheckConstraint(
                condition=(
                    Q(state="in_progress", finished_at__isnull=True, score__isnull=True)
                    | Q(state="finished", finished_at__isnull=False, score__isnull=False)
                ),
                name="attempt_finished_has_time_and_score",
            ),
        ]

    def __str__(self):
        return f"{self.user} · {self.quiz.slug} · #{self.number}"

    @property
    def is_finished(self) -> bool:
        return self.state == self.State.FINISHED

    @property
    def counts_for_grade(self) -> bool:
        """Whether it counts for a grade, progress and reports (quizzes/managers.py)."""
        return self.is_practice == GRADED_IS_PRACTICE

    @property
    def percent(self) -> int | None:
        """The score as a whole percentage (rounded down), None until finished (``grading.percent``)."""
        return grading.percent(self.score, self.max_score)

    @property
    def passed(self) -> bool | None:
        """Whether the score reaches the pass mark copied at the start; None until finished
        (``grading.passed``)."""
        return grading.passed(self.score, self.max_score, self.pass_mark)


class AttemptQuestion(models.Model):
    """One place in an attempt's layout, fixed when it starts (quizzes/attempts/layout.py): the
    question asked there, the version shown, and the order of its choices (their ids)."""

    attempt = models.ForeignKey(  # the lead of the unique (attempt, position)
        Attempt, on_delete=models.CASCADE, related_name="layout", verbose_name=_("attempt"), db_index=False
    )
    position = models.PositiveSmallIntegerField(_("position"))
    # No foreign-key constraints in the database for these two (Django's PROTECT still refuses a
    # delete): each one's check would take a key-share lock on a row every student of the quiz
    # shares, one of each per question per start, and a class starting at once queues on them
    # (make bench's burst; docs/performance.md). The answers keep theirs (Answer.version).
    question = models.ForeignKey(
        Question, on_delete=models.PROTECT, related_name="+", verbose_name=_("question"), db_constraint=False
    )
    version = models.ForeignKey(
        QuestionVersion, on_delete=models.PROTECT, related_name="slots", verbose_name=_("version"), db_constraint=False
    )
    choice_order = models.JSONField(_("choice order"))

    class Meta:
        ordering = ["attempt", "position"]
        verbose_name = _("attempt question")
        verbose_name_plural = _("attempt questions")
        constraints = [
            models.UniqueConstraint(fields=["attempt", "position"], name="attemptquestion_unique_position"),
            models.UniqueConstraint(fields=["attempt", "question"], name="attemptquestion_unique_question"),
            models.CheckConstraint(condition=Q(position__gte=1), name="attemptquestion_position_positive"),
        ]

    def __str__(self):
        return f"{self.attempt} · {self.position}"


class Answer(models.Model):
    attempt = models.ForeignKey(  # the lead of the unique (attempt, question)
        Attempt, on_delete=models.CASCADE, related_name="answers", verbose_name=_("attempt"), db_index=False
    )
    question = models.ForeignKey(Question, on_delete=models.PROTECT, related_name="answers", verbose_name=_("question"))
    choice = models.ForeignKey(Choice, on_delete=models.PROTECT, related_name="answers", verbose_name=_("choice"))
    # The version shown (its texts, choices and key): the one the attempt's layout holds. With
    # ``language`` it says which translation revision the student read (QuestionVersion.revisions).
    version = models.ForeignKey(
        QuestionVersion, on_delete=models.PROTECT, related_name="answers", verbose_name=_("version")
    )
    # Graded when answered, by the version's key. If an editor later changes
    # which choice is correct, quizzes/attempts/regrade.py may update it (and
    # the attempt's score); the feedback the student was shown stays on record
    # in the version and in that change's Regrade row.
    is_correct = models.BooleanField(_("correct"))
    language = models.CharField(_("language"), max_length=10, choices=settings.LANGUAGES)
    answered_at = models.DateTimeField(_("answered at"), auto_now_add=True)

    class Meta:
        ordering = ["attempt", "question__position"]
        verbose_name = _("answer")
        verbose_name_plural = _("answers")
        constraints = [
            # The first answer is final: feedback has already been shown.
            models.UniqueConstraint(fields=["attempt", "question"], name="answer_one_per_question_per_attempt"),
        ]

    def __str__(self):
        return f"{self.attempt} · Q{self.question.position}"


class Regrade(models.Model):
    """A change of a question's correct choice after students answered it, and what it did.

    Written only by ``quizzes.attempts.regrade``, in the transaction that
    changed the answers and scores. ``answers`` keeps, for every answer whose
    grade changed, what the student was shown when answering; ``attempts`` the
    score of every finished attempt before and after.
    """

    question = models.ForeignKey(
        Question, on_delete=models.PROTECT, related_name="regrades", verbose_name=_("question")
    )
    old_correct_choice = models.ForeignKey(
        Choice,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("previously correct choice"),
    )
    new_correct_choice = models.ForeignKey(
        Choice,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("now correct choice"),
    )
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("changed by"),
    )
    changed_at = models.DateTimeField(_("changed at"), auto_now_add=True)
    answers_changed = models.PositiveIntegerField(_("answers regraded"))
    attempts_regraded = models.PositiveIntegerField(_("finished attempts rescored"))
    students_affected = models.PositiveIntegerField(_("students whose score changed"))
    # [{"answer", "attempt", "user", "choice", "shown_correct", "now_correct"}]
    answers = models.JSONField(_("answers"), default=list)
    # [{"attempt", "user", "number", "old_score", "new_score", "max_score"}]
    attempts = models.JSONField(_("attempts"), default=list)
    # The numbers of the question's versions whose answers it regraded.
    versions = models.JSONField(_("versions regraded"), default=list)

    class Meta:
        ordering = ["-changed_at", "-pk"]
        verbose_name = _("regrade")
        verbose_name_plural = _("regrades")

    def __str__(self):
        return f"{self.question} · {self.changed_at:%Y-%m-%d %H:%M}"


class QuizOverride(models.Model):
    """Other settings of a quiz for one student or one group (an accommodation).

    Each empty setting keeps the quiz's. A student's own override comes first; otherwise, of
    their groups' overrides, the most generous value of each setting (quizzes/attempts/rules.py).
    """

    quiz = models.ForeignKey(  # the lead of the unique (quiz, user)
        Quiz, on_delete=models.CASCADE, related_name="overrides", verbose_name=_("quiz"), db_index=False
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="quiz_overrides",
        verbose_name=_("student"),
    )
    group = models.ForeignKey(
        CourseGroup,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="quiz_overrides",
        verbose_name=_("group"),
    )
    opens_at = models.DateTimeField(_("opens at"), null=True, blank=True)
    closes_at = models.DateTimeField(_("closes at"), null=True, blank=True)
    time_limit = models.DurationField(_("time limit"), null=True, blank=True)
    max_attempts = models.PositiveSmallIntegerField(
        _("maximum attempts"), null=True, blank=True, help_text=_("0 means unlimited. Empty: the quiz's.")
    )

    class Meta:
        ordering = ["quiz", "pk"]
        verbose_name = _("quiz override")
        verbose_name_plural = _("quiz overrides")
        constraints = [
            models.CheckConstraint(
                condition=Q(user__isnull=False, group__isnull=True) | Q(user__isnull=True, group__isnull=False),
                name="quizoverride_user_or_group",
            ),
            models.UniqueConstraint(fields=["quiz", "user"], name="quizoverride_unique_user"),
            models.UniqueConstraint(fields=["quiz", "group"], name="quizoverride_unique_group"),
            models.CheckConstraint(
                condition=Q(opens_at__isnull=True) | Q(closes_at__isnull=True) | Q(closes_at__gt=F("opens_at")),
                name="quizoverride_closes_after_opens",
            ),
            models.CheckConstraint(
                condition=Q(time_limit__isnull=True) | Q(time_limit__gt=timedelta(0)),
                name="quizoverride_time_limit_positive",
            ),
        ]

    def __str__(self):
        return f"{self.quiz.slug} · {self.user or self.group}"
