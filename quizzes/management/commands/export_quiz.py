from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from quizzes.content.exports import quiz_export_text
from quizzes.content.selectors import quiz_content_get
from quizzes.management.commands._options import add_language_argument
from quizzes.models import Quiz


class Command(BaseCommand):
    help = "Print a quiz in the seed text format, as a learner reading LANGUAGE sees it."

    def add_arguments(self, parser):
        parser.add_argument("slug", help="The quiz's slug.")
        add_language_argument(parser)

    def handle(self, *args, slug, language, **options):
        try:
            quiz = quiz_content_get(slug=slug)
        except Quiz.DoesNotExist:
            raise CommandError(_("There is no quiz %(slug)s.") % {"slug": slug}) from None
        try:
            text = quiz_export_text(quiz=quiz, language=language)
        except ValueError as error:
            raise CommandError(str(error)) from None
        # The format has no newline after its last line.
        self.stdout.write(text, ending="")
