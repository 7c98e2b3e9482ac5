"""The deadlines of attempts in progress, kept to the settings in force, and the writes of
quiz overrides that move them.

An attempt's deadline is the earlier of its start plus the time limit and the close date that
apply to its student *now* (``rules.QuizRules.deadline``). Whatever changes one of those inputs
calls ``attempt_deadlines_recompute`` in its own transaction: saving a quiz's dates or limit
(the quiz admin), an override (``quiz_override_save``, ``quiz_overrides_delete``) and a
group's members (``course_group_members_changed``). Finished attempts never change, and a
practice keeps no deadline.

How it holds under load: the recompute locks the quiz's row first (``FOR UPDATE``), the lock a
start takes in share (``start_queries.start_reads``) before it reads the settings and
overrides, so an attempt starting meanwhile is either seen here or reads what this committed;
then it locks each attempt in progress, the lock every answer takes first, so an answer is
judged by the old deadline or the new one, never a mixture. An attempt whose new deadline has
passed (its grace too) takes no more answers and is finished with those it has, as any overdue
attempt is.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from quizzes.attempts import rules
from quizzes.attempts.selectors import overrides_by_student
from quizzes.models import Attempt, CourseGroup, Quiz, QuizOverride

# The quiz settings that go into a deadline: saving any of them recomputes the attempts in progress.
DEADLINE_SETTINGS = ("opens_at", "closes_at", "time_limit")


@dataclass(frozen=True)
class DeadlinesRecomputed:
    """What recomputes did: the ids of the attempts in progress that got a new deadline
    (``moved``), and of those already past it and its grace (``overdue``)."""

    moved: frozenset[int] = frozenset()
    overdue: frozenset[int] = frozenset()

    def __add__(self, other: "DeadlinesRecomputed") -> "DeadlinesRecomputed":
        return DeadlinesRecomputed(self.moved | other.moved, self.overdue | other.overdue)


def attempt_deadlines_recompute(
    *, quiz_ids: Iterable[int], user_ids: Iterable[int] | None = None
) -> DeadlinesRecomputed:
    """Set the deadline of every graded attempt in progress at these quizzes (of these students
    only, when given) to what the settings in force give it. One left overdue takes no more
    answers (``deadline_passed``) and is finished when next touched or by
    ``manage.py finish_overdue_attempts``, as any overdue attempt: not here, in the saving
    teacher's transaction, where a whole class's grades would be sent at once."""
    now = timezone.now()
    quiz_ids = sorted(set(quiz_ids))
    with transaction.atomic():
        quizzes = Quiz.objects.select_for_update().filter(pk__in=quiz_ids).order_by("pk")
        quizzes = {quiz.pk: quiz for quiz in quizzes.only("id", *rules.OVERRIDDEN)}
        # A practice keeps no deadline: only the attempts that count have one.
        attempts = (
            Attempt.objects.select_for_update()
            .graded()
            .filter(quiz_id__in=list(quizzes), state=Attempt.State.IN_PROGRESS)
        )
        if user_ids is not None:
            attempts = attempts.filter(user_id__in=list(user_ids))
        attempts = list(attempts.order_by("pk").only("id", "user_id", "quiz_id", "state", "started_at", "deadline"))
        if not attempts:
            return DeadlinesRecomputed()
        overrides = overrides_by_student(quiz_ids=list(quizzes), user_ids={attempt.user_id for attempt in attempts})
        moved = []
        for attempt in attempts:
            applying = overrides.get((attempt.user_id, attempt.quiz_id), ())
            deadline = rules.quiz_rules(quizzes[attempt.quiz_id], applying).deadline(attempt.started_at)
            if deadline != attempt.deadline:
                attempt.deadline = deadline
                moved.append(attempt)
        Attempt.objects.bulk_update(moved, ["deadline"])
    return DeadlinesRecomputed(
        moved=frozenset(attempt.pk for attempt in moved),
        overdue=frozenset(attempt.pk for attempt in moved if rules.is_overdue(attempt, now)),
    )


def _applies_to(override: QuizOverride) -> set[int]:
    if override.user_id is not None:
        return {override.user_id}
    return set(
        CourseGroup.members.through.objects.filter(coursegroup_id=override.group_id).values_list("user_id", flat=True)
    )


def quiz_override_save(*, override: QuizOverride) -> DeadlinesRecomputed:
    """Save ``override`` (new or changed) and recompute the deadlines it moves: those of whom
    it applied to before (another student, group or quiz) and of whom it applies to now."""
    with transaction.atomic():
        before = None
        if override.pk is not None:
            before = QuizOverride.objects.select_for_update().filter(pk=override.pk).first()
        affected = {(before.quiz_id, user_id) for user_id in _applies_to(before)} if before else set()
        override.save()
        affected |= {(override.quiz_id, user_id) for user_id in _applies_to(override)}
        return _recompute_each_quiz(affected)


def quiz_overrides_delete(*, overrides: Iterable[QuizOverride]) -> DeadlinesRecomputed:
    """Delete ``overrides`` and recompute the deadlines of whom they applied to."""
    with transaction.atomic():
        affected = set()
        for override in overrides:
            affected |= {(override.quiz_id, user_id) for user_id in _applies_to(override)}
            override.delete()
        return _recompute_each_quiz(affected)


def course_group_members_changed(*, group: CourseGroup, before: Iterable[int]) -> DeadlinesRecomputed:
    """After ``group``'s members changed from ``before`` (user ids), recompute the deadlines of
    whoever joined or left it, at each quiz the group has an override of."""
    after = set(group.members.values_list("pk", flat=True))
    changed = after ^ set(before)
    quiz_ids = set(QuizOverride.objects.filter(group=group).values_list("quiz_id", flat=True))
    if not changed or not quiz_ids:
        return DeadlinesRecomputed()
    return attempt_deadlines_recompute(quiz_ids=quiz_ids, user_ids=changed)


def course_group_delete(*, group: CourseGroup) -> DeadlinesRecomputed:
    """Delete ``group`` (its overrides with it) and recompute the deadlines of its members."""
    with transaction.atomic():
        members = set(group.members.values_list("pk", flat=True))
        quiz_ids = set(QuizOverride.objects.filter(group=group).values_list("quiz_id", flat=True))
        group.delete()
        if not members or not quiz_ids:
            return DeadlinesRecomputed()
        return attempt_deadlines_recompute(quiz_ids=quiz_ids, user_ids=members)


def _recompute_each_quiz(affected: set[tuple[int, int]]) -> DeadlinesRecomputed:
    by_quiz: dict[int, set[int]] = {}
    for quiz_id, user_id in affected:
        by_quiz.setdefault(quiz_id, set()).add(user_id)
    done = DeadlinesRecomputed()
    for quiz_id in sorted(by_quiz):
        done += attempt_deadlines_recompute(quiz_ids=[quiz_id], user_ids=by_quiz[quiz_id])
    return done
