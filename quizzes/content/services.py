"""Writes of content: quizzes imported from the seed text format and from question files
(quizzes/content/formats/), and translations confirmed by a reviewer.

Translated fields are always written by their explicit language column
(``text_en``, ``text_ur``...): assigning ``question.text`` would write
whichever language happens to be active. Every translation written is
stamped with the English it was written against (quizzes/content/translation_status.py);
importing the English of an existing quiz stamps nothing, so the translations
of a text whose English changed become stale. Rows are written with ``save()``
so that the quiz content cache follows (the choices of a new quiz with
``bulk_create``, followed by ``quiz_content_invalidate``).
"""

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils.text import slugify
from django.utils.translation import gettext as _

from common.loading import rows_loaded
from quizzes.content.cache import quiz_content_invalidate
from quizzes.content.formats.common import question_error
from quizzes.content.languages import SOURCE_LANGUAGE, column, text_in, translated_fields
from quizzes.content.seedformat import ParsedQuiz, SeedFormatError
from quizzes.content.translation_status import SOURCES_FIELD, Status, translations_stamp
from quizzes.content.true_false import true_false_choices_translate
from quizzes.managers import is_answered
from quizzes.models import Choice, Course, Question, QuestionKind, Quiz


class ContentImportError(Exception):
    """An import that was refused; nothing was written."""


class SameTitleError(ContentImportError):
    """A new quiz titled as one its course has (``namesake``): the same file again, most likely.
    The caller asks whether to import into that quiz or to make another of the same title."""

    def __init__(self, namesake: Quiz):
        self.namesake = namesake
        title = text_in(namesake, "title", SOURCE_LANGUAGE)
        super().__init__(
            _("Course %(course)s has a quiz titled “%(title)s” already (%(slug)s).")
            % {"course": namesake.course.slug, "title": title, "slug": namesake.slug}
        )


def quiz_import(
    *, parsed: ParsedQuiz, language: str, quiz_slug: str | None = None, course_slug: str | None = None
) -> tuple[Quiz, bool]:
    """Import a quiz file: a new quiz (in English), or a translation of an existing one.

    Returns the quiz and whether it was created. All or nothing: on any error
    a ContentImportError (or SeedFormatError naming the line) is raised and
    nothing is written.
    """
    return quiz_import_languages(parsed={language: parsed}, quiz_slug=quiz_slug, course_slug=course_slug)


def quiz_import_languages(
    *,
    parsed: dict[str, ParsedQuiz],
    quiz_slug: str | None = None,
    course_slug: str | None = None,
    default_title: str = "",
    same_title: bool = False,
) -> tuple[Quiz, bool]:
    """Import a file holding one or more languages of a quiz (``parsed`` by language).

    Into an existing quiz, each language's texts (and the key and explanations where the
    file carries them); otherwise a new, unpublished quiz from the English, then the other
    languages. ``default_title`` names a new quiz whose file names none (the file's name).
    A new quiz titled as one of its course already, and given no slug, is refused (the same
    file imported twice, most likely) unless ``same_title``: it then gets a slug of its own
    (``-2``, ``-3``...). All or nothing, as ``quiz_import``.
    """
    for language in parsed:
        if language not in dict(settings.LANGUAGES):
            raise ContentImportError(_("Unknown language %(language)r.") % {"language": language})
    existing = Quiz.objects.filter(slug=quiz_slug).select_related("course").first() if quiz_slug else None
    # The rows' versions and the content's invalidation once per quiz at the end, as loaddata's.
    with transaction.atomic(), rows_loaded():
        if existing is not None:
            if course_slug and existing.course.slug != course_slug:
                raise ContentImportError(
                    _("Quiz %(quiz)s belongs to course %(course)s, not %(other)s.")
                    % {"quiz": existing.slug, "course": existing.course.slug, "other": course_slug}
                )
            for language, quiz_file in parsed.items():
                quiz_translation_import(quiz=existing, parsed=quiz_file, language=language)
            return existing, False
        if SOURCE_LANGUAGE not in parsed:
            raise ContentImportError(
                _(
                    "A new quiz must be imported in English, its source language; "
                    "import translations into it afterwards with --quiz."
                )
            )
        course = _import_course(course_slug)
        english = parsed[SOURCE_LANGUAGE]
        title = english.title or default_title
        slug = quiz_slug or slugify(title)
        namesake = (
            course.quizzes.filter(**{column("title", SOURCE_LANGUAGE): title}).select_related("course").order_by("pk")
        ).first()
        # A slug of its own named (--quiz) says that a new quiz is meant.
        if namesake is not None and not quiz_slug:
            if not same_title:
                raise SameTitleError(namesake)
            slug = _free_slug(slug)
        translations = {language: quiz_file for language, quiz_file in parsed.items() if language != SOURCE_LANGUAGE}
        quiz = quiz_create_from_file(parsed=english, course=course, slug=slug, title=title, translations=translations)
        return quiz, True


