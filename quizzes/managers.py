"""Managers: fixtures name content by slug and position, not by id; attempts know which count.

Natural keys make `loaddata` update existing rows in place, so loading the
fixtures twice, or on a database where editors created other content, never
duplicates or overwrites the wrong row.

Which attempts count for a grade, progress, the gradebook, the reports and the grades sent
to other systems is defined here once: every attempt but a practice (``Attempt.is_practice``).
The ORM reads it as ``Attempt.objects.graded()`` or ``graded_q(relation)``, Python as
``attempt.counts_for_grade``, and fixed SQL binds ``GRADED_IS_PRACTICE``
(tests/attempts/test_graded.py checks that no other spelling of the rule is left).

Which quizzes students see is ``Quiz.objects.published()``. Which content students' records
point at is ``answered()`` (questions, choices) and ``attempted()`` (quizzes): answers and attempts
hold it with PROTECT, so it may not be deleted, only archived or unpublished, and an answered
question's key changes only through a regrade. ``is_answered(content)`` asks it of one row.
"""

from django.db import models
from django.db.models import Exists, OuterRef, Q

# The value of ``Attempt.is_practice`` of an attempt that counts.
GRADED_IS_PRACTICE = False


def graded_q(relation: str = "") -> Q:
    """The attempts that count, from a model related to them: ``relation`` is the lookup path
    to the attempt (``"attempt__"`` from an answer, ``"attempts__"`` from a quiz)."""
    return Q(**{f"{relation}is_practice": GRADED_IS_PRACTICE})


class AttemptQuerySet(models.QuerySet):
    def graded(self):
        """The attempts that count for a grade (every one but practices)."""
        return self.filter(graded_q())


def _records_of(model, relation: str) -> Exists:
    """Whether a row of ``model`` has records through its reverse ``relation`` ("answers", "attempts")."""
    rel = model._meta.get_field(relation)
    return Exists(rel.related_model.objects.filter(**{rel.field.name: OuterRef("pk")}))


class QuizQuerySet(models.QuerySet):
    def published(self):
        """The quizzes students see."""
        return self.filter(is_published=True)

    def attempted(self):
        """The quizzes students have attempted: kept on record, so never deleted (unpublished instead)."""
        return self.filter(_records_of(self.model, "attempts"))


class AnsweredQuerySet(models.QuerySet):
    """Questions or choices."""

    def answered(self):
        """Those students answered: kept on record, so never deleted (archived instead)."""
        return self.filter(_records_of(self.model, "answers"))


def is_answered(content) -> bool:
    """Whether students answered this question or choice (``AnsweredQuerySet.answered``)."""
    return type(content).objects.filter(pk=content.pk).answered().exists()


class CourseManager(models.Manager):
    def get_by_natural_key(self, slug):
        return self.get(slug=slug)


class QuizManager(models.Manager.from_queryset(QuizQuerySet)):
    def get_by_natural_key(self, slug):
        return self.get(slug=slug)


class QuestionManager(models.Manager.from_queryset(AnsweredQuerySet)):
    def get_by_natural_key(self, quiz_slug, position):
        return self.get(quiz__slug=quiz_slug, position=position)


class ChoiceManager(models.Manager.from_queryset(AnsweredQuerySet)):
    def get_by_natural_key(self, quiz_slug, question_position, position):
        return self.get(question__quiz__slug=quiz_slug, question__position=question_position, position=position)
