from django import template
from django.utils.html import format_html
from django.utils.translation import get_language, get_language_info, gettext

from quizzes.content.languages import LocalizedText
from quizzes.content.shown import localized

register = template.Library()


@register.filter
def lang_attrs(text: LocalizedText):
    """``lang``/``dir`` attributes for a text shown in place of a missing translation.

    Screen readers then pronounce the English as English, and inside a
    right-to-left page the English runs left to right.
    """
    if not isinstance(text, LocalizedText) or not text.is_fallback:
        return ""
    direction = "rtl" if get_language_info(text.language)["bidi"] else "ltr"
    return format_html(' lang="{}" dir="{}"', text.language, direction)


@register.filter
def machine_mark(text: LocalizedText):
    """After a text shown in a machine translation, a mark that says so; nothing after another."""
    if not isinstance(text, LocalizedText) or not text.machine:
        return ""
    return format_html(' <span class="machine-mark">{}</span>', gettext("machine translation"))


@register.filter
def tr(obj, field: str) -> LocalizedText:
    """``{{ quiz|tr:"title" }}``: the text in the active language, or English marked as such."""
    return localized(obj, field, get_language())