def _free_slug(slug: str) -> str:
    """``slug``, or ``slug-2``, ``slug-3``... : the first no quiz has."""
    taken = set(Quiz.objects.filter(slug__startswith=slug).values_list("slug", flat=True))
    if slug not in taken:
        return slug
    number = 2
    while f"{slug}-{number}" in taken:
        number += 1
    return f"{slug}-{number}"[: Quiz._meta.get_field("slug").max_length]


def quiz_create_from_file(
    *, parsed: ParsedQuiz, course: Course, slug: str, title: str | None = None, translations=None
) -> Quiz:
    """Create an unpublished quiz from an English file (titled ``title`` if the file names none),
    with the other languages of a file that holds several (``translations``, by language, of
    the same shape) written into the same rows, as ``quiz_translation_import`` writes them.

    A file in the seed format says nothing of correct choices or explanations, so the quiz
    stays unpublished until an editor adds them (validate_content lists what is missing);
    a question file that carries them (Moodle XML, GIFT, Aiken's key) sets them.
    """
    translations = translations or {}
    title = parsed.title or title or ""
    for quiz_file in (parsed, *translations.values()):
        _check_fits(quiz_file)
    if not title:
        raise ContentImportError(_("The file names no quiz title."))
    slug_length = Quiz._meta.get_field("slug").max_length
    if not slug or len(slug) > slug_length:
        raise ContentImportError(
            _("The quiz title gives no usable slug (at most %(length)d characters); pass one with --quiz.")
            % {"length": slug_length}
        )
    if Quiz.objects.filter(slug=slug).exists():
        raise ContentImportError(
            _("A quiz with slug %(slug)s exists already; pass --quiz %(slug)s to import into it.") % {"slug": slug}
        )
    next_position = (course.quizzes.aggregate(last=Max("position"))["last"] or 0) + 1
    with transaction.atomic():
        quiz = Quiz(course=course, slug=slug, position=next_position, title_en=title, is_published=False)
        quiz.description_en = parsed.description or ""
        for language, quiz_file in translations.items():
            for field in translated_fields(Quiz):
                if getattr(quiz_file, field) is not None:
                    _write(quiz, field, language, getattr(quiz_file, field))
        quiz.save()
        for index, parsed_question in enumerate(parsed.questions):
            true_false = parsed_question.kind == QuestionKind.TRUE_FALSE
            question = Question(
                quiz=quiz,
                position=index + 1,  # skipped questions leave no gap
                text_en=parsed_question.text,
                explanation_en=parsed_question.explanation or "",
                kind=parsed_question.kind or QuestionKind.SINGLE,
                keep_choice_order=true_false or bool(parsed_question.keep_choice_order),
            )
            choices = [
                Choice(
                    question=question,
                    position=position,
                    text_en=choice.text,
                    is_correct=position == parsed_question.correct,
                )
                for position, choice in enumerate(parsed_question.choices, start=1)
            ]
            for language, quiz_file in translations.items():
                translated = quiz_file.questions[index]
                question_translated = _write(question, "text", language, translated.text)
                if translated.explanation is not None:
                    _write(question, "explanation", language, translated.explanation)
                if not true_false:  # a true or false question's words are the site's
                    for choice, parsed_choice in zip(choices, translated.choices, strict=True):
                        _write(choice, "text", language, parsed_choice.text, keep_identical=question_translated)
            question.save()
            Choice.objects.bulk_create(choices)
            true_false_choices_translate(question)
        quiz_content_invalidate(quiz.pk)  # bulk_create sends no signals
    return quiz


