# The docstring quotes the Urdu and dash characters the checks are about.
# ruff: noqa: RUF002
"""Quality checks of one translation against its English.

``translation_problems(english, translation, language)`` runs every check and
returns a ``CheckProblem`` per fault (a code and a message quoting what is
wrong). They warn, never refuse: a translator may be right.

- ``code_missing``: each code-like token of the English (backticked code,
  dotted names such as ``torch.utils.checkpoint``, calls such as ``sqrt(N)``
  or ``O(N log N)``, identifiers with ``_`` or camelCase, powers such as
  ``10^9``) appears unchanged in the translation.
- ``number_missing``: each number, range or percentage of the English outside
  those tokens (``20–30%``) appears in the translation, once every script's
  digits (Urdu's ۰-۹), ``٪`` and ``٫`` are read as ASCII, and dashes as one.
- ``untranslated``: the translation is the English itself, or most of its
  words are the English's words, or (in a language not written in Latin
  script) it keeps three Latin words in a row outside code. A text that is
  only code (a choice ``O(N)``) is rightly identical.
- ``brackets``: (), [], {} and quotes balance in the translation when they do
  in the English.
- ``endpunc``: the end punctuation matches the English's, the language's own
  equivalents accepted (Urdu ends a question with ؟ and a sentence with ۔).
- ``bidi_unmarked`` (languages whose ``get_language_info(...)["bidi"]`` is
  true, when the text holds right-to-left letters): a Latin run needs
  marking when it holds anything but Latin letters (a dot, a bracket, a
  space, a digit, an operator): those characters are neutral or weak in the
  bidirectional algorithm and take the direction of the Urdu around them, so
  ``sqrt(N)`` would show as ``(sqrt(N``. Such a run must sit inside U+2066
  LRI … U+2069 PDI (or LRE … PDF, or between two U+200E LRM). A bare word
  such as ``PyTorch`` is strongly left to right and needs nothing.

translate-toolkit's ``StandardChecker.endpunc`` is reused: it already knows
each language's end punctuation (Urdu's ؟ and ۔). Its ``numbers`` compares
digits as written (Urdu digits fail), ``unchanged`` and ``untranslated``
know nothing of code-only texts, and ``brackets`` compares counts with the
English rather than balance within the translation, so those are our own.
"""

import re
import unicodedata
from dataclasses import dataclass
from functools import cache

from django.utils.translation import get_language_info
from django.utils.translation import gettext as _
from translate.filters import checks

from quizzes.content.bidi import ISOLATED, runs_to_isolate, unbalanced


@dataclass(frozen=True)
class CheckProblem:
    """One thing a translation gets wrong: ``code`` names the check, ``message`` says what is
    wrong in the active language."""

    code: str
    message: str


_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
CODE_TOKEN = re.compile(
    r"`[^`]+`"
    rf"|{_IDENT}(?:\.{_IDENT})*\((?:[^()]|\([^()]*\))*\)"  # sqrt(N), O(N log N), f(g(x))
    rf"|{_IDENT}(?:\.{_IDENT})+"  # torch.utils.checkpoint
    r"|\b[A-Za-z0-9]+\^[A-Za-z0-9]+\b"  # 10^9, N^2
    r"|\b[A-Za-z0-9]*_[A-Za-z0-9_]*\b"  # empty_cache
    r"|\b[A-Za-z]*[a-z][A-Z][A-Za-z0-9]*\b"  # camelCase, PyTorch
)
# Digits with their separators: languages swap "." and "," (Indonesian writes 1.000,5), so a
# number is compared by its digits alone.
NUMBER = re.compile(r"\d+(?:[.,]\d+)*(?:\s*-\s*\d+(?:[.,]\d+)*)?\s*%?")
WORD = re.compile(r"[A-Za-z]{2,}")
LATIN_WORDS_IN_A_ROW = re.compile(r"[A-Za-z]{2,}(?:[\s,;:-]+[A-Za-z]{2,}){2,}")
# En and em dashes and the minus sign; the Arabic percent sign and decimal and thousands separators.
DASHES = str.maketrans({"\u2013": "-", "\u2014": "-", "\u2212": "-", "\u066a": "%", "\u066b": ".", "\u066c": ","})


def ascii_digits(text: str) -> str:
    """``text`` with every script's decimal digits as ASCII, ٪ as % and one kind of dash."""
    text = "".join(str(unicodedata.digit(ch)) if ch.isdigit() and not ch.isascii() else ch for ch in text)
    return text.translate(DASHES)


def code_tokens(text: str) -> list[str]:
    return [match.group() for match in CODE_TOKEN.finditer(text)]


def _without_code(text: str) -> str:
    return CODE_TOKEN.sub(" ", text)


def _numbers(text: str) -> list[tuple[str, str]]:
    """(number as written, its key: digits, range dash and percent sign only)."""
    found = NUMBER.findall(ascii_digits(_without_code(text)))
    return [(number.strip(), re.sub(r"[\s.,]", "", number)) for number in found]


