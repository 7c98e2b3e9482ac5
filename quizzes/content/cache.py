"""A quiz's current content (questions and choices in every language), held by each process.

The quiz's page and the API's quiz need the quiz's current questions and
choices; they change only when an editor saves content, so each process holds
the snapshot it has read instead of running queries per request, and the
cache (Redis in production: shared by every worker and server) keeps it for
the processes that held an older one. (An attempt shows the versions its
layout holds instead, which never change: ``quizzes.content.layout_cache``.)

What is cached: one language-independent snapshot per quiz, with every
translated column (``text_en``, ``text_ur``... as on the models, so that
``quizzes.content.shown.localized`` reads it as it reads a model instance), its
questions that are not archived, in order, each as its current version shows it
(``version_question``: its offered choices and which one is correct), and its pool
draws (the views decide what to show; nothing here reaches a page by itself).

Staleness: every quiz has a version in the database (``QuizContentVersion``),
the one thing every process shares whatever the cache: a new random number
each time its content is written, set by ``quiz_content_invalidate`` in the
transaction that writes it, so that whoever reads the new version reads the
new rows. Saving or deleting a Course, Quiz, Question or Choice calls it (the
receivers at the end of this module); writes that bypass ``save()``
(``QuerySet.update``, ``bulk_create``) must call it themselves. A snapshot is
cached under the version it was read with, which is read in the same
statement as its questions or before them, never after: a snapshot may be
newer than its version, never older. A version is never used twice, so
neither an edit rolled back nor another database using the same cache nor a
database restored from a backup brings back a snapshot of other rows.

A process asks the database for a quiz's version (one query, by primary
keys) at most once every ``VERSION_RECHECK`` seconds, and serves the snapshot
it holds in between without a round trip. So an edit reaches every process
within that time, whatever process made it (a worker, ``manage.py
import_quiz``) and with or without a shared cache; the process that made it
drops its own copy at once. The interval is measured on the wall clock
(``time.time``); a step back ends it. What a student is graded on never comes
from here: an answer reads the key from the database under the attempt's lock
(quizzes/attempts/services.py).
"""

import secrets
import time

from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import OuterRef, Subquery
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from common.loading import collecting, when_loaded
from quizzes.content.languages import translated_fields
from quizzes.content.shown import shown_columns
from quizzes.content.versions import question_versions_sync
from quizzes.models import Choice, Course, PoolDraw, Question, QuestionVersion, Quiz, QuizContentVersion

# A snapshot lives an hour at most in the cache, under the version it was read with.
CONTENT_TIMEOUT = 60 * 60
PREFIX = "quiz-content:5"


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
    """A question as one version of it shows it (``version_question``); ``id`` is the question's."""

    id: int
    position: int
    version_id: int
    version_number: int
    revisions: dict
    choices: tuple[ContentChoice, ...]

    def choice(self, choice_id: int) -> ContentChoice | None:
        return next((choice for choice in self.choices if choice.id == choice_id), None)

    @property
    def correct_choice_id(self) -> int | None:
        return next((choice.id for choice in self.choices if choice.is_correct), None)


class QuizContent(_Snapshot):
    """A quiz's current questions (not archived, each as its current version shows it, with its
    ``pool`` and ``keep_choice_order``) and their choices, in order, and its ``pool_draws``
    ({pool: count}); or the questions of one attempt's layout (``layout_content``)."""

    id: int
    slug: str
    course_id: int
    questions: tuple[ContentQuestion, ...]

    def question(self, question_id: int) -> ContentQuestion | None:
        return next((question for question in self.questions if question.id == question_id), None)

    def question_at(self, position: int) -> ContentQuestion | None:
        return next((question for question in self.questions if question.position == position), None)


def _content_key(quiz_id: int, version: int) -> str:
    return f"{PREFIX}:quiz:{quiz_id}:{version}"


def _version_of(quiz: Quiz) -> int | None:
    """The version read with ``quiz`` (``select_related("content_version")``)."""
    try:
        return quiz.content_version.version
    except QuizContentVersion.DoesNotExist:
        return None


