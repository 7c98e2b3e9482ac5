"""Machine translations: whether the students of a language see them, marked, or the English.

A translation imported as machine-made (its record's state is ``machine``,
``quizzes.content.translation_status``) is shown to the students of its
language only where the language's setting
(``LanguageSetting.machine_translations``) says ``show``; then every page
and the API mark it as a machine translation. Otherwise they read the
English, marked as English as where a text is not translated. Until someone
chooses for a language, its machine translations are not shown.

The rule itself is ``quizzes.content.shown.shown_column``. A question's
version holds what it showed (``quizzes.content.versions``): a machine
translation hidden from its language is not in it, and ``machine_texts``
lists those it showed. So an attempt goes on showing what it showed, whatever
the setting later, and changing a setting (``language_setting_update``) makes
new versions of the questions with machine translations in that language and
new content versions (``quizzes.content.cache``) for their quizzes.
"""

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from quizzes.content.cache import quiz_content_invalidate
from quizzes.content.languages import TRANSLATION_LANGUAGES
from quizzes.content.shown import settings_forget
from quizzes.content.translation_status import Status, quiz_with_q, recorded_q
from quizzes.models import LanguageSetting, MachineTranslations, Quiz


def language_settings() -> list[LanguageSetting]:
    """Every translation language's setting, in the order of ``settings.LANGUAGES``; a language
    without a row yet has the default."""
    rows = {setting.language: setting for setting in LanguageSetting.objects.all()}
    return [rows.get(language) or LanguageSetting(language=language) for language in TRANSLATION_LANGUAGES]


def language_setting_update(*, language: str, machine_translations: str) -> LanguageSetting:
    """Choose what ``language``'s students see where a text is a machine translation.

    In one transaction: the setting, a new version of each question whose texts it changes
    (those with a machine translation in ``language``) and of their quizzes' content, so that
    the next page shows it and every attempt started before goes on showing what it showed.
    Raises ValidationError, writing nothing, for an unknown language or choice.
    """
    if language not in TRANSLATION_LANGUAGES:
        raise ValidationError(
            _("%(language)r is not a language the content is translated into.") % {"language": language},
            code="language",
        )
    if machine_translations not in MachineTranslations.values:
        raise ValidationError(
            _("%(value)r is not a choice for machine translations.") % {"value": machine_translations},
            code="machine_translations",
        )
    with transaction.atomic():
        # The row locked: two changes of one language run one after the other.
        setting, _created = LanguageSetting.objects.select_for_update().get_or_create(language=language)
        if setting.machine_translations == machine_translations:
            return setting
        setting.machine_translations = machine_translations
        setting.save(update_fields=["machine_translations"])
        settings_forget()
        transaction.on_commit(settings_forget)
        affected = Quiz.objects.filter(quiz_with_q(lambda name: recorded_q(name, language, Status.MACHINE)))
        for quiz_id in affected.order_by("pk").values_list("pk", flat=True):
            quiz_content_invalidate(quiz_id)
    return setting
