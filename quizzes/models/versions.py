"""What each question was, as students were shown it, and which version of a quiz's content is current."""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from quizzes.models.content import Question, QuestionKind, Quiz, new_token


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
    # The question's kind (``QuestionKind``), which says how it was asked.
    kind = models.CharField(_("kind"), max_length=20, choices=QuestionKind.choices, default=QuestionKind.SINGLE)
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
