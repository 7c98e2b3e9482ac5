from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from quizzes.content.seedformat import SeedFormatError, parse
from quizzes.content.services import ContentImportError, quiz_import
from quizzes.management.commands._options import add_language_argument


class Command(BaseCommand):
    help = (
        "Import a quiz in the seed text format: a new quiz (English), or with --quiz SLUG "
        "of an existing quiz, its texts in LANGUAGE. All or nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="Path of the quiz file (UTF-8).")
        add_language_argument(parser)
        parser.add_argument("--quiz", dest="quiz_slug", help="Slug of the quiz to write or to create.")
        parser.add_argument("--course", dest="course_slug", help="Course of a new quiz (default: the only course).")

    def handle(self, *args, file, language, quiz_slug, course_slug, **options):
        try:
            data = Path(file).read_bytes()
        except OSError as error:
            raise CommandError(_("Cannot read %(file)s: %(error)s") % {"file": file, "error": error.strerror}) from None
        try:
            quiz, created = quiz_import(
                parsed=parse(data), language=language, quiz_slug=quiz_slug, course_slug=course_slug
            )
        except SeedFormatError as error:
            raise CommandError(f"{file}:{error.line}: {error.message}") from None
        except ContentImportError as error:
            raise CommandError(f"{file}: {error}") from None
        if created:
            message = _(
                "Created quiz %(slug)s (unpublished): mark the correct choices and write explanations, then publish it."
            )
        else:
            message = _("Imported the %(language)s texts of quiz %(slug)s.")
        language_name = dict(settings.LANGUAGES)[language]
        self.stdout.write(self.style.SUCCESS(message % {"slug": quiz.slug, "language": language_name}))
