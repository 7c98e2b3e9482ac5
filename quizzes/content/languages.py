"""Reading and writing one language's column of a translated field.

modeltranslation's attribute access (``question.text``) follows the active
language and falls back silently; these helpers name the language
explicitly, and say which language a text really is in, so that pages can
mark English shown in place of a missing translation, and whether it is a
machine translation, so that pages can mark that too.

``shown_column`` is the one definition of what a learner reading a language
is shown of a field: its translation, except a machine translation where the
language's setting says its students read the English
(``quizzes.content.machine_translations``). A row read now (a Course, Quiz,
Question or Choice) is judged now; a snapshot of what a version showed
(``quizzes.content.cache``: it carries ``machine_columns``) was judged when
its version was made, and is shown as it was.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from modeltranslation.utils import build_localized_fieldname

SOURCE_LANGUAGE = settings.MODELTRANSLATION_DEFAULT_LANGUAGE
LANGUAGES = tuple(code for code, _name in settings.LANGUAGES)
TRANSLATION_LANGUAGES = tuple(code for code in LANGUAGES if code != SOURCE_LANGUAGE)


@dataclass(frozen=True)
class LocalizedText:
    text: str
    language: str
    requested: str
    # A machine translation (shown because its language's setting says so): pages mark it.
    machine: bool = False

    @property
    def is_fallback(self) -> bool:
        return self.language != self.requested

    def __str__(self):
        return self.text


def column(field: str, language: str) -> str:
    """The attribute holding ``field`` in ``language`` (Indonesian is ``_ind``)."""
    return build_localized_fieldname(field, language)


def text_in(obj, field: str, language: str) -> str:
    """The stored translation, '' when there is none (no fallback)."""
    return getattr(obj, column(field, language)) or ""


def shown_column(obj, field: str, language: str) -> tuple[str, bool]:
    """``field``'s ``language`` column as learners are shown it, '' when they read the English
    instead, and whether it is a machine translation."""
    name = column(field, language)
    text = getattr(obj, name) or ""
    decided = getattr(obj, "machine_columns", None)
    if decided is not None:  # a snapshot: judged when its version was made
        return text, name in decided
    if not text or language == SOURCE_LANGUAGE:
        return text, False
    # Imported here: that module reads the translation records and the settings (models).
    from quizzes.content.machine_translations import machine_made, machine_translations_shown

    if not machine_made(obj, name):
        return text, False
    if machine_translations_shown(language):
        return text, True
    return "", False


def shown_columns(obj, fields) -> tuple[dict[str, str], frozenset[str]]:
    """Every column of ``fields`` (``text_en``, ``text_ur``...) as learners are shown them, and
    the machine translations among them: what a version or a snapshot holds."""
    texts, machine = {}, set()
    for field in fields:
        for language in LANGUAGES:
            text, is_machine = shown_column(obj, field, language)
            texts[column(field, language)] = text
            if is_machine:
                machine.add(column(field, language))
    return texts, frozenset(machine)


def localized(obj, field: str, language: str) -> LocalizedText:
    """The text a learner reading ``language`` sees, the language it is in, and whether it is a
    machine translation."""
    text, machine = shown_column(obj, field, language)
    if text:
        return LocalizedText(text, language, language, machine)
    return LocalizedText(text_in(obj, field, SOURCE_LANGUAGE), SOURCE_LANGUAGE, language)


def text_reader(field: str, language: str) -> Callable[[object], str]:
    """``lambda obj: localized(obj, field, language).text``."""
    return lambda obj: localized(obj, field, language).text


def language_reader(field: str, language: str) -> Callable[[object], str]:
    """``lambda obj: localized(obj, field, language).language``."""
    return lambda obj: localized(obj, field, language).language


def machine_reader(field: str, language: str) -> Callable[[object], bool]:
    """``lambda obj: localized(obj, field, language).machine``."""
    return lambda obj: localized(obj, field, language).machine
