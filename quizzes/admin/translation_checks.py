"""What the translation checks find, on a question's (or quiz's) admin page and after its save.

Warnings only, never a refusal: a translator may be right where a check is not.
"""

from django.conf import settings
from django.contrib import admin, messages
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _

from quizzes.content.problems import MESSAGES
from quizzes.content.translation_checks import object_check_problems
from quizzes.models import Question


def _owners(obj) -> list[tuple[object, str]]:
    """The rows whose translations the page edits, each with the label of its choice ('' for the row itself)."""
    owners = [(obj, "")]
    if isinstance(obj, Question) and obj.pk is not None:
        owners += [
            (choice, str(_("choice %(position)s") % {"position": choice.position}))
            for choice in obj.choices.filter(is_archived=False).order_by("position")
        ]
    return owners


def translation_check_lines(obj) -> list[str]:
    """One line per problem the checks find in the translations of ``obj`` (and a question's choices),
    naming the field and the language."""
    return [
        str(
            MESSAGES["translation_check"]
            % {
                "language": str(dict(settings.LANGUAGES)[language]),
                "field": label or str(owner._meta.get_field(name).verbose_name),
                "problem": problem.message,
            }
        )
        for owner, label in _owners(obj)
        for name, language, problem in object_check_problems(owner)
    ]


class TranslationChecksMixin:
    """A read-only ``translation_checks`` block, and a warning per problem after a save."""

    @admin.display(description=_("translation checks"))
    def translation_checks(self, obj):
        if obj.pk is None:
            return "-"
        lines = translation_check_lines(obj)
        if not lines:
            return _("No problem found.")
        return format_html(
            '<ul class="translation-checks">{}</ul>', format_html_join("", "<li>{}</li>", ((line,) for line in lines))
        )

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        for line in translation_check_lines(form.instance):
            self.message_user(request, line, messages.WARNING)
