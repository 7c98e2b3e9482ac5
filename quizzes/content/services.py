"""Writes of content: quizzes imported from the seed text format, and
translations confirmed by a reviewer.

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

from quizzes.content.cache import quiz_content_invalidate
from quizzes.content.languages import SOURCE_LANGUAGE, column, text_in
from quizzes.content.seedformat import ParsedQuiz, SeedFormatError
from quizzes.content.translation_status import translations_stamp
from quizzes.models import Choice, Course, Question, Quiz


class ContentImportError(Exception):
    """An import that was refused; nothing was written."""


def quiz_import(
    *, parsed: ParsedQuiz, language: str, quiz_slug: str | None = None, course_slug: str | None = None
) -> tuple[Quiz, bool]:
    """Import a quiz file: a new quiz (in English), or a translation of an existing one.

    Returns the quiz and whether it was created. All or nothing: on any error
    a ContentImportError (or SeedFormatError naming the line) is raised and
    nothing is written.
    """
    if language not in dict(settings.LANGUAGES):
        raise ContentImportError(_("Unknown language %(language)r.") % {"language": language})
    existing = Quiz.objects.filter(slug=quiz_slug).select_related("course").first() if quiz_slug else None
    with transaction.atomic():
        if existing is not None:
            if course_slug and existing.course.slug != course_slug:
                raise ContentImportError(
                    _("Quiz %(quiz)s belongs to course %(course)s, not %(other)s.")
                    % {"quiz": existing.slug, "course": existing.course.slug, "other": course_slug}
                )
            return quiz_translation_import(quiz=existing, parsed=parsed, language=language), False
        if language != SOURCE_LANGUAGE:
            raise ContentImportError(
                _(
                    "A new quiz must be imported in English, its source language; "
                    "import translations into it afterwards with --quiz."
                )
            )
        course = _import_course(course_slug)
        return quiz_create_from_file(parsed=parsed, course=course, slug=quiz_slug or slugify(parsed.title)), True


def quiz_create_from_file(*, parsed: ParsedQuiz, course: Course, slug: str) -> Quiz:
    """Create an unpublished quiz from an English file.

    The file says nothing of correct choices or explanations, so the quiz stays
    unpublished until an editor adds them (validate_content lists what is missing).
    """
    _check_fits(parsed)
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
        quiz = Quiz.objects.create(
            course=course,
            slug=slug,
            position=next_position,
            title_en=parsed.title,
            description_en=parsed.description,
            is_published=False,
        )
        for parsed_question in parsed.questions:
            question = Question.objects.create(quiz=quiz, position=parsed_question.number, text_en=parsed_question.text)
            Choice.objects.bulk_create(
                Choice(question=question, position=position, text_en=parsed_choice.text, is_correct=False)
                for position, parsed_choice in enumerate(parsed_question.choices, start=1)
            )
        quiz_content_invalidate(quiz.pk)  # bulk_create sends no signals
    return quiz


def quiz_translation_import(*, quiz: Quiz, parsed: ParsedQuiz, language: str) -> Quiz:
    """Write one language's texts of an existing quiz from a file of the same shape.

    For a translation, text identical to the English stays untranslated (an
    empty column), so a later fix to the English reaches that language too;
    within a translated question, a choice identical to the English (a code
    name such as ``torch.utils.checkpoint``) is the same by nature and is kept
    as that language's text.
    """
    questions = list(quiz.questions.order_by("position").prefetch_related("choices"))
    _check_fits(parsed)
    _check_same_shape(questions, parsed)
    with transaction.atomic():
        _write(quiz, "title", language, parsed.title)
        _write(quiz, "description", language, parsed.description)
        quiz.save()
        for question, parsed_question in zip(questions, parsed.questions, strict=True):
            question_translated = _write(question, "text", language, parsed_question.text)
            question.save()
            choices = sorted(question.choices.all(), key=lambda choice: choice.position)
            for choice, parsed_choice in zip(choices, parsed_question.choices, strict=True):
                _write(choice, "text", language, parsed_choice.text, keep_identical=question_translated)
                choice.save(update_fields=[column("text", language), "translation_sources"])
    return quiz


def translations_confirm(*, question: Question, languages) -> int:
    """Mark the ``languages`` translations of ``question`` and its choices as checked
    against the current English (a reviewer found them still right).

    Returns how many translations became up to date.
    """
    columns = {column(name, language) for name in ("text", "explanation") for language in languages}
    confirmed = 0
    with transaction.atomic():
        question = Question.objects.select_for_update().get(pk=question.pk)
        stamped = translations_stamp(question, columns=columns)
        if stamped:
            question.save(update_fields=["translation_sources"])
            confirmed += len(stamped)
        for choice in question.choices.filter(is_archived=False).order_by("position"):
            stamped = translations_stamp(choice, columns={column("text", language) for language in languages})
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


def _check_fits(parsed: ParsedQuiz) -> None:
    """Refuse text longer than its column, naming the line, before anything is written."""
    title_length = Quiz._meta.get_field("title").max_length
    choice_length = Choice._meta.get_field("text").max_length
    too_long = _("this text has %(found)d characters; at most %(length)d fit")
    if len(parsed.title) > title_length:
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


def _write(obj, field: str, language: str, value: str, *, keep_identical: bool = False) -> bool:
    """Set one language's column; return whether it now holds a translation."""
    if language == SOURCE_LANGUAGE:
        setattr(obj, column(field, language), value)
        return True
    translated = bool(value) and (value != text_in(obj, field, SOURCE_LANGUAGE) or keep_identical)
    setattr(obj, column(field, language), value if translated else None)
    translations_stamp(obj, columns=[column(field, language)])
    return translated
