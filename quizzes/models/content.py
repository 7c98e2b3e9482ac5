"""Courses, their quizzes, and the questions and choices they ask: what editors write."""

import secrets
from datetime import timedelta

from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from quizzes.managers import (
    ChoiceManager,
    CourseManager,
    QuestionManager,
    QuizManager,
)


def new_token() -> int:
    return secrets.randbits(63)


def _english_present(field: str) -> Q:
    # English is the fallback of every translation, so it may never be empty.
    # (modeltranslation adds the ``<field>_en`` column when the app loads.)
    return Q(**{f"{field}_en__isnull": False}) & ~Q(**{f"{field}_en": ""})


class Course(models.Model):
    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    title = models.CharField(_("title"), max_length=200)
    description = models.TextField(_("description"), blank=True)
    allow_self_enrollment = models.BooleanField(
        _("allow self-enrollment"),
        default=False,
        help_text=_("Students may enroll themselves from their dashboard."),
    )
    # Each translation's record: "<column>" (``text_ur``, ``text_ind``) -> the English it was
    # written against and its state (quizzes/content/translation_status.py).
    translation_sources = models.JSONField(_("translation sources"), default=dict, blank=True, editable=False)

    objects = CourseManager()

    class Meta:
        ordering = ["slug"]
        verbose_name = _("course")
        verbose_name_plural = _("courses")
        constraints = [
            models.CheckConstraint(condition=_english_present("title"), name="course_title_en_present"),
        ]

    def __str__(self):
        return self.title

    def natural_key(self):
        return (self.slug,)


class FeedbackTiming(models.TextChoices):
    """When a student sees whether an answer was right, the right answer and the explanation."""

    IMMEDIATELY = "immediately", _("immediately after each answer")
    AFTER_ATTEMPT = "after_attempt", _("after the attempt is finished")
    AFTER_CLOSE = "after_close", _("after the quiz closes")
    NEVER = "never", _("never")


class Quiz(models.Model):
    course = models.ForeignKey(Course, on_delete=models.PROTECT, related_name="quizzes", verbose_name=_("course"))
    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    position = models.PositiveSmallIntegerField(_("position"), default=1, help_text=_("Order within the course."))
    title = models.CharField(_("title"), max_length=200)
    description = models.TextField(_("description"), blank=True)
    pass_mark = models.PositiveSmallIntegerField(
        _("pass mark (%)"), default=50, help_text=_("Percentage of questions to answer correctly to pass.")
    )
    max_attempts = models.PositiveSmallIntegerField(_("maximum attempts"), default=0, help_text=_("0 means unlimited."))
    is_published = models.BooleanField(
        _("published"), default=False, help_text=_("Only published quizzes are shown to students.")
    )
    # The layout of each attempt (quizzes/attempts/layout.py): off by default, so that a teacher
    # leading a class through a quiz has one order for everyone.
    shuffle_questions = models.BooleanField(
        _("shuffle questions"), default=False, help_text=_("Each attempt asks the questions in its own order.")
    )
    shuffle_choices = models.BooleanField(
        _("shuffle choices"),
        default=False,
        help_text=_("Each attempt shows the choices in its own order, except where a question keeps its order."),
    )
    questions_per_attempt = models.PositiveSmallIntegerField(
        _("questions per attempt"),
        default=0,
        help_text=_("Ask this many of the quiz's questions, drawn at random for each attempt; 0 asks them all."),
    )
    # The teacher's settings (quizzes/attempts/rules.py): when the quiz may be taken, for how long,
    # and when students see what their answers were worth. A QuizOverride changes the first three
    # for a student or a group.
    opens_at = models.DateTimeField(
        _("opens at"), null=True, blank=True, help_text=_("No attempt starts before this time. Empty: open now.")
    )
    closes_at = models.DateTimeField(
        _("closes at"),
        null=True,
        blank=True,
        help_text=_("No attempt starts and no answer is taken after this time. Empty: never closes."),
    )
    time_limit = models.DurationField(
        _("time limit"),
        null=True,
        blank=True,
        help_text=_(
            "How long an attempt may take, as hours:minutes:seconds (00:20:00 is twenty minutes). "
            "An attempt still open at its deadline is finished with the answers given. Empty: no limit."
        ),
    )
    feedback_timing = models.CharField(
        _("feedback timing"),
        max_length=20,
        choices=FeedbackTiming.choices,
        default=FeedbackTiming.IMMEDIATELY,
        help_text=_("When students see whether each answer was right, the right answer and the explanation."),
    )
    show_right_answer = models.BooleanField(
        _("show the right answer"),
        default=True,
        help_text=_("Untick to never show which choice was right (correctness and explanations follow the timing)."),
    )
    # Each translation's record: "<column>" (``text_ur``, ``text_ind``) -> the English it was
    # written against and its state (quizzes/content/translation_status.py).
    translation_sources = models.JSONField(_("translation sources"), default=dict, blank=True, editable=False)

    objects = QuizManager()

    class Meta:
        ordering = ["course", "position", "slug"]
        verbose_name = _("quiz")
        verbose_name_plural = _("quizzes")
        constraints = [
            models.CheckConstraint(condition=Q(pass_mark__lte=100), name="quiz_pass_mark_at_most_100"),
            models.CheckConstraint(condition=_english_present("title"), name="quiz_title_en_present"),
            models.CheckConstraint(
                condition=Q(opens_at__isnull=True) | Q(closes_at__isnull=True) | Q(closes_at__gt=F("opens_at")),
                name="quiz_closes_after_opens",
            ),
            models.CheckConstraint(
                condition=Q(time_limit__isnull=True) | Q(time_limit__gt=timedelta(0)), name="quiz_time_limit_positive"
            ),
            models.CheckConstraint(
                condition=Q(feedback_timing__in=FeedbackTiming.values), name="quiz_feedback_timing_valid"
            ),
        ]

    def __str__(self):
        return self.title

    def natural_key(self):
        return (self.slug,)


