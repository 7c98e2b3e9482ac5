"""Reads of a question's versions (``quizzes.content.versions``): each with its answers, and what
changed from the one before, per field and language, for the admin's versions page."""

import difflib
import re
from dataclasses import dataclass
from functools import cached_property

from django.conf import settings
from django.db.models import Count, QuerySet
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language_info

from quizzes.content.languages import SOURCE_LANGUAGE, column, translated_fields
from quizzes.models import Question, QuestionVersion

LANGUAGES = tuple(code for code, _name in settings.LANGUAGES)


class Kind:
    CHANGED = "changed"
    ADDED = "added"
    REMOVED = "removed"
    MOVED = "moved"


@dataclass(frozen=True)
class Change:
    """One difference: ``field`` is ``text``, ``explanation``, ``choice`` (``position`` says which,
    as the newer version numbers it when it has the choice) or ``correct_choice``; ``language``
    is None for what every language shares (a choice's place, the key)."""

    field: str
    kind: str
    language: str | None
    old: str
    new: str
    position: int | None = None
    # Whether the text before and after was shown as a machine translation.
    old_machine: bool = False
    new_machine: bool = False

    @property
    def language_name(self) -> str:
        return str(dict(settings.LANGUAGES)[self.language]) if self.language else ""

    @property
    def direction(self) -> str:
        return "rtl" if self.language and get_language_info(self.language)["bidi"] else "ltr"

    @cached_property
    def marked(self) -> tuple[SafeString, SafeString]:
        """The old and the new text as HTML, the words that changed in ``<del>`` and ``<ins>``."""
        return word_diff(self.old, self.new)

    @property
    def old_marked(self) -> SafeString:
        return self.marked[0]

    @property
    def new_marked(self) -> SafeString:
        return self.marked[1]


_TOKENS = re.compile(r"\w+|\s+|[^\w\s]", re.UNICODE)


def _html(tokens: list[str], mark: str | None) -> str:
    text = "".join(escape(token) for token in tokens).replace("\n", "<br>")
    return f"<{mark}>{text}</{mark}>" if mark and "".join(tokens).strip() else text


def word_diff(old: str, new: str) -> tuple[SafeString, SafeString]:
    """``old`` and ``new`` as escaped HTML (line breaks kept), each word (or punctuation mark)
    that is not in the other marked: removed ones in ``<del>``, added ones in ``<ins>``."""
    before, after = _TOKENS.findall(old or ""), _TOKENS.findall(new or "")
    old_parts, new_parts = [], []
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for operation, a_start, a_end, b_start, b_end in matcher.get_opcodes():
        same = operation == "equal"
        old_parts.append(_html(before[a_start:a_end], None if same else "del"))
        new_parts.append(_html(after[b_start:b_end], None if same else "ins"))
    return mark_safe("".join(old_parts)), mark_safe("".join(new_parts))


@dataclass(frozen=True)
class VersionEntry:
    version: QuestionVersion  # with ``answer_count``
    is_current: bool
    changes: list[Change]  # from the version before; [] for the first


def question_versions(*, question_id: int) -> QuerySet[QuestionVersion]:
    """The question's versions by number, each with ``answer_count`` (one aggregate query)."""
    return (
        QuestionVersion.objects.filter(question_id=question_id)
        .annotate(answer_count=Count("answers"))
        .order_by("number")
    )


def question_version_history(*, question_id: int) -> list[VersionEntry]:
    """Every version of the question, newest first, each with what changed from the one before."""
    versions = list(question_versions(question_id=question_id))
    entries = []
    for index, version in enumerate(versions):
        changes = version_changes(versions[index - 1], version) if index else []
        entries.append(VersionEntry(version, index == len(versions) - 1, changes))
    return entries[::-1]


def version_changes(old: QuestionVersion, new: QuestionVersion) -> list[Change]:
    """What differs from ``old`` to ``new``: the question's texts, each choice's text (added,
    removed, changed) and place, then the correct choice."""
    changes = [
        Change(field, Kind.CHANGED, language, before[0], after[0], old_machine=before[1], new_machine=after[1])
        for field in translated_fields(Question)
        for language in LANGUAGES
        if (before := _shown(old, old.texts, column(field, language)))
        != (after := _shown(new, new.texts, column(field, language)))
    ]
    old_choices = {choice["id"]: choice for choice in old.choices}
    new_choices = {choice["id"]: choice for choice in new.choices}
    for choice in new.choices:
        before = old_choices.get(choice["id"])
        if before is None:
            changes += _choice_texts(choice, Kind.ADDED, new=True)
            continue
        if before["position"] != choice["position"]:
            changes.append(
                Change("choice", Kind.MOVED, None, str(before["position"]), str(choice["position"]), choice["position"])
            )
        for language in LANGUAGES:
            old_text, old_machine = _shown(old, before, column("text", language), choice_id=choice["id"])
            new_text, new_machine = _shown(new, choice, column("text", language), choice_id=choice["id"])
            if (old_text, old_machine) != (new_text, new_machine):
                changes.append(
                    Change(
                        "choice",
                        Kind.CHANGED,
                        language,
                        old_text,
                        new_text,
                        choice["position"],
                        old_machine=old_machine,
                        new_machine=new_machine,
                    )
                )
    for choice in old.choices:
        if choice["id"] not in new_choices:
            changes += _choice_texts(choice, Kind.REMOVED, new=False)
    if old.correct_choice_id != new.correct_choice_id:
        changes.append(
            Change(
                "correct_choice",
                Kind.CHANGED,
                None,
                _choice_label(old_choices.get(old.correct_choice_id)),
                _choice_label(new_choices.get(new.correct_choice_id)),
            )
        )
    return changes


def _shown(version: QuestionVersion, texts: dict, name: str, *, choice_id: int | None = None) -> tuple[str, bool]:
    """A text of a version (its question's ``texts`` or a choice's) and whether it showed it as a
    machine translation (``machine_texts``)."""
    machine = name if choice_id is None else f"choice:{choice_id}:{name}"
    return texts.get(name) or "", machine in version.machine_texts


def _text(choice: dict, language: str) -> str:
    return choice.get(column("text", language)) or ""


def _choice_texts(choice: dict, kind: str, *, new: bool) -> list[Change]:
    return [
        Change("choice", kind, language, "" if new else text, text if new else "", choice["position"])
        for language in LANGUAGES
        if (text := _text(choice, language))
    ]


def _choice_label(choice: dict | None) -> str:
    return "" if choice is None else f"{choice['position']}. {_text(choice, SOURCE_LANGUAGE)}"