def check_code(english: str, translation: str) -> list[CheckProblem]:
    target = ascii_digits(translation)
    return [
        CheckProblem("code_missing", _("The code “%(code)s” of the English is missing or changed.") % {"code": token})
        for token in dict.fromkeys(code_tokens(english))
        if ascii_digits(token) not in target
    ]


def check_numbers(english: str, translation: str) -> list[CheckProblem]:
    found = [key for _number, key in _numbers(translation)]
    problems = []
    for number, key in _numbers(english):
        if key in found:
            found.remove(key)
        else:
            message = _("The number “%(number)s” of the English is missing.") % {"number": number}
            problems.append(CheckProblem("number_missing", message))
    return problems


def _is_latin_script(language: str) -> bool:
    return not get_language_info(language)["bidi"]


def check_untranslated(english: str, translation: str, language: str) -> list[CheckProblem]:
    english_words = [word.lower() for word in WORD.findall(_without_code(english))]
    if not english_words:
        return []  # only code: rightly the same in every language
    message = _("The text is left in English: “%(text)s”.")
    if translation.strip() == english.strip():
        return [CheckProblem("untranslated", message % {"text": translation.strip()})]
    prose = _without_code(translation)
    if not _is_latin_script(language):
        run = LATIN_WORDS_IN_A_ROW.search(prose)
        return [CheckProblem("untranslated", message % {"text": run.group()})] if run else []
    words = [word.lower() for word in WORD.findall(prose)]
    known = set(english_words)
    shared = sum(word in known for word in words)
    if len(words) >= 3 and shared * 3 > len(words) * 2:
        return [CheckProblem("untranslated", message % {"text": translation.strip()})]
    return []


def check_brackets(english: str, translation: str) -> list[CheckProblem]:
    if unbalanced(english) is not None:
        return []  # nothing to match
    bracket = unbalanced(translation)
    if bracket is None:
        return []
    return [CheckProblem("brackets", _("The “%(bracket)s” in the translation is not matched.") % {"bracket": bracket})]


@cache
def _checker(language: str) -> checks.StandardChecker:
    return checks.StandardChecker(checks.CheckerConfig(targetlanguage=language))


def _ends_in_latin_like(english: str, translation: str) -> bool:
    """The translation ends as the English does, after Latin text (code or a name), where the
    Latin punctuation is the right one even in Urdu."""
    english, translation = english.rstrip(), translation.rstrip()
    if len(translation) < 2 or translation[-1] != english[-1:]:
        return False
    return unicodedata.bidirectional(translation[-2]) not in ("R", "AL")


def check_endpunc(english: str, translation: str, language: str) -> list[CheckProblem]:
    if _ends_in_latin_like(english, translation):
        return []
    try:
        _checker(language).endpunc(english, translation)
    except checks.FilterFailure:
        found, expected = translation.rstrip()[-1:], english.rstrip()[-1:]
        if expected.isalnum():
            message = _("The translation ends with “%(found)s”; the English has no end punctuation.")
        elif found.isalnum():
            message = _("The translation has no end punctuation; the English ends with “%(expected)s”.")
        else:
            message = _("The translation ends with “%(found)s” where the English ends with “%(expected)s”.")
        return [CheckProblem("endpunc", message % {"found": found, "expected": expected})]
    return []


def _has_rtl_letter(text: str) -> bool:
    return any(unicodedata.bidirectional(ch) in ("R", "AL") for ch in text)


def check_bidi(translation: str, language: str) -> list[CheckProblem]:
    if _is_latin_script(language) or not _has_rtl_letter(translation):
        return []
    rest = ISOLATED.sub("\u2060", translation)
    return [
        CheckProblem(
            "bidi_unmarked",
            _("“%(run)s” is not marked to run left to right (wrap it in U+2066 … U+2069).") % {"run": run},
        )
        for _start, _end, run in runs_to_isolate(rest)
    ]


def translation_problems(english: str, translation: str, language: str) -> list[CheckProblem]:
    """The problems of ``translation`` (in ``language``) of ``english``; [] when it passes."""
    if not (english or "").strip() or not (translation or "").strip():
        return []
    return [
        *check_code(english, translation),
        *check_numbers(english, translation),
        *check_untranslated(english, translation, language),
        *check_brackets(english, translation),
        *check_endpunc(english, translation, language),
        *check_bidi(translation, language),
    ]


def object_check_problems(obj) -> list[tuple[str, str, CheckProblem]]:
    """(field, language, problem) for every translation of ``obj`` (a course, quiz, question or choice)."""
    from quizzes.content.languages import SOURCE_LANGUAGE, text_in
    from quizzes.content.translation_status import translation_columns

    return [
        (name, language, problem)
        for name, language, _column in translation_columns(type(obj))
        for problem in translation_problems(text_in(obj, name, SOURCE_LANGUAGE), text_in(obj, name, language), language)
    ]
