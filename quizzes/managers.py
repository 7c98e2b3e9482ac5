"""Managers that let fixtures name content by slug and position, not by id.

Natural keys make `loaddata` update existing rows in place, so loading the
fixtures twice, or on a database where editors created other content, never
duplicates or overwrites the wrong row.
"""

from django.db import models


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