def quiz_translation_import(*, quiz: Quiz, parsed: ParsedQuiz, language: str) -> Quiz:
    """Write one language's texts of an existing quiz from a file of the same shape, and the
    key, explanations and choice order where the file carries them.

    For a translation, text identical to the English stays untranslated (an
    empty column), so a later fix to the English reaches that language too;
    within a translated question, a choice identical to the English (a code
    name such as ``torch.utils.checkpoint``) is the same by nature and is kept
    as that language's text. A file whose key differs from the quiz's for a
    question students have answered is refused: the admin's regrade changes it.
    """
    questions = list(quiz.questions.order_by("position").prefetch_related("choices"))
    _check_fits(parsed)
    _check_same_shape(questions, parsed)
    with transaction.atomic():
        for field in translated_fields(Quiz):
            value = getattr(parsed, field)
            if value is not None and (value or language != SOURCE_LANGUAGE or field == "description"):
                _write(quiz, field, language, value)
        quiz.save()
        question_fields = [*(column(name, language) for name in translated_fields(Question)), "kind"]
        question_fields += ["keep_choice_order", SOURCES_FIELD]
        choice_fields = [column("text", language), SOURCES_FIELD, "is_correct"]
        changed_questions, changed_choices = [], []
        for question, parsed_question in zip(questions, parsed.questions, strict=True):
            before = _values(question, question_fields)
            question_translated = _write(question, "text", language, parsed_question.text)
            if parsed_question.explanation is not None:
                _write(question, "explanation", language, parsed_question.explanation)
            if parsed_question.keep_choice_order is not None:
                question.keep_choice_order = parsed_question.keep_choice_order
            true_false = parsed_question.kind == QuestionKind.TRUE_FALSE
            if parsed_question.kind is not None and language == SOURCE_LANGUAGE:
                question.kind = parsed_question.kind
            if question.kind == QuestionKind.TRUE_FALSE:
                question.keep_choice_order = True
            if _values(question, question_fields) != before:
                changed_questions.append(question)
            choices = sorted(question.choices.all(), key=lambda choice: choice.position)
            choices_before = [_values(choice, choice_fields) for choice in choices]
            _key_write(question, choices, parsed_question)
            for choice, parsed_choice in zip(choices, parsed_question.choices, strict=True):
                # A file's true or false says so in English words (GIFT's {T}, Moodle's "true"):
                # not a translation, so a language's own words are kept.
                if not (true_false and language != SOURCE_LANGUAGE):
                    _write(choice, "text", language, parsed_choice.text, keep_identical=question_translated)
            changed_choices += [
                choice
                for choice, before in zip(choices, choices_before, strict=True)
                if _values(choice, choice_fields) != before
            ]
        # Only the rows that change are written (an unchanged file writes nothing).
        for question in changed_questions:
            question.save(update_fields=question_fields)
        for choice in changed_choices:
            choice.save(update_fields=choice_fields)
        for question in questions:
            true_false_choices_translate(question)
    return quiz


