"""A quiz's content (questions and choices in every language) in the shared cache.

Showing a question, checking an answer and giving its feedback all need the
quiz's questions and choices; they change only when an editor saves content,
so they are read from the cache (Redis in production: shared by every worker
and server) instead of three queries per request. Each process also holds the
snapshots it has read, so that a request only asks the cache for the version.

What is cached: one language-independent snapshot per quiz, with every
translated column (``text_en``, ``text_ur``... as on the models, so that
``quizzes.content.languages.localized`` reads it as it reads a model instance), the
questions and choices that are not archived, in order, and which choice is
correct (the views decide what to show; nothing here reaches a page by itself).

Staleness: every quiz has a version token in the cache. A snapshot is stored
with the version it was read under and served only while that version is
current. Saving or deleting a Course, Quiz, Question or Choice replaces the
token (``quiz_content_invalidate``) at once and again when the transaction
commits, so that a worker that read the old rows just before the commit cannot
store them under the new version. Writes that bypass ``save()``
(``QuerySet.update``, ``bulk_create``) must call ``quiz_content_invalidate``.

A process asks the cache for a quiz's version at most once every
``VERSION_RECHECK`` seconds, and serves the snapshot it holds in between: the
round trip cost a tenth of a question page (issue 7). So an edit reaches the
other processes within a second; the process that made it drops its own copy
at once. What a student is graded on never comes from here: an answer reads
the key from the database under the attempt's lock (quizzes/attempts/services.py).
"""

import secrets
import time

from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from quizzes.models import Choice, Course, Question, Quiz

# A snapshot lives an hour at most; the version token decides whether it is current.
CONTENT_TIMEOUT = 60 * 60
_PREFIX = "quiz-content:1"


class _Snapshot:
    """Plain attributes, translated columns included (``text_en``, ``text_ind``...)."""

    def __init__(self, columns: dict[str, str], **fields):
        self.__dict__.update(columns)
        self.__dict__.update(fields)

    @property
    def pk(self) -> int:
        return self.id

    def __repr__(self):
        return f"<{type(self).__name__} {self.id}>"


class ContentChoice(_Snapshot):
    id: int
    position: int
    is_correct: bool


class ContentQuestion(_Snapshot):
    id: int
    position: int
    choices: tuple[ContentChoice, ...]

    def choice(self, choice_id: int) -> ContentChoice | None:
        return next((choice for choice in self.choices if choice.id == choice_id), None)

    @property
    def correct_choice_id(self) -> int | None:
        return next((choice.id for choice in self.choices if choice.is_correct), None)


class QuizContent(_Snapshot):
    """A quiz's current questions (not archived) and their choices, in order."""

    id: int
    slug: str
    course_id: int
    questions: tuple[ContentQuestion, ...]

    def question(self, question_id: int) -> ContentQuestion | None:
        return next((question for question in self.questions if question.id == question_id), None)

    def question_at(self, position: int) -> ContentQuestion | None:
        return next((question for question in self.questions if question.position == position), None)


def _columns(model, field: str) -> list[str]:
    from modeltranslation.translator import translator

    options = translator.get_options_for_model(model)
    return [translated.name for translated in options.all_fields[field]]


def _texts(obj, fields: tuple[str, ...]) -> dict[str, str]:
    return {name: getattr(obj, name) for field in fields for name in _columns(type(obj), field)}


def _version_key(quiz_id: int) -> str:
    return f"{_PREFIX}:version:{quiz_id}"


def _content_key(quiz_id: int) -> str:
    return f"{_PREFIX}:quiz:{quiz_id}"


def quiz_content_load(quiz_id: int, *, quiz: Quiz | None = None) -> QuizContent:
    """Read a quiz's content from the database: two queries (the questions with
    their quiz, the choices), three for a quiz without questions."""
    questions = list(
        Question.objects.filter(quiz_id=quiz_id, is_archived=False).select_related("quiz").order_by("position")
    )
    if questions:
        quiz = questions[0].quiz
    elif quiz is None:
        quiz = Quiz.objects.get(pk=quiz_id)
    choices: dict[int, list[ContentChoice]] = {question.pk: [] for question in questions}
    for choice in Choice.objects.filter(
        question__quiz_id=quiz_id, question__is_archived=False, is_archived=False
    ).order_by("question_id", "position"):
        choices[choice.question_id].append(
            ContentChoice(
                _texts(choice, ("text",)), id=choice.pk, position=choice.position, is_correct=choice.is_correct
            )
        )
    return QuizContent(
        _texts(quiz, ("title", "description")),
        id=quiz.pk,
        slug=quiz.slug,
        course_id=quiz.course_id,
        questions=tuple(
            ContentQuestion(
                _texts(question, ("text", "explanation")),
                id=question.pk,
                position=question.position,
                choices=tuple(choices[question.pk]),
            )
            for question in questions
        ),
    )


