"""Content fields translated with django-modeltranslation.

Each field gets one column per language (``title_en``, ``title_ur``,
``title_sn``, ``title_ind``: modeltranslation suffixes Indonesian with
``_ind`` because ``_id`` is taken by foreign keys). An empty translation
falls back to English.
"""

from modeltranslation.translator import TranslationOptions, register

from quizzes.models import Choice, Course, Question, Quiz


@register(Course)
class CourseTranslationOptions(TranslationOptions):
    fields = ("title", "description")
    required_languages = {"en": ("title",)}


@register(Quiz)
class QuizTranslationOptions(TranslationOptions):
    fields = ("title", "description")
    required_languages = {"en": ("title",)}


@register(Question)
class QuestionTranslationOptions(TranslationOptions):
    fields = ("text", "explanation")
    required_languages = {"en": ("text",)}


@register(Choice)
class ChoiceTranslationOptions(TranslationOptions):
    fields = ("text",)
    required_languages = ("en",)