def translations_confirm(*, question: Question, languages) -> int:
    """Mark the ``languages`` translations of ``question`` and its choices reviewed: checked
    against the current English by a reviewer (stale and machine-made ones included).

    Returns how many translations changed state.
    """
    columns = {column(name, language) for name in translated_fields(Question) for language in languages}
    confirmed = 0
    with transaction.atomic():
        question = Question.objects.select_for_update().get(pk=question.pk)
        stamped = translations_stamp(question, columns=columns, state=Status.REVIEWED)
        if stamped:
            question.save(update_fields=["translation_sources"])
            confirmed += len(stamped)
        for choice in question.choices.filter(is_archived=False).order_by("position"):
            choice_columns = {column("text", language) for language in languages}
            stamped = translations_stamp(choice, columns=choice_columns, state=Status.REVIEWED)
            if stamped:
                choice.save(update_fields=["translation_sources"])
                confirmed += len(stamped)
    return confirmed


def _import_course(course_slug: str | None) -> Course:
    if course_slug:
        course = Course.objects.filter(slug=course_slug).first()
        if course is None:
            raise ContentImportError(_("There is no course %(course)s.") % {"course": course_slug})
        return course
    courses = list(Course.objects.all()[:2])
    if len(courses) != 1:
        raise ContentImportError(
            _("There is no course yet; create one first.")
            if not courses
            else _("There are several courses; name one with --course.")
        )
    return courses[0]


def _key_write(question: Question, choices: list[Choice], parsed_question) -> None:
    """Mark the file's right choice (if it names one) on ``choices`` (the caller saves them)."""
    if parsed_question.correct is None:
        return
    key = [choice.position for choice in choices if choice.is_correct]
    wanted = [choices[parsed_question.correct - 1].position]
    if key == wanted:
        return
    if is_answered(question):
        raise question_error(
            parsed_question.line,
            parsed_question.number,
            parsed_question.name,
            _(
                "the file's right answer differs from the quiz's and students have answered this question: "
                "change the key in the admin, which regrades their answers"
            ),
        )
    for choice in choices:
        choice.is_correct = choice.position == wanted[0]


def _check_fits(parsed: ParsedQuiz) -> None:
    """Refuse text longer than its column, naming the line, before anything is written."""
    title_length = Quiz._meta.get_field("title").max_length
    choice_length = Choice._meta.get_field("text").max_length
    too_long = _("this text has %(found)d characters; at most %(length)d fit")
    if parsed.title and len(parsed.title) > title_length:
        raise SeedFormatError(1, too_long % {"found": len(parsed.title), "length": title_length})
    for parsed_choice in (choice for question in parsed.questions for choice in question.choices):
        if len(parsed_choice.text) > choice_length:
            raise SeedFormatError(
                parsed_choice.line, too_long % {"found": len(parsed_choice.text), "length": choice_length}
            )


def _check_same_shape(questions: list[Question], parsed: ParsedQuiz) -> None:
    if len(parsed.questions) > len(questions):
        extra = parsed.questions[len(questions)]
        raise SeedFormatError(
            extra.line,
            _("the quiz has %(count)d questions; this file has more") % {"count": len(questions)},
        )
    if len(parsed.questions) < len(questions):
        last = parsed.questions[-1]
        raise SeedFormatError(
            last.choices[-1].line,
            _("the quiz has %(count)d questions; this file has only %(found)d")
            % {"count": len(questions), "found": len(parsed.questions)},
        )
    for question, parsed_question in zip(questions, parsed.questions, strict=True):
        expected = len(question.choices.all())
        if len(parsed_question.choices) != expected:
            raise SeedFormatError(
                parsed_question.line,
                _("question %(number)d has %(expected)d choices in the quiz but %(found)d in this file")
                % {"number": parsed_question.number, "expected": expected, "found": len(parsed_question.choices)},
            )


def _values(obj, fields: list[str]) -> list:
    return [getattr(obj, field) for field in fields]


def _write(obj, field: str, language: str, value: str, *, keep_identical: bool = False) -> bool:
    """Set one language's column; return whether it now holds a translation."""
    if language == SOURCE_LANGUAGE:
        setattr(obj, column(field, language), value)
        return True
    translated = bool(value) and (value != text_in(obj, field, SOURCE_LANGUAGE) or keep_identical)
    setattr(obj, column(field, language), value if translated else None)
    translations_stamp(obj, columns=[column(field, language)])
    return translated
