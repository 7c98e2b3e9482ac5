"""Managers: fixtures name content by slug and position, not by id; attempts know which count.

Natural keys make `loaddata` update existing rows in place, so loading the
fixtures twice, or on a database where editors created other content, never
duplicates or overwrites the wrong row.

Which attempts count for a grade, progress, the gradebook, the reports and the grades sent
to other systems is defined here once: every attempt but a practice (``Attempt.is_practice``).
The ORM reads it as ``Attempt.objects.graded()`` or ``graded_q(relation)``, Python as
``attempt.counts_for_grade``, and fixed SQL binds ``GRADED_IS_PRACTICE``
(tests/attempts/test_graded.py checks that no other spelling of the rule is left).
"""

from django.db import models
from django.db.models import Q

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


class CourseManager(models.Manager):
    def get_by_natural_key(self, slug):
        return self.get(slug=slug)


class QuizManager(models.Manager):
    def get_by_natural_key(self, slug):
        return self.get(slug=slug)


class QuestionManager(models.Manager):
    def get_by_natural_key(self, quiz_slug, position):
        return self.get(quiz__slug=quiz_slug, position=position)


class ChoiceManager(models.Manager):
    def get_by_natural_key(self, quiz_slug, question_position, position):
        return self.get(question__quiz__slug=quiz_slug, question__position=question_position, position=position)
