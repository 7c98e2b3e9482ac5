"""Translation memory: the content's own current translations, offered again for
identical and similar English, and the reviewed ones exported as TMX.

The memory is not a table of its own: every translated field of the content
(``TRANSLATED_MODELS``) whose translation is current (not missing, not stale)
is a pair, read with one query per model. A translation written against
another English is not offered: it may no longer say what that English says.
"""

from dataclasses import dataclass

from django.db.models import Q
from django.utils.translation import gettext as _
from rapidfuzz import fuzz, process
from translate.storage.tmx import tmxfile

from quizzes.content.languages import SOURCE_LANGUAGE, column, translated_fields
from quizzes.content.translation_status import (
    RECORDED_STATES,
    TRANSLATED_MODELS,
    Status,
    status_q,
    translation_status,
)
from quizzes.models import Choice, Course, Question, Quiz

# Below this RapidFuzz score (0-100) two English texts are not worth showing as alike.
SIMILARITY_CUTOFF = 60

# At equal score, a reviewed translation is the safer one to reuse.
STATE_RANK = {Status.REVIEWED: 0, Status.TRANSLATED: 1, Status.MACHINE: 2}

_RELATED = {Course: (), Quiz: ("course",), Question: ("quiz",), Choice: ("question__quiz",)}
# The lookup from each model to its quiz; a course belongs to no single quiz.
_QUIZ_LOOKUP = {Quiz: "pk", Question: "quiz", Choice: "question__quiz"}


@dataclass(frozen=True)
class Suggestion:
    english: str
    translation: str
    score: int
    state: Status
    where: str


@dataclass(frozen=True)
class _Pair:
    english: str
    translation: str
    state: Status
    where: str
    source: tuple[type, int]


def _where(obj) -> str:
    english = column("title", SOURCE_LANGUAGE)
    if isinstance(obj, Course):
        return _("Course “%(course)s”") % {"course": getattr(obj, english)}
    if isinstance(obj, Quiz):
        return _("Quiz “%(quiz)s”") % {"quiz": getattr(obj, english)}
    question = obj if isinstance(obj, Question) else obj.question
    label = _("Quiz “%(quiz)s”, question %(position)s") % {
        "quiz": getattr(question.quiz, english),
        "position": question.position,
    }
    if isinstance(obj, Choice):
        label = _("%(question)s, choice %(position)s") % {"question": label, "position": obj.position}
    return label


def _current_pairs(language: str, *, states=RECORDED_STATES, quiz: Quiz | None = None) -> list[_Pair]:
    """Every current translation into ``language`` whose state is in ``states``: one query per model."""
    pairs = []
    for model in TRANSLATED_MODELS:
        names = translated_fields(model)
        wanted = Q()
        for name in names:
            for state in states:
                wanted |= status_q(name, language, state)
        rows = model.objects.filter(wanted).select_related(*_RELATED[model])
        if quiz is not None:
            if model not in _QUIZ_LOOKUP:
                continue
            rows = rows.filter(**{_QUIZ_LOOKUP[model]: quiz.pk})
        for obj in rows:
            where = None
            for name in names:
                status = translation_status(obj, name, language)
                if status not in states:
                    continue
                where = where or _where(obj)
                english = getattr(obj, column(name, SOURCE_LANGUAGE)).strip()
                translation = getattr(obj, column(name, language)).strip()
                pairs.append(_Pair(english, translation, status, where, (model, obj.pk)))
    return pairs


def _deduplicated(pairs) -> list[_Pair]:
    """One pair per (English, translation), carrying the best state of its copies."""
    best: dict[tuple[str, str], _Pair] = {}
    for pair in pairs:
        key = (pair.english, pair.translation)
        if key not in best or STATE_RANK[pair.state] < STATE_RANK[best[key].state]:
            best[key] = pair
    return list(best.values())


class TranslationMemory:
    """The current translations into one language, read once for the suggestions of
    many fields (a change page asks for each of its inputs)."""

    def __init__(self, language: str):
        self.language = language
        self.pairs = _current_pairs(language)

    def suggest(self, english: str, *, exclude: tuple[type, int] | None = None, limit: int = 5) -> list[Suggestion]:
        """Translations of English texts identical (score 100) or similar to ``english``,
        best first: by score, then reviewed before translated before machine-made.

        ``exclude`` is (model, pk) of the row being edited, whose own translations are not
        suggestions for themselves.
        """
        english = (english or "").strip()
        if not english:
            return []
        by_english: dict[str, list[_Pair]] = {}
        for pair in _deduplicated(pair for pair in self.pairs if pair.source != exclude):
            by_english.setdefault(pair.english, []).append(pair)
        scored = process.extract(
            english,
            list(by_english),
            scorer=fuzz.token_sort_ratio,
            score_cutoff=SIMILARITY_CUTOFF,
            limit=None,
        )
        found = []
        for candidate, score, _index in scored:
            identical = candidate == english
            # A reordering of the same words is alike, not identical: 100 means the same text.
            shown = 100 if identical else min(99, round(score))
            for pair in by_english[candidate]:
                found.append((not identical, -shown, STATE_RANK[pair.state], pair.translation, pair, shown))
        found.sort(key=lambda item: item[:4])
        return [
            Suggestion(pair.english, pair.translation, shown, pair.state, pair.where)
            for *_key, pair, shown in found[:limit]
        ]


def translation_suggestions(
    english: str, language: str, *, exclude: tuple[type, int] | None = None, limit: int = 5
) -> list[Suggestion]:
    """Translations into ``language`` of English texts identical or similar to ``english``
    (see ``TranslationMemory.suggest``)."""
    return TranslationMemory(language).suggest(english, exclude=exclude, limit=limit)


def tmx_export(*, language: str, quiz: Quiz | None = None) -> bytes:
    """The reviewed pairs (English to ``language``) of all the content, or of one quiz's
    own texts, questions and choices, as a TMX 1.4 file: one unit per distinct pair."""
    store = tmxfile(sourcelanguage=SOURCE_LANGUAGE, targetlanguage=language)
    pairs = _deduplicated(_current_pairs(language, states=(Status.REVIEWED,), quiz=quiz))
    for pair in sorted(pairs, key=lambda pair: (pair.english, pair.translation)):
        store.addtranslation(pair.english, SOURCE_LANGUAGE, pair.translation, language)
    return bytes(store)