def _version_read(quiz_id: int) -> int | None:
    """The quiz's current version: one query, by primary keys.

    None for a quiz whose content was never written through
    ``quiz_content_invalidate`` (a quiz made with ``bulk_create``); raises
    Quiz.DoesNotExist for an unknown quiz.
    """
    quote = connection.ops.quote_name
    versions = QuizContentVersion._meta
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT v.{quote(versions.get_field('version').column)} FROM {quote(Quiz._meta.db_table)} q "
            f"LEFT JOIN {quote(versions.db_table)} v ON v.{quote(versions.get_field('quiz').column)} = "
            f"q.{quote(Quiz._meta.pk.column)} WHERE q.{quote(Quiz._meta.pk.column)} = %s",
            [quiz_id],
        )
        row = cursor.fetchone()
    if row is None:
        raise Quiz.DoesNotExist(f"No quiz {quiz_id}.")
    return row[0]


def _versions_bump(quiz_ids: list[int]) -> None:
    """Give the quizzes a new version, in the current transaction: one statement, which
    creates the version of a quiz that has none and leaves out a quiz that is gone."""
    quote = connection.ops.quote_name
    versions = QuizContentVersion._meta
    quiz_column, version_column = (quote(versions.get_field(name).column) for name in ("quiz", "version"))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {quote(versions.db_table)} ({quiz_column}, {version_column}) "
            f"SELECT {quote(Quiz._meta.pk.column)}, CAST(%s AS BIGINT) FROM {quote(Quiz._meta.db_table)} "
            f"WHERE {quote(Quiz._meta.pk.column)} IN ({', '.join(['%s'] * len(quiz_ids))}) "
            f"ON CONFLICT ({quiz_column}) DO UPDATE SET {version_column} = excluded.{version_column}",
            [secrets.randbits(63), *quiz_ids],
        )


def version_question(version, *, position: int, choice_order=None, **fields) -> "ContentQuestion":
    """A question as ``version`` (a ``QuestionVersion``) shows it, at ``position``, with its
    choices in ``choice_order`` (their ids; position order when None). The one reading of a
    version's content: the quiz's content (its current versions) and every attempt's layout."""
    choices = {choice["id"]: choice for choice in version.choices}
    order = [choice["id"] for choice in version.choices] if choice_order is None else choice_order
    machine = set(version.machine_texts)
    return ContentQuestion(
        version.texts,
        machine_columns=frozenset(name for name in machine if not name.startswith("choice:")),
        id=version.question_id,
        position=position,
        version_id=version.pk,
        version_number=version.number,
        revisions=version.revisions,
        kind=version.kind,
        choices=tuple(
            ContentChoice(
                {name: value for name, value in choices[choice_id].items() if name not in ("id", "position")},
                machine_columns=frozenset(
                    name.removeprefix(f"choice:{choice_id}:")
                    for name in machine
                    if name.startswith(f"choice:{choice_id}:")
                ),
                id=choice_id,
                position=choices[choice_id]["position"],
                is_correct=choice_id == version.correct_choice_id,
            )
            for choice_id in order
            if choice_id in choices
        ),
        **fields,
    )


def _current_versions(question_ids) -> dict[int, QuestionVersion]:
    latest = QuestionVersion.objects.filter(question_id=OuterRef("question_id")).order_by("-number").values("pk")[:1]
    versions = QuestionVersion.objects.filter(question_id__in=question_ids, pk=Subquery(latest))
    return {version.question_id: version for version in versions}


def _load(quiz_id: int) -> tuple[int | None, QuizContent]:
    """The quiz's content from the database, and the version it is (at least) as new as.

    The version is read in the statement of the rows of the quiz and its questions:
    the question versions read after it may be newer, never older, so a snapshot
    stored under a version may be newer than that version, never older.
    """
    questions_query = (
        Question.objects.filter(quiz_id=quiz_id, is_archived=False)
        .select_related("quiz", "quiz__content_version")
        .order_by("position")
    )
    questions = list(questions_query)
    if questions:
        quiz = questions[0].quiz
    else:
        # No question to read them with: the quiz and its version, then the questions again.
        quiz = Quiz.objects.select_related("content_version").get(pk=quiz_id)
        questions = list(questions_query.all())
    version = _version_of(quiz)
    versions = _current_versions([question.pk for question in questions]) if questions else {}
    draws = PoolDraw.objects.filter(quiz_id=quiz_id).order_by("pool").values_list("pool", "count")
    draws = dict(draws) if questions else {}
    texts, machine = shown_columns(quiz, translated_fields(Quiz))
    return version, QuizContent(
        texts,
        machine_columns=machine,
        id=quiz.pk,
        slug=quiz.slug,
        course_id=quiz.course_id,
        derived_key=("quiz", quiz.pk),
        pool_draws=draws,
        questions=tuple(
            version_question(
                versions[question.pk],
                position=question.position,
                pool=question.pool,
                keep_choice_order=question.keep_choice_order,
            )
            # A question always has a version (quizzes/content/versions.py) once its save commits.
            for question in questions
            if question.pk in versions
        ),
    )


