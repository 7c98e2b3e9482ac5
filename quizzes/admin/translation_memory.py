"""The translation memory on the quiz and question change pages.

Each translation input gets the suggestions for its field's English (identical
and similar texts translated elsewhere, with their score and state), computed
when the page renders: the English is the stored one, which is what the
translation is checked against on save. ``quizzes/translation-memory.js`` moves
each list beside its input and fills the input from a “Use this” button;
without the script the lists stay together in the page's own block.
"""

from django.conf import settings
from django.contrib import admin
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from quizzes.content.languages import SOURCE_LANGUAGE, TRANSLATION_LANGUAGES, column, translated_fields
from quizzes.content.translation_memory import TranslationMemory
from quizzes.models import Choice, Question


def _rows(obj) -> list:
    rows = [obj]
    if isinstance(obj, Question):
        rows += list(obj.choices.filter(is_archived=False).order_by("position"))
    return rows


def _target(obj, translated: str) -> dict[str, str]:
    """Where the script finds the input: by name on the object's own form; a choice's by its
    inline's hidden id, since the inline numbers its forms itself."""
    if isinstance(obj, Choice):
        return {"choice": str(obj.pk), "column": translated}
    return {"input": translated}


def _field_label(obj, name: str, language: str) -> str:
    names = dict(settings.LANGUAGES)
    field = str(obj._meta.get_field(name).verbose_name)
    if isinstance(obj, Choice):
        field = _("choice %(position)s") % {"position": obj.position}
    return _("%(language)s, %(field)s") % {"language": names[language], "field": field}


def _suggestion_items(suggestions, language: str):
    direction = "rtl" if language in settings.LANGUAGES_BIDI else "ltr"
    return format_html_join(
        "",
        '<li><button type="button" class="button tm-use" data-value="{}">{}</button> '
        '<span class="tm-score">{}</span> <span class="tm-state tm-state-{}">{}</span> '
        '<bdi class="tm-translation" lang="{}" dir="{}">{}</bdi>'
        '<br><bdi class="tm-where">{}</bdi>: <q class="tm-english" lang="en" dir="ltr">{}</q></li>',
        (
            (
                s.translation,
                _("Use this"),
                _("%(score)d%% match") % {"score": s.score},
                s.state.value,
                s.state.label,
                language,
                direction,
                s.translation,
                s.where,
                s.english,
            )
            for s in suggestions
        ),
    )


def translation_memory_block(obj) -> str:
    """The suggestions for every translation input of ``obj`` (a question's choices too)."""
    rows = _rows(obj)
    blocks = []
    for language in TRANSLATION_LANGUAGES:
        memory = TranslationMemory(language)
        for row in rows:
            for name in translated_fields(type(row)):
                suggestions = memory.suggest(
                    getattr(row, column(name, SOURCE_LANGUAGE)) or "", exclude=(type(row), row.pk)
                )
                if not suggestions:
                    continue
                target = _target(row, column(name, language))
                blocks.append(
                    format_html(
                        '<div class="tm-suggestions" data-input="{}" data-choice="{}" data-column="{}">'
                        '<p class="tm-heading">{}</p><ul>{}</ul></div>',
                        target.get("input", ""),
                        target.get("choice", ""),
                        target.get("column", ""),
                        _("Suggestions for %(field)s") % {"field": _field_label(row, name, language)},
                        _suggestion_items(suggestions, language),
                    )
                )
    if not blocks:
        return _("No suggestions: no identical or similar English is translated elsewhere yet.")
    return format_html('<div class="translation-memory">{}</div>', format_html_join("", "{}", ((b,) for b in blocks)))


class TranslationMemoryMixin:
    """Adds the read-only ``translation_suggestions`` field; list it in the page's fields."""

    @admin.display(description=gettext_lazy("translation memory"))
    def translation_suggestions(self, obj):
        if obj is None or obj.pk is None:
            return "-"
        return translation_memory_block(obj)
