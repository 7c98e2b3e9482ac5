"""Latin runs inside right-to-left text: what needs isolating, and the HTML that isolates it.

In an Urdu sentence, a Latin run that holds anything but letters (``sqrt(N)``,
``torch.utils.checkpoint``, ``16 GB``) is reordered by the bidirectional algorithm: its
neutral and weak characters take the direction of the Urdu around them, so ``sqrt(N)``
shows as ``(sqrt(N``. Two places need the same definition of such a run: the translators'
check (``translation_checks``: ``bidi_unmarked``) and the pages, which isolate every run at
display time without changing the stored text (``isolated``, which ``LocalizedText``'s
HTML form calls: the student pages, feedback, review, results and the admin's preview).
This module imports nothing of the app.
"""

import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language_info

# A Latin run: Latin letters and digits with the neutral and weak characters between them.
LATIN_RUN = re.compile(r"[(\[`]*[A-Za-z0-9][A-Za-z0-9_.,:()\[\]{}+\-*/^=<>\u2013%` ]*[A-Za-z0-9)\]}%`]|[A-Za-z]")
# Runs a translator isolated already: LRI ... PDI, LRE ... PDF, or between two LRMs.
ISOLATED = re.compile("\u2066[^\u2069]*\u2069|\u202a[^\u202c]*\u202c|\u200e[^\u200e]*\u200e")
BRACKETS = {"(": ")", "[": "]", "{": "}", "“": "”", "«": "»"}


def unbalanced(text: str) -> str | None:
    """The first bracket (or quote) of ``text`` left unmatched, or None."""
    closers = {close: open_ for open_, close in BRACKETS.items()}
    stack = []
    for ch in text:
        if ch in BRACKETS:
            stack.append(ch)
        elif ch in closers:
            if not stack or stack[-1] != closers[ch]:
                return ch
            stack.pop()
    if stack:
        return stack[-1]
    if text.count('"') % 2:
        return '"'
    return None


def runs_to_isolate(text: str):
    """(start, end, run) of each Latin run of ``text`` that the bidirectional algorithm would
    reorder: the run without closing brackets it does not open (they belong to the text
    around it), and only if it holds more than letters (a bare word, or one in brackets,
    ``(recomputation)``, is strongly left to right and mirrors with its brackets rightly)."""
    for match in LATIN_RUN.finditer(text):
        run = match.group().rstrip()
        while run and run[-1] in ")]}" and unbalanced(run) is not None:
            run = run[:-1].rstrip()
        inner = run[1:-1] if len(run) > 2 and BRACKETS.get(run[0]) == run[-1] else run
        if run and not inner.isalpha():
            yield match.start(), match.start() + len(run), run


def is_right_to_left(language: str) -> bool:
    return bool(get_language_info(language)["bidi"])


def isolated(text: str, language: str) -> SafeString:
    """``text`` (written in ``language``) as escaped HTML; in a right-to-left language each
    Latin run that needs it (``runs_to_isolate``) and was not isolated already is in a
    ``<bdi dir="ltr">``, so that it reads in its own order whatever surrounds it."""
    if not is_right_to_left(language):
        return mark_safe(escape(text))
    if not _has_latin(text):
        return mark_safe(escape(text))
    parts, start = [], 0
    for kept in ISOLATED.finditer(text):
        parts.append(_runs_isolated(text[start : kept.start()]))
        parts.append(escape(kept.group()))
        start = kept.end()
    parts.append(_runs_isolated(text[start:]))
    return mark_safe("".join(parts))


_LATIN = re.compile(r"[A-Za-z0-9]")


def _has_latin(text: str) -> bool:
    return _LATIN.search(text) is not None


def _runs_isolated(text: str) -> str:
    parts, start = [], 0
    for run_start, run_end, run in runs_to_isolate(text):
        parts.append(escape(text[start:run_start]))
        parts.append(f'<bdi dir="ltr">{escape(run)}</bdi>')
        start = run_end
    parts.append(escape(text[start:]))
    return "".join(parts)
