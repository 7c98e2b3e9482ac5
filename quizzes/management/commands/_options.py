from django.conf import settings
from django.core.management.base import CommandError
from django.utils.translation import gettext as _

from quizzes.content.formats.files import FORMATS, MULTILINGUAL, SEED


def add_language_argument(parser, *, required: bool = True) -> None:
    parser.add_argument(
        "--language",
        required=required,
        choices=[code for code, _name in settings.LANGUAGES],
        help="Language code: " + ", ".join(code for code, _name in settings.LANGUAGES),
    )


def add_format_arguments(parser) -> None:
    """--format, and --language: required by the seed format, English by default for GIFT and
    Aiken, and not taken by Moodle XML (every language at once)."""
    parser.add_argument(
        "--format",
        dest="file_format",
        choices=FORMATS,
        default=SEED,
        help="File format (default: seed, the seed text format).",
    )
    add_language_argument(parser, required=False)


def format_language(file_format: str, language: str | None) -> str:
    """The language a file is in (refusing what the format does not take)."""
    # call_command(language=...) skips argparse's choices for an option that is not required.
    if language and language not in dict(settings.LANGUAGES):
        raise CommandError(_("Unknown language %(language)r.") % {"language": language})
    if file_format in MULTILINGUAL:
        if language:
            message = _("A %(format)s file holds every language: leave out --language.")
            raise CommandError(message % {"format": file_format})
        return settings.LANGUAGE_CODE
    if language:
        return language
    if file_format == SEED:
        raise CommandError(_("The seed format holds one language: name it with --language."))
    return "en"
