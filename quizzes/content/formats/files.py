"""The question file formats by name, as the commands and the admin offer them."""

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from quizzes.content import seedformat
from quizzes.content.exports import quiz_export_text
from quizzes.content.formats import aiken, gift, moodle_xml
from quizzes.content.seedformat import ParsedQuiz
from quizzes.content.services import quiz_import_languages

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


def question_file_parse(*, file_format: str, data: bytes, language: str) -> dict[str, ParsedQuiz]:
    """The file's quiz in each language it holds; a one-language file is in ``language``.

    Raises SeedFormatError (QuestionFileError) naming the line.
    """
    if file_format == MOODLE_XML:
        return moodle_xml.parse(data)
    parse = {SEED: seedformat.parse, GIFT: gift.parse, AIKEN: aiken.parse}[file_format]
    return {language: parse(data)}


def question_file_import(
    *,
    file_format: str,
    data: bytes,
    language: str,
    quiz_slug: str | None = None,
    course_slug: str | None = None,
    default_title: str = "",
):
    """Parse a file and import it (``services.quiz_import_languages``): returns the quiz, whether
    it was created, the languages written and ``keyed``. All or nothing; raises SeedFormatError naming the
    line, or ContentImportError. ``keyed``: the file carried the answer key."""
    parsed = question_file_parse(file_format=file_format, data=data, language=language)
    quiz, created = quiz_import_languages(
        parsed=parsed, quiz_slug=quiz_slug, course_slug=course_slug, default_title=default_title
    )
    keyed = all(question.correct is not None for question in next(iter(parsed.values())).questions)
    return quiz, created, list(parsed), keyed


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
