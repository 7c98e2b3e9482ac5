"""Per-language settings: what students of a language see of its machine translations."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class MachineTranslations(models.TextChoices):
    """What students reading a language see where its translation was made by a machine."""

    SHOW = "show", _("the machine translation, marked as such")
    ENGLISH = "english", _("the English text")


# Machine translations are shown only once someone has chosen to for the language: until then
# its students read the English, as they do where a text is not translated.
MACHINE_TRANSLATIONS_DEFAULT = MachineTranslations.ENGLISH


class LanguageSetting(models.Model):
    """Choices made for one of the languages content is translated into (not English).
    Written only by ``quizzes.content.machine_translations.language_setting_update``."""

    language = models.CharField(_("language"), max_length=10, unique=True, choices=settings.LANGUAGES)
    machine_translations = models.CharField(
        _("students see"),
        max_length=10,
        choices=MachineTranslations.choices,
        default=MACHINE_TRANSLATIONS_DEFAULT,
        help_text=_("Where a text of this language was made by a machine translation."),
    )

    class Meta:
        ordering = ["language"]
        verbose_name = _("language setting")
        verbose_name_plural = _("language settings")
        constraints = [
            models.CheckConstraint(
                condition=Q(
                    language__in=[
                        code for code, _name in settings.LANGUAGES if code != settings.MODELTRANSLATION_DEFAULT_LANGUAGE
                    ]
                ),
                name="languagesetting_translation_language",
            ),
            models.CheckConstraint(
                condition=Q(machine_translations__in=MachineTranslations.values),
                name="languagesetting_machine_translations_valid",
            ),
        ]

    def __str__(self):
        return str(self.get_language_display())
