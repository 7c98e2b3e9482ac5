"""The question file formats by name, as the commands and the admin offer them."""

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from quizzes.content import seedformat
from quizzes.content.exports import quiz_export_text
from quizzes.content.formats import aiken, gift, moodle_xml
from quizzes.content.formats.common import QuestionFileError, SkippedQuestion
from quizzes.content.seedformat import ParsedQuiz
from quizzes.content.services import quiz_import_languages
from quizzes.models import Quiz

SEED = "seed"
MOODLE_XML = "moodle-xml"
GIFT = "gift"
AIKEN = "aiken"
FORMAT_CHOICES = (
    (SEED, gettext_lazy("Seed text format (one language)")),
    (MOODLE_XML, gettext_lazy("Moodle XML (every language)")),
    (GIFT, gettext_lazy("GIFT (one language)")),
    (AIKEN, gettext_lazy("Aiken (one language)")),
)
FORMATS = tuple(name for name, _label in FORMAT_CHOICES)
# Formats holding every language at once: no --language.
MULTILINGUAL = (MOODLE_XML,)
EXTENSIONS = {SEED: "txt", MOODLE_XML: "xml", GIFT: "gift.txt", AIKEN: "aiken.txt"}
CONTENT_TYPES = {MOODLE_XML: "application/xml; charset=utf-8"}


# What one import takes, in the admin and from the command line (docs/teachers.md): measured on
# PostgreSQL, 1,000 questions import in under 7 s; a bank beyond either limit is split.
MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_QUESTIONS = 1000


def question_file_parse(
    *, file_format: str, data: bytes, language: str, skip_unsupported: bool = False
) -> dict[str, ParsedQuiz]:
    """The file's quiz in each language it holds; a one-language file is in ``language``. With
    ``skip_unsupported``, questions of kinds this site has not are left out, listed in each
    quiz's ``skipped``.

    Raises SeedFormatError (QuestionFileError) naming the line, also for a file over
    ``MAX_FILE_BYTES`` or with more than ``MAX_QUESTIONS`` questions to import.
    """
    if len(data) > MAX_FILE_BYTES:
        raise QuestionFileError(1, file_too_large())
    if file_format == MOODLE_XML:
        parsed = moodle_xml.parse(data, skip_unsupported=skip_unsupported)
    elif file_format == GIFT:
        parsed = {language: gift.parse(data, skip_unsupported=skip_unsupported)}
    else:
        parse = {SEED: seedformat.parse, AIKEN: aiken.parse}[file_format]  # one kind of question only
        parsed = {language: parse(data)}
    questions = next(iter(parsed.values())).questions
    if len(questions) > MAX_QUESTIONS:
        message = _("the file has %(count)d questions to import; at most %(limit)d are imported at once: split it")
        raise QuestionFileError(
            questions[MAX_QUESTIONS].line, message % {"count": len(questions), "limit": MAX_QUESTIONS}
        )
    return parsed


def file_too_large() -> str:
    return _("The file is larger than %(size)d MB; split it.") % {"size": MAX_FILE_BYTES // (1024 * 1024)}


@dataclass(frozen=True)
class QuestionFileImport:
    quiz: Quiz
    created: bool
    languages: list[str]
    keyed: bool  # the file carried the answer key
    skipped: list[SkippedQuestion]


def question_file_import(
    *,
    file_format: str,
    data: bytes,
    language: str,
    quiz_slug: str | None = None,
    course_slug: str | None = None,
    default_title: str = "",
    skip_unsupported: bool = False,
    same_title: bool = False,
) -> QuestionFileImport:
    """Parse a file and import it (``services.quiz_import_languages``, ``same_title`` passed
    on): the quiz, whether it was created, the languages written, whether the file carried the
    key and the questions skipped (``skip_unsupported``). All or nothing for what is imported;
    raises SeedFormatError naming the line, or ContentImportError."""
    parsed = question_file_parse(
        file_format=file_format, data=data, language=language, skip_unsupported=skip_unsupported
    )
    quiz, created = quiz_import_languages(
        parsed=parsed, quiz_slug=quiz_slug, course_slug=course_slug, default_title=default_title, same_title=same_title
    )
    first = next(iter(parsed.values()))
    keyed = all(question.correct is not None for question in first.questions)
    return QuestionFileImport(quiz, created, list(parsed), keyed, first.skipped)


def quiz_export_file(*, quiz, file_format: str, language: str) -> str:
    """The quiz (from ``selectors.quiz_content_get``) as a file; ValueError if it cannot be."""
    if file_format == MOODLE_XML:
        return moodle_xml.render(quiz)
    if file_format == GIFT:
        return gift.render(quiz, language)
    if file_format == AIKEN:
        return aiken.render(quiz, language)
    if file_format == SEED:
        return quiz_export_text(quiz=quiz, language=language)
    raise ValueError(_("Unknown format %(format)s.") % {"format": file_format})
