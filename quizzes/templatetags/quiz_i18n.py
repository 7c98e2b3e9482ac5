from django import template
from django.conf import settings
from django.urls import translate_url
from django.utils.html import format_html
from django.utils.translation import get_language, get_language_info

from quizzes.i18n import LocalizedText, localized

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
def tr(obj, field: str) -> LocalizedText:
    """``{{ quiz|tr:"title" }}``: the text in the active language, or English marked as such."""
    return localized(obj, field, get_language())


@register.simple_tag(takes_context=True)
def language_links(context):
    """The current page in every language: (code, local name, url, is_current)."""
    request = context["request"]
    current = get_language()
    full_path = request.get_full_path()
    # URL patterns are not translated: on a page that resolved, another language's
    # URL is this one with the other prefix (what translate_url finds, without
    # resolving and reversing the path four times on every page).
    prefix = f"/{current}/"
    swap = getattr(request, "resolver_match", None) is not None and full_path.startswith(prefix)
    links = []
    for code, _name in settings.LANGUAGES:
        info = get_language_info(code)
        url = f"/{code}/{full_path[len(prefix) :]}" if swap else translate_url(full_path, code)
        links.append(
            {"code": code, "name": info["name_local"], "url": url, "current": code == current, "bidi": info["bidi"]}
        )
    return links
