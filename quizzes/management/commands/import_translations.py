from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from quizzes.content.translation_files.imports import TranslationFileError, translations_import
from quizzes.management.commands._options import add_language_argument


class Command(BaseCommand):
    help = (
        "Import an XLIFF or PO translation file (as export_translations writes it) in LANGUAGE: "
        "all or nothing; a unit whose English changed since the export is refused unless --skip-stale."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="Path of the XLIFF or PO file.")
        add_language_argument(parser)
        parser.add_argument("--skip-stale", action="store_true", help="Skip the stale units, import the rest.")
        parser.add_argument("--reviewed", action="store_true", help="A reviewer's file: its translations are reviewed.")

    def handle(self, *args, file, language, skip_stale, reviewed, **options):
        try:
            data = Path(file).read_bytes()
        except OSError as error:
            raise CommandError(_("Cannot read %(file)s: %(error)s") % {"file": file, "error": error.strerror}) from None
        try:
            result = translations_import(None, data, language=language, skip_stale=skip_stale, reviewed=reviewed)
        except TranslationFileError as error:
            raise CommandError(f"{file}: {error}") from None
        if result.refused:
            reasons = "\n".join(problem.message for problem in result.refused)
            raise CommandError(_("%(file)s: nothing imported.\n%(reasons)s") % {"file": file, "reasons": reasons})
        for problem in result.skipped:
            self.stdout.write(self.style.WARNING(_("Skipped: %(reason)s") % {"reason": problem.message}))
        for problem in result.warnings:
            self.stdout.write(self.style.WARNING(_("Check: %(reason)s") % {"reason": problem.message}))
        for change in result.changed:
            self.stdout.write(_("Changed: %(where)s") % {"where": change.where})
        message = _("%(changed)s units changed, %(unchanged)s unchanged in quiz %(slug)s.")
        counts = {"changed": len(result.changed), "unchanged": result.unchanged, "slug": result.quiz.slug}
        self.stdout.write(self.style.SUCCESS(message % counts))
