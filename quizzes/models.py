"""Courses, their multiple-choice quizzes, and every attempt students make.

Content (Course, Quiz, Question, Choice) is translated field by field with
django-modeltranslation (see translation.py); English is the source and the
fallback. Records (Enrollment, Attempt, Answer) are written only through
services.py, and the invariants they rely on are database constraints.
"""

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from quizzes.attempts import grading
from quizzes.managers import ChoiceManager, CourseManager, QuestionManager, QuizManager


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


class QuestionVersion(models.Model):
    """What a question was, as students were shown it: its texts and its offered choices in
    every language, and its key. Written only by ``quizzes.content.versions``.

    Once an attempt's layout holds a version it never changes: an edit makes a new one (the
    current one is the highest ``number``). ``texts`` holds the translated columns of the
    question (``text_en``, ``explanation_ur``...), ``choices`` the offered choices in position
    order (``id``, ``position``, ``text_en``...); ``revisions`` gives, for each language and
    each text (``text``, ``explanation``, ``choice:<id>``), the number of the version that text
    last changed in, as a student of that language read it (English where it is untranslated),
    and under ``question`` the question's revision in that language: the latest of its texts.
    """

    question = models.ForeignKey(  # the lead of the unique (question, number)
        Question, on_delete=models.CASCADE, related_name="versions", verbose_name=_("question"), db_index=False
    )
    number = models.PositiveSmallIntegerField(_("version"))
    texts = models.JSONField(_("texts"))
    choices = models.JSONField(_("choices"))
    # A choice id, not a foreign key: the record stays whole if the choice is deleted.
    correct_choice_id = models.BigIntegerField(_("correct choice"), null=True)
    revisions = models.JSONField(_("translation revisions"))
    # The texts above that are machine translations, shown as such (``text_ur``,
    # ``choice:<id>:text_ur``); a machine translation its language hides is not in ``texts``.
    machine_texts = models.JSONField(_("machine translations shown"), default=list)
    # A random number, new whenever the row is written: what a cache holds it under, with its id,
    # so that an id used again (another database, a rolled-back insert) never finds other texts.
    token = models.BigIntegerField(default=new_token, editable=False)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["question", "number"]
        verbose_name = _("question version")
        verbose_name_plural = _("question versions")
        constraints = [
            models.UniqueConstraint(fields=["question", "number"], name="questionversion_unique_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="questionversion_number_positive"),
        ]

    def __str__(self):
        return f"{self.question} v{self.number}"


class QuizContentVersion(models.Model):
    """Which version of a quiz's content is current, for the content cache of every process
    (quizzes/content/cache.py).

    A new random number each time the quiz's content is written, set in the writing
    transaction; never shown nor edited. A row of its own, not a column of the quiz, so that
    saving a Quiz (an admin form, a fixture) never writes an old version back.
    """

    quiz = models.OneToOneField(
        Quiz, on_delete=models.CASCADE, primary_key=True, related_name="content_version", verbose_name=_("quiz")
    )
    version = models.BigIntegerField()  # shown nowhere (not in the admin): nothing to translate

    def __str__(self):
        return f"{self.quiz_id}: {self.version}"


class MachineTranslations(models.TextChoices):
    """What students reading a language see where its translation was made by a machine."""

    SHOW = "show", _("the machine translation, marked as such")
    ENGLISH = "english", _("the English text")


# Machine translations are shown only once someone has chosen to for the language: until then
# its students read the English, as they do where a text is not translated.
MACHINE_TRANSLATIONS_DEFAULT = MachineTranslations.ENGLISH


class LanguageSetting(models.Model):
    """Choices made for one of the languages content is translated into (not English).
    Written only by ``quizzes.content.machine_translations.language_setting_update``."""

    language = models.CharField(_("language"), max_length=10, unique=True, choices=settings.LANGUAGES)
    machine_translations = models.CharField(
        _("students see"),
        max_length=10,
        choices=MachineTranslations.choices,
        default=MACHINE_TRANSLATIONS_DEFAULT,
        help_text=_("Where a text of this language was made by a machine translation."),
    )

    class Meta:
        ordering = ["language"]
        verbose_name = _("language setting")
        verbose_name_plural = _("language settings")
        constraints = [
            models.CheckConstraint(
                condition=Q(
                    language__in=[
                        code for code, _name in settings.LANGUAGES if code != settings.MODELTRANSLATION_DEFAULT_LANGUAGE
                    ]
                ),
                name="languagesetting_translation_language",
            ),
            models.CheckConstraint(
                condition=Q(machine_translations__in=MachineTranslations.values),
                name="languagesetting_machine_translations_valid",
            ),
        ]

    def __str__(self):
        return str(self.get_language_display())


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

    @property
    def feedback_question(self):
        """The question its feedback (right choice, explanation) is read from: as the version
        it records showed it (``content_question``, a ``quizzes.content.cache.ContentQuestion``,
        which ``attempt_answer_submit`` and the attempt selectors attach)."""
        return self.content_question

    @property
    def is_regraded(self) -> bool:
        """Whether its grade is not the one its feedback gave (the key of the version shown):
        a regrade changed it since (quizzes/attempts/regrade.py)."""
        return self.is_correct != (self.choice_id == self.feedback_question.correct_choice_id)

    # What its student may see of it now, by its ``review`` (a ``quizzes.attempts.rules.Review``,
    # which the attempt selectors and services attach): None where the review withholds it.

    @property
    def shown_correct(self) -> bool | None:
        return self.is_correct if self.review.correctness else None

    @property
    def shown_correct_choice_id(self) -> int | None:
        return self.feedback_question.correct_choice_id if self.review.right_answer else None

    @property
    def shown_regraded(self) -> bool | None:
        return self.is_regraded if self.review.correctness else None

    @property
    def shown_feedback_question(self):
        """``feedback_question`` when its explanation may be shown, else None."""
        return self.feedback_question if self.review.explanation else None


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


class UserPreferences(models.Model):
    """A user's own settings: the time zone their dates are written in (the site's by default)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preferences", verbose_name=_("user")
    )
    time_zone = models.CharField(_("time zone"), max_length=64, blank=True)

    class Meta:
        verbose_name = _("preferences")
        verbose_name_plural = _("preferences")

    def __str__(self):
        return f"{self.user} · {self.time_zone or settings.TIME_ZONE}"


class IdempotencyKey(models.Model):
    """An API write made with an ``Idempotency-Key`` header, and its response.

    A client that retries (after a timeout, a dropped connection) with the
    same key gets the recorded response instead of a second write.
    """

    # The lead of the unique (user, key).
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    key = models.CharField(max_length=255)
    # What the key was first used for: method, path and a hash of the body.
    fingerprint = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    response_body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("idempotency key")
        verbose_name_plural = _("idempotency keys")
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="idempotency_key_unique_per_user"),
        ]

    def __str__(self):
        return f"{self.user} · {self.key}"


class OutboxMessage(models.Model):
    """A message to another system (an xAPI statement, a grade for an LTI platform), written in
    the transaction that records what it reports and sent by ``manage.py send_outbox``
    (quizzes/outbox). ``(kind, key)`` names it once: enqueued twice it is one row. It is sent
    until it is delivered, with a growing wait after each failure, and never after."""

    class Kind(models.TextChoices):
        XAPI_STARTED = "xapi.started", _("xAPI: attempt started")
        XAPI_ANSWERED = "xapi.answered", _("xAPI: question answered")
        XAPI_FINISHED = "xapi.finished", _("xAPI: attempt finished")
        LTI_SCORE = "lti.score", _("LTI: grade")

    class State(models.TextChoices):
        PENDING = "pending", _("pending")
        DELIVERED = "delivered", _("delivered")
        FAILED = "failed", _("failed")  # refused by its receiver: sent again only by a staff action

    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    key = models.CharField(_("key"), max_length=64)
    # What it reports: the attempt, or for an answer the answer.
    subject_id = models.PositiveBigIntegerField(_("subject"))
    # What the message says that its subject's rows may stop saying (an attempt's score, which
    # a regrade may change): its receiver reads the rest from records that never change.
    payload = models.JSONField(_("payload"), default=dict, blank=True)
    state = models.CharField(_("state"), max_length=10, choices=State.choices, default=State.PENDING)
    tries = models.PositiveIntegerField(_("tries"), default=0)
    created_at = models.DateTimeField(_("created at"))
    due_at = models.DateTimeField(_("due at"))
    delivered_at = models.DateTimeField(_("delivered at"), null=True, blank=True)
    last_error = models.TextField(_("last error"), blank=True, default="")

    class Meta:
        ordering = ["-id"]
        verbose_name = _("outbox message")
        verbose_name_plural = _("outbox messages")
        constraints = [
            models.UniqueConstraint(fields=["kind", "key"], name="outbox_message_once"),
            models.CheckConstraint(
                condition=Q(state__in=["pending", "delivered", "failed"]), name="outbox_message_state_valid"
            ),
            models.CheckConstraint(
                condition=Q(state="delivered", delivered_at__isnull=False)
                | (~Q(state="delivered") & Q(delivered_at__isnull=True)),
                name="outbox_message_delivered_when_delivered",
            ),
        ]
        indexes = [
            # What ``send_outbox`` reads: the pending messages that are due, oldest first.
            models.Index(fields=["due_at", "id"], condition=Q(state="pending"), name="outbox_message_due"),
        ]

    def __str__(self):
        return f"{self.kind} {self.key}"


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
