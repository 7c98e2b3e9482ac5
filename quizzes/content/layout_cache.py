"""The versions attempts' layouts hold, and each layout's view of its quiz, held by each process.

A version a committed layout holds never changes (quizzes/content/versions.py), so what is read
once is never stale: each process keeps what it has read, and the cache (Redis in production:
shared by every worker and server) keeps it for the others, under the version's id and its
random ``token`` (new whenever the row is written), so that an id used again by another
database or after a rolled-back insert never finds other texts.
"""

from django.core.cache import cache

from quizzes.content.cache import CONTENT_TIMEOUT, PREFIX, QuizContent, version_question
from quizzes.content.languages import translated_fields
from quizzes.content.shown import shown_columns
from quizzes.models import QuestionVersion, Quiz

# The versions this process has read for attempts' layouts, by (id, token). A version a layout
# holds never changes (quizzes/content/versions.py), so what is held here is never stale.
_versions: dict[tuple[int, int], QuestionVersion] = {}
_VERSIONS_MAX = 20000


def _version_key(version_id: int, token: int) -> str:
    return f"{PREFIX}:version:{version_id}:{token}"


def layout_versions(keys) -> dict[tuple[int, int], QuestionVersion]:
    """The versions that attempts' layouts hold, by (id, token) (``QuestionVersion.token``): from
    this process, else the cache, else the database (one query for those missing). Only for
    versions a committed layout holds: another one may still be rewritten in place."""
    missing = [key for key in keys if key not in _versions]
    if missing:
        if len(_versions) + len(missing) > _VERSIONS_MAX:
            _versions.clear()
        found = cache.get_many([_version_key(*key) for key in missing])
        _versions.update(((version.pk, version.token), version) for version in found.values())
        unread = [key for key in missing if key not in _versions]
        if unread:
            read = {
                (version.pk, version.token): version
                for version in QuestionVersion.objects.filter(pk__in=[version_id for version_id, _token in unread])
            }
            cache.set_many({_version_key(*key): version for key, version in read.items()}, timeout=CONTENT_TIMEOUT)
            _versions.update(read)
    return {key: _versions[key] for key in keys if key in _versions}


# An attempt's view of its quiz (its layout), made once per process for a layout and quiz texts.
_layouts: dict[tuple, QuizContent] = {}
_LAYOUTS_MAX = 4000


def layout_content(quiz, slots) -> QuizContent:
    """The quiz as an attempt shows it: ``quiz`` (a Quiz, with its ``translation_sources``, or a
    QuizContent) gives its current title and description as learners are shown them,
    ``slots`` are the layout's (position, version id, version token, choice order) in position
    order; each question is its version there, its choices in that
    order. Made once per process for a layout and quiz texts (``derived`` keys on it too), so
    an edited title is shown at once and nothing else is read again."""
    texts, machine = shown_columns(quiz, translated_fields(Quiz))
    layout = tuple((position, version_id, token, tuple(order)) for position, version_id, token, order in slots)
    key = (quiz.pk, tuple(texts.values()), tuple(sorted(machine)), layout)
    held = _layouts.get(key)
    if held is not None:
        return held
    versions = layout_versions([(version_id, token) for _position, version_id, token, _order in slots])
    content = QuizContent(
        texts,
        machine_columns=machine,
        id=quiz.pk,
        slug=quiz.slug,
        course_id=quiz.course_id,
        derived_key=("layout", key),
        questions=tuple(
            version_question(versions[version_id, token], position=position, choice_order=order)
            for position, version_id, token, order in slots
        ),
    )
    if len(_layouts) >= _LAYOUTS_MAX:
        _layouts.clear()
    _layouts[key] = content
    return content