def quiz_content_load(quiz_id: int) -> QuizContent:
    """Read a quiz's content from the database: three queries (the questions with
    their quiz, their current versions, its pool draws), three for a quiz without
    questions (the questions, the quiz, the questions again). Raises Quiz.DoesNotExist for an unknown quiz."""
    return _load(quiz_id)[1]


# How long a process serves a snapshot before asking the database for the quiz's version again.
VERSION_RECHECK = 1.0

# The snapshots this process has read, by quiz id, with their version and when (``time.time()``)
# that version was last confirmed: a current one is served without a query, or unpickling it.
_held: dict[int, tuple[int | None, QuizContent, float]] = {}
_HELD_MAX = 1000


def _hold(quiz_id: int, version: int | None, content: QuizContent) -> None:
    if len(_held) >= _HELD_MAX:
        _held.clear()
    _held[quiz_id] = (version, content, time.time())


def _confirmed_lately(confirmed_at: float) -> bool:
    # The wall clock (which time-machine moves in the tests): a step back ends the wait too.
    return 0 <= time.time() - confirmed_at < VERSION_RECHECK


# Values made from a snapshot (its view in a language, its API form), by (name, quiz id,
# language), with the snapshot they were made from.
_derived: dict[tuple[str, int, str], tuple[QuizContent, object]] = {}
_DERIVED_MAX = 4000


def derived(content: QuizContent, name: str, language: str, build):
    """``build()``, made once per process for this snapshot, ``name`` and language.

    A snapshot never changes (an edit makes a new one), so what is made from it
    can be shared by every request that holds it; treat it as read-only.
    """
    key = (name, content.derived_key, language)
    held = _derived.get(key)
    if held is not None and held[0] is content:
        return held[1]
    value = build()
    if len(_derived) >= _DERIVED_MAX:
        _derived.clear()
    _derived[key] = (content, value)
    return value


def quiz_content(quiz_id: int) -> QuizContent:
    """The quiz's content: no query while this process holds a snapshot whose version it
    confirmed less than ``VERSION_RECHECK`` seconds ago, else one (the version).

    A snapshot this process does not hold is fetched from the cache under the new
    version, and read from the database (``quiz_content_load``, then cached) when
    the cache does not hold it either, or when this process held none (there is no
    version to look for yet: it comes with the questions). Raises Quiz.DoesNotExist
    for an unknown quiz.
    """
    held = _held.get(quiz_id)
    if held is not None:
        if _confirmed_lately(held[2]):
            return held[1]
        version = _version_read(quiz_id)
        if version == held[0]:
            _hold(quiz_id, version, held[1])
            return held[1]
        if version is not None:
            cached = cache.get(_content_key(quiz_id, version))
            if cached is not None:
                _hold(quiz_id, version, cached)
                return cached
    version, content = _load(quiz_id)
    if version is not None:  # a version of this database: never found under another version
        cache.set(_content_key(quiz_id, version), content, timeout=CONTENT_TIMEOUT)
    _hold(quiz_id, version, content)
    return content


