from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from quizzes.content.formats.files import quiz_export_file
from quizzes.content.selectors import quiz_content_get
from quizzes.management.commands._options import add_format_arguments, format_language
from quizzes.models import Quiz


class Command(BaseCommand):
    help = (
        "Print a quiz: in the seed text format as a learner reading LANGUAGE sees it (the default), "
        "as GIFT or Aiken in one language, or as Moodle XML with every language."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", help="The quiz's slug.")
        add_format_arguments(parser)
        parser.add_argument("-o", "--output", help="Write the file there instead of printing it.")

    def handle(self, *args, slug, file_format, language, output=None, **options):
        language = format_language(file_format, language)
        try:
            quiz = quiz_content_get(slug=slug)
        except Quiz.DoesNotExist:
            raise CommandError(_("There is no quiz %(slug)s.") % {"slug": slug}) from None
        try:
            text = quiz_export_file(quiz=quiz, file_format=file_format, language=language)
        except ValueError as error:
            raise CommandError(str(error)) from None
        if output:
            try:
                Path(output).write_bytes(text.encode("utf-8"))
            except OSError as error:
                message = _("Cannot write %(file)s: %(error)s") % {"file": output, "error": error.strerror}
                raise CommandError(message) from None
            return
        # The seed format has no newline after its last line.
        self.stdout.write(text, ending="")
