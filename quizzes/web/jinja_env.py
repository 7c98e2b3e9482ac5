"""The Jinja2 environment of the student pages (templates in ``quizzes/jinja2/``).

The pages students see on every question are rendered by Jinja2: the Django
template engine was the largest part of a question page's cost (docs/performance.md). Staff
pages and the admin stay Django templates.

What Django's template tags did, a template here calls by name: ``url``,
``static``, ``csrf_input``, ``_`` for gettext, and the filters ``tr``,
``lang_attrs``, ``machine_mark`` and ``date``. Django's context processors do not run (one of
ours does: ``csrf_once``); the base template reads the user and the messages
from ``request``.

Catalogues: ``makemessages`` reads these templates with Django's template
lexer, which finds ``{{ _("...") }}`` (a literal, nothing else inside the
parentheses). So a translated text is written ``{{ _("...") }}``, with any
values after it through ``|format(name=value)``; a plural is a function
here, written with ``ngettext`` so that xgettext finds it in this file.
``tests/web/test_jinja_templates.py`` checks that every text of the templates
is in the catalogue.
"""

from functools import lru_cache

from django.conf import settings
from django.contrib.messages import get_messages
from django.template.backends.utils import csrf_input
from django.template.defaultfilters import date as date_filter
from django.templatetags.static import static as static_url
from django.urls import get_script_prefix, get_urlconf, reverse, translate_url
from django.utils import translation
from django.utils.functional import SimpleLazyObject
from django.utils.timezone import template_localtime
from django.utils.translation import get_language, get_language_bidi, get_language_info, ngettext
from jinja2 import Environment

from quizzes.templatetags.quiz_i18n import lang_attrs, machine_mark, tr

# reverse() costs tens of microseconds and a page makes several; its result depends only
# on these, so each URL is made once per process (a bounded memo, emptied when full).
_urls: dict[tuple, str] = {}
_URLS_MAX = 10_000


def url(name: str, *args) -> str:
    key = (settings.ROOT_URLCONF, get_urlconf(), get_script_prefix(), get_language(), name, args)
    found = _urls.get(key)
    if found is None:
        found = reverse(name, args=args)
        if len(_urls) >= _URLS_MAX:
            _urls.clear()
        _urls[key] = found
    return found


@lru_cache(maxsize=256)
def static(path: str) -> str:
    """The static file's URL: fixed for the process (the manifest is read once)."""
    return static_url(path)


def language_links(request) -> list[dict]:
    """The current page in every language: code, local name, url, whether current, bidi."""
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


def date(value, format_name: str) -> str:
    """Django's ``date`` filter, in the current time zone as Django's templates show it."""
    return date_filter(template_localtime(value), format_name)


def quizzes_passed(passed: int, total: int) -> str:
    return ngettext("%(passed)s of %(total)s quiz passed", "%(passed)s of %(total)s quizzes passed", total) % {
        "passed": passed,
        "total": total,
    }


def questions_missed(count: int, day: str) -> str:
    """The dashboard's line of a practice due: how many questions were missed, on which day."""
    text = ngettext("%(count)s question you missed on %(date)s", "%(count)s questions you missed on %(date)s", count)
    return text % {"count": count, "date": day}


def questions_in_english(count: int, total: int, language: str) -> str:
    """The quiz page's warning before the start: how many questions appear in English."""
    text = ngettext(
        "%(count)s of this quiz's %(total)s questions is not yet translated into %(language)s: "
        "it will appear in English.",
        "%(count)s of this quiz's %(total)s questions are not yet translated into %(language)s: "
        "they will appear in English.",
        count,
    )
    return text % {"count": count, "total": total, "language": language}


def in_english_mark(count: int, total: int) -> str:
    """The dashboard's mark of a quiz some of whose questions appear in English."""
    text = ngettext("%(count)s of %(total)s questions in English", "%(count)s of %(total)s questions in English", count)
    return text % {"count": count, "total": total}


def csrf_once(request) -> dict:
    """A context processor: the CSRF field made once per page, however many forms it has.

    Django's backend gives ``csrf_input`` as a lazy string that masks the token
    again at every use (random bytes each time).
    """
    return {"csrf_input": SimpleLazyObject(lambda: csrf_input(request))}


def environment(**options) -> Environment:
    options["extensions"] = [*options.get("extensions", ()), "jinja2.ext.i18n"]
    env = Environment(**options)
    env.install_gettext_callables(translation.gettext, translation.ngettext, newstyle=False)
    env.globals.update(
        url=url,
        static=static,
        get_language=get_language,
        get_language_bidi=get_language_bidi,
        get_messages=get_messages,
        language_links=language_links,
        quizzes_passed=quizzes_passed,
        questions_missed=questions_missed,
        questions_in_english=questions_in_english,
        in_english_mark=in_english_mark,
    )
    env.filters.update(tr=tr, lang_attrs=lang_attrs, machine_mark=machine_mark, date=date)
    return env