def quiz_contents(versions: dict[int, int | None]) -> dict[int, QuizContent]:
    """The content of several quizzes whose versions were read with other rows (by quiz id: the
    dashboard's statement reads them), without reading them again: a snapshot this process
    holds at that version is served and confirmed, those it does not are fetched from the
    cache in one round trip, and the rest as ``quiz_content`` does (read from the database and
    cached: three queries each, once per edit for every process). A quiz gone since its
    version was read is left out."""
    contents: dict[int, QuizContent] = {}
    wanted: dict[str, tuple[int, int]] = {}
    for quiz_id, version in versions.items():
        held = _held.get(quiz_id)
        if version is not None and held is not None and held[0] == version:
            _hold(quiz_id, version, held[1])
            contents[quiz_id] = held[1]
        elif version is not None:
            wanted[_content_key(quiz_id, version)] = (quiz_id, version)
    for key, content in cache.get_many(list(wanted)).items():
        quiz_id, version = wanted[key]
        _hold(quiz_id, version, content)
        contents[quiz_id] = content
    for quiz_id in versions.keys() - contents.keys():
        try:
            contents[quiz_id] = quiz_content(quiz_id)
        except Quiz.DoesNotExist:
            continue
    return contents


def quiz_content_invalidate(quiz_id: int) -> None:
    """After a write that bypassed ``save()`` (``QuerySet.update``, ``bulk_create``): bring the
    versions of the quiz's questions up to date (``question_versions_sync``, as the receivers'
    ``question_version_sync`` does for every save), and stop serving the cached content of the
    quiz: a new version in the database, in the current transaction (so whoever reads it reads
    the rows written with it), and this process's copy dropped at once and again when the
    transaction commits; the other processes read the new version within ``VERSION_RECHECK``
    seconds. While rows are loaded whole (``common.loading``) it is done once for the quiz
    when they are all in."""
    touched = collecting()
    if touched is not None:
        touched["quizzes"].add(quiz_id)
        return
    question_versions_sync(Question.objects.filter(quiz_id=quiz_id).values_list("pk", flat=True))
    _invalidate([quiz_id])


@when_loaded
def quiz_contents_loaded(touched: dict) -> None:
    """After rows were loaded whole (``common.loading``): each quiz whose course, quiz,
    questions, choices or draws were written brought up to date once
    (``quiz_content_invalidate``: its questions' versions, then its content's version)."""
    quiz_ids = set(touched["quizzes"])
    quiz_ids |= set(Question.objects.filter(pk__in=touched["questions"]).values_list("quiz_id", flat=True))
    for quiz_id in sorted(quiz_ids):
        quiz_content_invalidate(quiz_id)


def _invalidate(quiz_ids) -> None:
    quiz_ids = sorted({quiz_id for quiz_id in quiz_ids if quiz_id is not None})
    if not quiz_ids:
        return
    touched = collecting()
    if touched is not None:  # rows loaded whole: once per quiz at the end (quiz_contents_loaded)
        touched["quizzes"].update(quiz_ids)
        return
    _versions_bump(quiz_ids)

    def drop():
        for quiz_id in quiz_ids:
            _held.pop(quiz_id, None)

    drop()
    transaction.on_commit(drop)


@receiver([post_save, post_delete], sender=Course, dispatch_uid="quiz_content_course")
def _course_changed(sender, instance, **kwargs):
    _invalidate(Quiz.objects.filter(course_id=instance.pk).values_list("pk", flat=True))


@receiver([post_save, post_delete], sender=Quiz, dispatch_uid="quiz_content_quiz")
def _quiz_changed(sender, instance, signal, **kwargs):
    if signal is post_delete:
        # Deleting its questions, just before, gave it a version again: it goes with the quiz.
        QuizContentVersion.objects.filter(quiz_id=instance.pk).delete()
    _invalidate([instance.pk])


@receiver([post_save, post_delete], sender=PoolDraw, dispatch_uid="quiz_content_pool_draw")
def _pool_draw_changed(sender, instance, **kwargs):
    _invalidate([instance.quiz_id])


@receiver([post_save, post_delete], sender=Question, dispatch_uid="quiz_content_question")
def _question_changed(sender, instance, **kwargs):
    _invalidate([instance.quiz_id])


@receiver([post_save, post_delete], sender=Choice, dispatch_uid="quiz_content_choice")
def _choice_changed(sender, instance, **kwargs):
    if collecting() is not None:  # its question's quiz is found at the end (quiz_contents_loaded)
        return
    question = instance._state.fields_cache.get("question")
    if question is not None:
        _invalidate([question.quiz_id])
    else:
        _invalidate(Question.objects.filter(pk=instance.question_id).values_list("quiz_id", flat=True))
