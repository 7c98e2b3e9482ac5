"""The languages and one language's column of a translated field: names only, nothing read.

modeltranslation's attribute access (``question.text``) follows the active
language and falls back silently; these helpers name the language
explicitly. What a learner is shown of a field, and in which language, is
``quizzes.content.shown``. This module imports nothing of the app, so that any
module may use it.
"""

from dataclasses import dataclass
from functools import cache

from django.conf import settings
from modeltranslation.translator import translator
from modeltranslation.utils import build_localized_fieldname

from quizzes.content.bidi import isolated

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

    def __html__(self):
        """As HTML (templates call this): escaped, with the Latin runs of right-to-left text
        isolated (``quizzes.content.bidi``)."""
        return isolated(self.text, self.language)


@cache
def translated_fields(model) -> tuple[str, ...]:
    """``model``'s translated fields (quizzes/translation.py registers them with modeltranslation),
    in the model's order. Read from the registry when first asked: it is filled once the apps
    are ready."""
    registered = translator.get_options_for_model(model).fields
    return tuple(field.name for field in model._meta.concrete_fields if field.name in registered)


def translated_columns(model, field: str) -> list[str]:
    """The columns of ``model``'s translated ``field``, one per language in ``LANGUAGES`` order
    (``title_en``...)."""
    if field not in translated_fields(model):
        raise KeyError(f"{model.__name__}.{field} is not translated")
    return [column(field, language) for language in LANGUAGES]


def column(field: str, language: str) -> str:
    """The attribute holding ``field`` in ``language`` (Indonesian is ``_ind``)."""
    return build_localized_fieldname(field, language)


def text_in(obj, field: str, language: str) -> str:
    """The stored translation, '' when there is none (no fallback)."""
    return getattr(obj, column(field, language)) or ""
