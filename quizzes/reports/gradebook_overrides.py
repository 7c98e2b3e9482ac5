"""The gradebook's accommodations: for each student and quiz with an override (their own, or
one of a group they are in), what it changes of the quiz's settings for them, as
``quizzes.attempts.rules.quiz_rules`` applies it, so that staff read a grade with the extra
time or attempts it was earned with. Two queries for the whole gradebook, however many
students it shows (``quizzes.attempts.selectors.overrides_by_student``).
"""

from dataclasses import dataclass, field

from django.utils.translation import gettext, ngettext

from common.dates import local_datetime
from quizzes.attempts.rules import OVERRIDDEN, quiz_rules
from quizzes.attempts.selectors import overrides_by_student
from quizzes.models import Quiz, QuizOverride


@dataclass(frozen=True)
class OverrideNote:
    """What a student's overrides change of one quiz for them."""

    # (setting, value for the student) where it differs from the quiz's, in OVERRIDDEN's order.
    changes: tuple[tuple[str, object], ...]
    own: bool  # the student's own override is one of them
    groups: tuple[str, ...] = field(default=())  # the names of the groups whose override applies

    @property
    def text(self) -> str:
        """In the active language and time zone, e.g. "time limit 0:45:00 (group Extra time)"."""
        said = [_setting_text(name, value) for name, value in self.changes] or [gettext("the quiz's settings")]
        text = ", ".join(said)
        if self.groups:
            text = gettext("%(changes)s (group %(groups)s)") % {"changes": text, "groups": ", ".join(self.groups)}
        return text


def _setting_text(name: str, value) -> str:
    if name == "time_limit":
        return gettext("time limit %(limit)s") % {"limit": value} if value else gettext("no time limit")
    if name == "max_attempts":
        if not value:
            return gettext("unlimited attempts")
        return ngettext("%(count)d attempt", "%(count)d attempts", value) % {"count": value}
    if name == "opens_at":
        return gettext("opens %(date)s") % {"date": local_datetime(value)} if value else gettext("open now")
    return gettext("closes %(date)s") % {"date": local_datetime(value)} if value else gettext("never closes")


@dataclass(frozen=True)
class GradebookOverrides:
    notes: dict[tuple[int, int], OverrideNote]  # (student id, quiz id) -> note
    quiz_ids: frozenset[int]  # the quizzes with any override

    def note(self, student_id: int, quiz_id: int) -> OverrideNote | None:
        return self.notes.get((student_id, quiz_id))


NO_OVERRIDES = GradebookOverrides({}, frozenset())


def gradebook_overrides(quizzes: list[Quiz]) -> GradebookOverrides:
    """Every override of ``quizzes``, per student it applies to."""
    if not quizzes:
        return NO_OVERRIDES
    applying = overrides_by_student(quiz_ids=[quiz.pk for quiz in quizzes])
    if not applying:
        return NO_OVERRIDES
    by_id = {quiz.pk: quiz for quiz in quizzes}
    notes = {key: _note(by_id[key[1]], found) for key, found in applying.items()}
    return GradebookOverrides(notes, frozenset(quiz_id for _student, quiz_id in applying))


def _note(quiz: Quiz, overrides: list[QuizOverride]) -> OverrideNote:
    theirs, base = quiz_rules(quiz, overrides), quiz_rules(quiz)
    own = any(override.user_id is not None for override in overrides)
    return OverrideNote(
        changes=tuple(
            (name, getattr(theirs, name)) for name in OVERRIDDEN if getattr(theirs, name) != getattr(base, name)
        ),
        own=own,
        groups=tuple(sorted(override.group.name for override in overrides if override.group_id is not None)),
    )