class QuestionKind(models.TextChoices):
    SINGLE = "single", _("multiple choice, one right answer")
    # Two choices, True then False as written (translated from the site's words), never shuffled.
    TRUE_FALSE = "true_false", _("true or false")


class Question(models.Model):
    quiz = models.ForeignKey(  # the lead of the unique (quiz, position)
        Quiz, on_delete=models.CASCADE, related_name="questions", verbose_name=_("quiz"), db_index=False
    )
    position = models.PositiveSmallIntegerField(_("position"))
    text = models.TextField(_("text"))
    explanation = models.TextField(
        _("explanation"), blank=True, help_text=_("Shown after the student answers: why the right answer is right.")
    )
    is_archived = models.BooleanField(
        _("archived"),
        default=False,
        help_text=_("Archived questions are no longer asked; the answers students gave stay on record."),
    )
    pool = models.SlugField(  # read with its quiz's questions: no index of its own
        _("pool"),
        max_length=50,
        blank=True,
        db_index=False,
        help_text=_("A short tag. When the quiz draws from this pool, each attempt asks only the number drawn."),
    )
    keep_choice_order = models.BooleanField(
        _("keep choice order"),
        default=False,
        help_text=_('Never shuffle this question\'s choices (for "all of the above").'),
    )
    kind = models.CharField(
        _("kind"),
        max_length=20,
        choices=QuestionKind.choices,
        default=QuestionKind.SINGLE,
        help_text=_(
            "True or false: two choices, “True” and “False”, kept in that order; their translations "
            "come from the site's own words where a language has none."
        ),
    )
    # Each translation's record: "<column>" (``text_ur``, ``text_ind``) -> the English it was
    # written against and its state (quizzes/content/translation_status.py).
    translation_sources = models.JSONField(_("translation sources"), default=dict, blank=True, editable=False)

    objects = QuestionManager()

    class Meta:
        ordering = ["quiz", "position"]
        verbose_name = _("question")
        verbose_name_plural = _("questions")
        constraints = [
            models.UniqueConstraint(fields=["quiz", "position"], name="question_unique_position_in_quiz"),
            models.CheckConstraint(condition=Q(position__gte=1), name="question_position_positive"),
            models.CheckConstraint(condition=_english_present("text"), name="question_text_en_present"),
            models.CheckConstraint(condition=Q(kind__in=QuestionKind.values), name="question_kind_known"),
            # True or false reads in that order: its choices are never shuffled.
            models.CheckConstraint(
                condition=~Q(kind=QuestionKind.TRUE_FALSE) | Q(keep_choice_order=True),
                name="question_true_false_keeps_order",
            ),
        ]

    def __str__(self):
        return f"{self.quiz.slug} #{self.position}"

    def natural_key(self):
        return (*self.quiz.natural_key(), self.position)

    natural_key.dependencies = ["quizzes.quiz"]


class Choice(models.Model):
    question = models.ForeignKey(  # the lead of the unique (question, position)
        Question, on_delete=models.CASCADE, related_name="choices", verbose_name=_("question"), db_index=False
    )
    position = models.PositiveSmallIntegerField(_("position"))
    text = models.CharField(_("text"), max_length=500)
    is_correct = models.BooleanField(_("correct"), default=False)
    is_archived = models.BooleanField(
        _("archived"),
        default=False,
        help_text=_("Archived choices are no longer offered; the answers that chose them stay on record."),
    )
    # Each translation's record: "<column>" (``text_ur``, ``text_ind``) -> the English it was
    # written against and its state (quizzes/content/translation_status.py).
    translation_sources = models.JSONField(_("translation sources"), default=dict, blank=True, editable=False)

    objects = ChoiceManager()

    class Meta:
        ordering = ["question", "position"]
        verbose_name = _("choice")
        verbose_name_plural = _("choices")
        constraints = [
            models.UniqueConstraint(fields=["question", "position"], name="choice_unique_position_in_question"),
            models.CheckConstraint(condition=Q(position__gte=1), name="choice_position_positive"),
            models.CheckConstraint(condition=_english_present("text"), name="choice_text_en_present"),
        ]

    def __str__(self):
        return self.text

    def natural_key(self):
        return (*self.question.natural_key(), self.position)

    natural_key.dependencies = ["quizzes.question"]


class PoolDraw(models.Model):
    """ "N from pool P": each attempt asks ``count`` of the quiz's questions tagged ``pool``, drawn
    at random (quizzes/attempts/layout.py)."""

    quiz = models.ForeignKey(  # the lead of the unique (quiz, pool)
        Quiz, on_delete=models.CASCADE, related_name="pool_draws", verbose_name=_("quiz"), db_index=False
    )
    pool = models.SlugField(_("pool"), max_length=50, db_index=False)  # in the unique (quiz, pool)
    count = models.PositiveSmallIntegerField(_("questions drawn"))

    class Meta:
        ordering = ["quiz", "pool"]
        verbose_name = _("pool draw")
        verbose_name_plural = _("pool draws")
        constraints = [
            models.UniqueConstraint(fields=["quiz", "pool"], name="pooldraw_unique_pool_in_quiz"),
            models.CheckConstraint(condition=Q(count__gte=1), name="pooldraw_count_positive"),
        ]

    def __str__(self):
        return _("%(count)d from pool %(pool)s") % {"count": self.count, "pool": self.pool}
