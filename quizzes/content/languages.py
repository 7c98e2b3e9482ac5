"""Reading and writing one language's column of a translated field.

modeltranslation's attribute access (``question.text``) follows the active
language and falls back silently; these helpers name the language
explicitly, and say which language a text really is in, so that pages can
mark English shown in place of a missing translation.
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from modeltranslation.utils import build_localized_fieldname

SOURCE_LANGUAGE = settings.MODELTRANSLATION_DEFAULT_LANGUAGE
TRANSLATION_LANGUAGES = tuple(code for code, _name in settings.LANGUAGES if code != SOURCE_LANGUAGE)


@dataclass(frozen=True)
class LocalizedText:
    text: str
    language: str
    requested: str

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


def localized(obj, field: str, language: str) -> LocalizedText:
    """The text a learner reading ``language`` sees, and the language it is in."""
    text = text_in(obj, field, language)
    if text:
        return LocalizedText(text, language, language)
    return LocalizedText(text_in(obj, field, SOURCE_LANGUAGE), SOURCE_LANGUAGE, language)


def text_reader(field: str, language: str) -> Callable[[object], str]:
    """``lambda obj: localized(obj, field, language).text``, with the columns named once."""
    own, source = column(field, language), column(field, SOURCE_LANGUAGE)
    return lambda obj: getattr(obj, own) or getattr(obj, source) or ""


def language_reader(field: str, language: str) -> Callable[[object], str]:
    """``lambda obj: localized(obj, field, language).language``, with the column named once."""
    own = column(field, language)
    return lambda obj: language if getattr(obj, own) else SOURCE_LANGUAGE
