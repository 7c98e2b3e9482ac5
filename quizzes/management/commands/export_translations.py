from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from quizzes.content.selectors import quiz_content_get
from quizzes.content.translation_files.export import FORMATS, translations_export
from quizzes.content.translation_memory import tmx_export
from quizzes.management.commands._options import add_language_argument
from quizzes.models import Quiz


class Command(BaseCommand):
    help = (
        "Write a quiz's texts with their LANGUAGE translations and states as XLIFF 1.2 or PO, for a "
        "translator; or, as TMX, the reviewed pairs of every quiz (or of SLUG's), for a translation memory."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", nargs="?", help="The quiz's slug (optional with --format tmx).")
        add_language_argument(parser)
        parser.add_argument("--format", dest="file_format", choices=[*FORMATS, "tmx"], required=True)
        parser.add_argument("-o", "--output", help="Write the file there instead of printing it.")

    def handle(self, *args, slug, language, file_format, output=None, **options):
        if slug is None and file_format != "tmx":
            raise CommandError(_("Name the quiz: its slug is needed for XLIFF and PO."))
        quiz = None
        if slug is not None:
            try:
                quiz = quiz_content_get(slug=slug)
            except Quiz.DoesNotExist:
                raise CommandError(_("There is no quiz %(slug)s.") % {"slug": slug}) from None
        if file_format == "tmx":
            data = tmx_export(language=language, quiz=quiz)
        else:
            data = translations_export(quiz, language=language, fmt=file_format)
        if not output:
            self.stdout.write(data.decode("utf-8"), ending="")
            return
        try:
            Path(output).write_bytes(data)
        except OSError as error:
            message = _("Cannot write %(file)s: %(error)s") % {"file": output, "error": error.strerror}
            raise CommandError(message) from None
