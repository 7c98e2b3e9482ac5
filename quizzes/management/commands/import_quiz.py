from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from quizzes.content.formats.common import UnsupportedQuestion, skipped_line
from quizzes.content.formats.files import question_file_import
from quizzes.content.seedformat import SeedFormatError
from quizzes.content.services import ContentImportError, SameTitleError
from quizzes.management.commands._options import add_format_arguments, format_language


class Command(BaseCommand):
    help = (
        "Import a quiz file (seed text format, Moodle XML, GIFT or Aiken): a new quiz (English), "
        "or with --quiz SLUG of an existing quiz, its texts in LANGUAGE (Moodle XML: every "
        "language it holds), and the key and explanations where the file has them. All or nothing, "
        "unless --skip-unsupported: then every question of a kind this site has is imported and each "
        "other one listed (exit status 1 when none could be)."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="Path of the quiz file (UTF-8).")
        add_format_arguments(parser)
        parser.add_argument("--quiz", dest="quiz_slug", help="Slug of the quiz to write or to create.")
        parser.add_argument("--course", dest="course_slug", help="Course of a new quiz (default: the only course).")
        parser.add_argument(
            "--skip-unsupported",
            action="store_true",
            help="Import the questions of kinds this site has and list the others (essays, matching...).",
        )
        parser.add_argument(
            "--same-title",
            action="store_true",
            help="Make a new quiz even when the course has one of the same title (else refused: use --quiz).",
        )

    def handle(
        self, *args, file, file_format, language, quiz_slug, course_slug, skip_unsupported, same_title, **options
    ):
        language = format_language(file_format, language)
        try:
            data = Path(file).read_bytes()
        except OSError as error:
            raise CommandError(_("Cannot read %(file)s: %(error)s") % {"file": file, "error": error.strerror}) from None
        try:
            result = question_file_import(
                file_format=file_format,
                data=data,
                language=language,
                quiz_slug=quiz_slug,
                course_slug=course_slug,
                default_title=Path(file).stem,
                skip_unsupported=skip_unsupported,
                same_title=same_title,
            )
        except SeedFormatError as error:
            hint = ""
            if isinstance(error, UnsupportedQuestion):
                hint = " " + _("(--skip-unsupported imports the others)")
            raise CommandError(f"{file}:{error.line}: {error.message}{hint}") from None
        except SameTitleError as error:
            advice = _("Import into it with --quiz %(slug)s, or pass --same-title to make another quiz of that title.")
            raise CommandError(f"{file}: {error} {advice % {'slug': error.namesake.slug}}") from None
        except ContentImportError as error:
            raise CommandError(f"{file}: {error}") from None
        for skipped in result.skipped:
            self.stderr.write(f"{file}:{skipped.line}: {skipped_line(skipped)}")
        if result.created and result.keyed:
            message = _("Created quiz %(slug)s (unpublished): check it (validate_content), then publish it.")
        elif result.created:
            message = _(
                "Created quiz %(slug)s (unpublished): mark the correct choices and write explanations, then publish it."
            )
        else:
            message = _("Imported the %(language)s texts of quiz %(slug)s.")
        names = ", ".join(str(dict(settings.LANGUAGES)[code]) for code in result.languages)
        self.stdout.write(self.style.SUCCESS(message % {"slug": result.quiz.slug, "language": names}))
        if result.skipped:
            count = len(result.skipped)
            imported = ngettext(
                "%(count)d question skipped (listed above).", "%(count)d questions skipped (listed above).", count
            )
            self.stdout.write(self.style.WARNING(imported % {"count": count}))
