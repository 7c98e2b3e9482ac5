from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from quizzes.content.formats.files import question_file_import
from quizzes.content.seedformat import SeedFormatError
from quizzes.content.services import ContentImportError
from quizzes.management.commands._options import add_format_arguments, format_language


class Command(BaseCommand):
    help = (
        "Import a quiz file (seed text format, Moodle XML, GIFT or Aiken): a new quiz (English), "
        "or with --quiz SLUG of an existing quiz, its texts in LANGUAGE (Moodle XML: every "
        "language it holds), and the key and explanations where the file has them. All or nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="Path of the quiz file (UTF-8).")
        add_format_arguments(parser)
        parser.add_argument("--quiz", dest="quiz_slug", help="Slug of the quiz to write or to create.")
        parser.add_argument("--course", dest="course_slug", help="Course of a new quiz (default: the only course).")

    def handle(self, *args, file, file_format, language, quiz_slug, course_slug, **options):
        language = format_language(file_format, language)
        try:
            data = Path(file).read_bytes()
        except OSError as error:
            raise CommandError(_("Cannot read %(file)s: %(error)s") % {"file": file, "error": error.strerror}) from None
        try:
            quiz, created, languages, keyed = question_file_import(
                file_format=file_format,
                data=data,
                language=language,
                quiz_slug=quiz_slug,
                course_slug=course_slug,
                default_title=Path(file).stem,
            )
        except SeedFormatError as error:
            raise CommandError(f"{file}:{error.line}: {error.message}") from None
        except ContentImportError as error:
            raise CommandError(f"{file}: {error}") from None
        if created and keyed:
            message = _("Created quiz %(slug)s (unpublished): check it (validate_content), then publish it.")
        elif created:
            message = _(
                "Created quiz %(slug)s (unpublished): mark the correct choices and write explanations, then publish it."
            )
        else:
            message = _("Imported the %(language)s texts of quiz %(slug)s.")
        names = ", ".join(str(dict(settings.LANGUAGES)[code]) for code in languages)
        self.stdout.write(self.style.SUCCESS(message % {"slug": quiz.slug, "language": names}))
