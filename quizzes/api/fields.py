"""The API's own field types: translated texts and their language, ids, durations."""

from django.conf import settings
from django.utils.translation import get_language
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from quizzes.content.shown import language_reader, localized, machine_reader, text_reader

MAX_ID = 2**63 - 1
LANGUAGE_CODES = [code for code, _name in settings.LANGUAGES]


class TranslatedText(serializers.Field):
    """A translated field in the active language, with English fallback."""

    def __init__(self, field: str, *, of: str | None = None, **kwargs):
        self.translated_field = field
        super().__init__(source=of or "*", read_only=True, **kwargs)

    def to_representation(self, obj):
        return localized(obj, self.translated_field, get_language()).text

    def representation_in(self, language: str):
        """``to_representation`` while ``language`` is active (common.serializer_render)."""
        return text_reader(self.translated_field, language)


@extend_schema_field({"type": "string", "enum": LANGUAGE_CODES})
class TextLanguage(TranslatedText):
    """The language a TranslatedText is really in ("en" when it fell back)."""

    def to_representation(self, obj):
        return localized(obj, self.translated_field, get_language()).language

    def representation_in(self, language: str):
        return language_reader(self.translated_field, language)


@extend_schema_field(OpenApiTypes.BOOL)
class TextMachine(TranslatedText):
    """Whether a TranslatedText is a machine translation (shown because its language's setting
    says so): a client marks it, as the site's pages do."""

    def to_representation(self, obj):
        return localized(obj, self.translated_field, get_language()).machine

    def representation_in(self, language: str):
        return machine_reader(self.translated_field, language)


extend_schema_field(OpenApiTypes.STR)(TranslatedText)


class IdField(serializers.IntegerField):
    """A JSON integer id: "12", 12.0 and true are refused, not coerced."""

    def __init__(self, **kwargs):
        super().__init__(min_value=1, max_value=MAX_ID, **kwargs)

    def to_internal_value(self, data):
        if type(data) is not int:
            self.fail("invalid")
        return super().to_internal_value(data)


@extend_schema_field(OpenApiTypes.INT)
class SecondsField(serializers.Field):
    """A duration as whole seconds."""

    def __init__(self, **kwargs):
        super().__init__(read_only=True, **kwargs)

    def to_representation(self, value) -> int:
        return int(value.total_seconds())