# How long a process serves a snapshot before asking the cache for the quiz's version again.
VERSION_RECHECK = 1.0

# The snapshots this process has read, by quiz id, with their version and when that
# version was last confirmed: a current one is served without fetching and unpickling it.
_held: dict[int, tuple[str, QuizContent, float]] = {}
_HELD_MAX = 1000


def _hold(quiz_id: int, version: str, content: QuizContent) -> None:
    if len(_held) >= _HELD_MAX:
        _held.clear()
    _held[quiz_id] = (version, content, time.monotonic())


# Values made from a snapshot (its view in a language, its API form), by (name, quiz id,
# language), with the snapshot they were made from.
_derived: dict[tuple[str, int, str], tuple[QuizContent, object]] = {}
_DERIVED_MAX = 4000


def derived(content: QuizContent, name: str, language: str, build):
    """``build()``, made once per process for this snapshot, ``name`` and language.

    A snapshot never changes (an edit makes a new one), so what is made from it
    can be shared by every request that holds it; treat it as read-only.
    """
    key = (name, content.id, language)
    held = _derived.get(key)
    if held is not None and held[0] is content:
        return held[1]
    value = build()
    if len(_derived) >= _DERIVED_MAX:
        _derived.clear()
    _derived[key] = (content, value)
    return value


def quiz_content(quiz_id: int, *, quiz: Quiz | None = None) -> QuizContent:
    """The quiz's content: no round trip while this process holds a snapshot whose
    version it confirmed less than ``VERSION_RECHECK`` seconds ago, else one (the version).

    The snapshot itself is fetched from the cache only when this process does
    not hold the current one, and read from the database (then cached) only
    when the cache does not either. Pass ``quiz`` when the row is at hand (it
    saves a query on a miss for a quiz without questions). Raises
    Quiz.DoesNotExist for an unknown quiz.
    """
    held = _held.get(quiz_id)
    if held is not None and time.monotonic() - held[2] < VERSION_RECHECK:
        return held[1]
    version_key, content_key = _version_key(quiz_id), _content_key(quiz_id)
    version = cache.get(version_key)
    if version is not None:
        if held is not None and held[0] == version:
            _hold(quiz_id, version, held[1])
            return held[1]
        cached = cache.get(content_key)
        if cached is not None and cached[0] == version:
            _hold(quiz_id, *cached)
            return cached[1]
    else:
        cache.add(version_key, secrets.token_hex(8), timeout=None)
        version = cache.get(version_key)
    content = quiz_content_load(quiz_id, quiz=quiz)
    # Read under ``version``: if an edit replaced it meanwhile, this snapshot is never served.
    cache.set(content_key, (version, content), timeout=CONTENT_TIMEOUT)
    _hold(quiz_id, version, content)
    return content


def quiz_content_invalidate(quiz_id: int) -> None:
    """Stop serving the cached content of a quiz (now, and when the transaction commits):
    in this process at once, in the others within ``VERSION_RECHECK`` seconds."""

    def bump():
        cache.set(_version_key(quiz_id), secrets.token_hex(8), timeout=None)
        _held.pop(quiz_id, None)

    bump()
    transaction.on_commit(bump)


def _invalidate_many(quiz_ids) -> None:
    for quiz_id in set(quiz_ids):
        if quiz_id is not None:
            quiz_content_invalidate(quiz_id)


@receiver([post_save, post_delete], sender=Course, dispatch_uid="quiz_content_course")
def _course_changed(sender, instance, **kwargs):
    _invalidate_many(Quiz.objects.filter(course_id=instance.pk).values_list("pk", flat=True))


@receiver([post_save, post_delete], sender=Quiz, dispatch_uid="quiz_content_quiz")
def _quiz_changed(sender, instance, **kwargs):
    _invalidate_many([instance.pk])


@receiver([post_save, post_delete], sender=Question, dispatch_uid="quiz_content_question")
def _question_changed(sender, instance, **kwargs):
    _invalidate_many([instance.quiz_id])


@receiver([post_save, post_delete], sender=Choice, dispatch_uid="quiz_content_choice")
def _choice_changed(sender, instance, **kwargs):
    question = instance._state.fields_cache.get("question")
    if question is not None:
        _invalidate_many([question.quiz_id])
    else:
        _invalidate_many(Question.objects.filter(pk=instance.question_id).values_list("quiz_id", flat=True))
