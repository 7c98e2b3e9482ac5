"""The regrade asks which versions it applies to (quizzes/attempts/regrade.py): per-version
plans, answers regraded for the versions chosen only, attempts in progress that hold a
chosen version moved to the new one, version keys never modified, and the record of what
each student was shown."""

import time

import pytest
from django.db import connection

from quizzes.attempts.regrade import (
    RegradeError,
    moved_choice_order,
    question_correct_choice_change,
    question_regrade_plan,
)
from quizzes.attempts.services import attempt_answer_submit, attempt_finish
from quizzes.models import Answer, Attempt, AttemptQuestion, Choice, QuestionVersion, Quiz, Regrade
from tests.admin.test_safe_edits import _in_thread, _regrade_held
from tests.factories import AnswerFactory, AttemptFactory, EnrollmentFactory, UserFactory, current_version

pytestmark = pytest.mark.django_db

GC = "gradient-checkpointing"


def choices(question) -> list[Choice]:
    return list(question.choices.order_by("position"))


@pytest.fixture
def two_versions(content):
    return answered_on_two_versions(content[GC])


def answered_on_two_versions(gc) -> dict:
    """Q1 of GC answered on version 1, then reworded (version 2) and answered again.
    Its key is choice 1; the regrades below make it choice 2.

    A finished, v1, choice 1 (right)   score 1
    B finished, v1, choice 2 (wrong)   score 0
    F in progress, v1, choice 1 (right)
    D in progress, v1, Q1 not answered (its choices shown 3, 1, 4, 2)
    C finished, v2, choice 2 (wrong)   score 0
    E in progress, v2, Q1 not answered
    """
    q1 = gc.questions.get(position=1)
    c = choices(q1)
    users = {name: UserFactory(username=name) for name in "ABCDEF"}
    for user in users.values():
        EnrollmentFactory(user=user, course=gc.course)

    def attempt(name, score, choice=None):
        made = AttemptFactory(
            user=users[name], quiz=gc, number=1, max_score=8, pass_mark=10, finished=score is not None
        )
        if score is not None:
            Attempt.objects.filter(pk=made.pk).update(score=score)
        if choice is not None:
            AnswerFactory(attempt=made, question=q1, choice=choice)
        return made

    made = {"A": attempt("A", 1, c[0]), "B": attempt("B", 0, c[1]), "F": attempt("F", None, c[0])}
    made["D"] = attempt("D", None)
    AttemptQuestion.objects.filter(attempt=made["D"], question=q1).update(
        choice_order=[c[2].pk, c[0].pk, c[3].pk, c[1].pk]
    )
    q1.text_en = "Reworded: what does gradient checkpointing trade?"
    q1.save()
    assert current_version(q1).number == 2
    made["C"] = attempt("C", 0, c[1])
    made["E"] = attempt("E", None)
    return {"quiz": gc, "q1": q1, "c": c, **made}


def slot(attempt, question) -> AttemptQuestion:
    return AttemptQuestion.objects.select_related("version").get(attempt=attempt, question=question)


def correct_flags(data) -> dict[str, bool]:
    return {
        answer.attempt.user.username: answer.is_correct
        for answer in Answer.objects.filter(question=data["q1"]).select_related("attempt__user")
    }


def scores(data) -> dict[str, int | None]:
    return {name: Attempt.objects.get(pk=data[name].pk).score for name in "ABC"}


def version_keys(question) -> dict[int, int]:
    return dict(QuestionVersion.objects.filter(question=question).values_list("number", "correct_choice_id"))


def test_the_plan_is_per_version(two_versions):
    q1, c = two_versions["q1"], two_versions["c"]

    plan = question_regrade_plan(question=q1, new_correct=c[1])

    v1, v2 = plan.versions
    assert (v1.number, v1.answers_total, v1.answers_changed, v1.in_progress_changed, v1.attempts_moved) == (
        1,
        3,
        3,
        1,
        1,
    )
    assert sorted((s.user, s.old_score, s.new_score) for s in v1.scores) == [("A", 1, 0), ("B", 0, 1)]
    assert (v2.number, v2.answers_total, v2.answers_changed, v2.in_progress_changed, v2.attempts_moved) == (
        2,
        1,
        1,
        0,
        1,
    )
    assert [(s.user, s.old_score, s.new_score) for s in v2.scores] == [("C", 0, 1)]
    assert plan.chosen == (1, 2) and plan.answers_changed == 4 and plan.students_affected == 3
    only_2 = question_regrade_plan(question=q1, new_correct=c[1], versions=[2])
    assert (only_2.answers_changed, only_2.attempts_moved, only_2.students_affected) == (1, 1, 1)


def test_only_the_chosen_versions_are_regraded_and_moved(two_versions, editor):
    data, q1, c = two_versions, two_versions["q1"], two_versions["c"]

    regrade = question_correct_choice_change(question=q1, new_correct=c[1], changed_by=editor, versions=[2])

    # Version 2's answer takes the new key; version 1's keep theirs.
    assert correct_flags(data) == {"A": True, "B": False, "F": True, "C": True}
    assert scores(data) == {"A": 1, "B": 0, "C": 1}
    assert regrade.versions == [2]
    assert (regrade.answers_changed, regrade.attempts_regraded, regrade.students_affected) == (1, 1, 1)
    # The key made version 3; no version's key was modified.
    assert version_keys(q1) == {1: c[0].pk, 2: c[0].pk, 3: c[1].pk}
    # E (held v2, not answered) now holds v3; D (held v1) keeps v1, and its choice order.
    assert slot(data["E"], q1).version.number == 3
    assert slot(data["D"], q1).version.number == 1
    assert slot(data["D"], q1).choice_order == [c[2].pk, c[0].pk, c[3].pk, c[1].pk]
    # Answers given keep the version they were shown.
    assert Answer.objects.get(attempt=data["C"]).version.number == 2
    # E is asked and graded with the new key; D, on a version not chosen, with version 1's.
    e_answer, _new = attempt_answer_submit(
        user=data["E"].user, attempt_id=data["E"].pk, question_id=q1.pk, choice_id=c[1].pk, language="en"
    )
    d_answer, _new = attempt_answer_submit(
        user=data["D"].user, attempt_id=data["D"].pk, question_id=q1.pk, choice_id=c[0].pk, language="en"
    )
    assert (e_answer.is_correct, e_answer.version.number) == (True, 3)
    assert (d_answer.is_correct, d_answer.version.number) == (True, 1)


def test_every_version_by_default(two_versions, editor):
    data, q1, c = two_versions, two_versions["q1"], two_versions["c"]

    regrade = question_correct_choice_change(question=q1, new_correct=c[1], changed_by=editor)

    assert regrade.versions == [1, 2]
    assert correct_flags(data) == {"A": False, "B": True, "F": False, "C": True}
    assert scores(data) == {"A": 0, "B": 1, "C": 1}
    assert version_keys(q1) == {1: c[0].pk, 2: c[0].pk, 3: c[1].pk}
    # Both waiting attempts are moved; D keeps the order it was shown.
    assert slot(data["E"], q1).version.number == slot(data["D"], q1).version.number == 3
    assert slot(data["D"], q1).choice_order == [c[2].pk, c[0].pk, c[3].pk, c[1].pk]
    # F answered before the regrade: its answer keeps version 1, regraded; finishing uses it.
    assert slot(data["F"], q1).version.number == 1
    assert attempt_finish(attempt=data["F"]).score == 0
    answer, _new = attempt_answer_submit(
        user=data["D"].user, attempt_id=data["D"].pk, question_id=q1.pk, choice_id=c[0].pk, language="en"
    )
    assert (answer.is_correct, answer.version.number) == (False, 3)


def test_no_version_chosen_is_new_attempts_only(two_versions, editor):
    data, q1, c = two_versions, two_versions["q1"], two_versions["c"]
    before = (correct_flags(data), scores(data))

    regrade = question_correct_choice_change(question=q1, new_correct=c[1], changed_by=editor, versions=[])

    assert (regrade.versions, regrade.answers_changed, regrade.answers) == ([], 0, [])
    assert (correct_flags(data), scores(data)) == before
    assert version_keys(q1) == {1: c[0].pk, 2: c[0].pk, 3: c[1].pk}
    assert [slot(data[name], q1).version.number for name in "DE"] == [1, 2]


def test_an_unknown_version_is_refused_before_anything_changes(two_versions, editor):
    q1, c = two_versions["q1"], two_versions["c"]
    with pytest.raises(RegradeError, match="Version 7 is not a version of this question"):
        question_correct_choice_change(question=q1, new_correct=c[1], changed_by=editor, versions=[1, 7])
    assert version_keys(q1) == {1: c[0].pk, 2: c[0].pk}
    assert choices(q1)[0].is_correct and not Regrade.objects.exists()


def test_a_new_choice_as_key_is_appended_to_a_moved_order(two_versions, editor):
    data, q1, c = two_versions, two_versions["q1"], two_versions["c"]
    added = Choice(question=q1, position=5, text_en="A new right answer")

    question_correct_choice_change(question=q1, new_correct=added, changed_by=editor, versions=[1])

    assert slot(data["D"], q1).choice_order == [c[2].pk, c[0].pk, c[3].pk, c[1].pk, added.pk]
    assert slot(data["E"], q1).version.number == 2  # version 2 not chosen


def test_a_moved_order_drops_choices_no_longer_offered():
    version = QuestionVersion(choices=[{"id": 1}, {"id": 3}, {"id": 5}])
    assert moved_choice_order([4, 3, 2, 1], version) == [3, 1, 5]


def test_the_record_keeps_what_each_student_was_shown(two_versions, editor):
    """Two regrades of version 1: the second record still says what version 1 showed."""
    q1, c = two_versions["q1"], two_versions["c"]
    question_correct_choice_change(question=q1, new_correct=c[1], changed_by=editor, versions=[1])

    second = question_correct_choice_change(question=q1, new_correct=c[2], changed_by=editor, versions=[1])

    shown = {row["user"]: (row["version"], row["shown_correct"], row["now_correct"]) for row in second.answers}
    # A chose choice 1: shown right (version 1's key), wrong after the first regrade, still wrong.
    # B chose choice 2: shown wrong, right after the first, wrong now.
    assert shown == {"B": (1, False, False)}
    assert {row["shown_correct_choice"] for row in second.answers} == {c[0].pk}
    assert version_keys(q1)[1] == c[0].pk


# A race, on PostgreSQL ------------------------------------------------------------------------


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="select_for_update is a no-op on SQLite; run with DATABASE_URL=postgres://...",
)
@pytest.mark.django_db(transaction=True)
def test_an_answer_on_a_chosen_version_during_a_regrade_is_on_the_new_one(monkeypatch, content, editor):
    """A student still holding the old version answers while the regrade runs: the answer
    waits for it and is recorded on the version the student was moved to, with its key."""
    gc = Quiz.objects.get(slug=GC)
    q1 = gc.questions.get(position=1)
    old_key, new_key = choices(q1)[:2]
    answered = UserFactory(username="answered-before")
    EnrollmentFactory(user=answered, course=gc.course)
    AnswerFactory(attempt=AttemptFactory(user=answered, quiz=gc, number=1), question=q1, choice=old_key)
    waiting = UserFactory(username="waiting")
    EnrollmentFactory(user=waiting, course=gc.course)
    attempt = AttemptFactory(user=waiting, quiz=gc, number=1)

    release, regrader = _regrade_held(monkeypatch, q1, new_key, editor)
    outcome = {}
    answerer = _in_thread(
        outcome,
        lambda: attempt_answer_submit(
            user=waiting, attempt_id=attempt.pk, question_id=q1.pk, choice_id=new_key.pk, language="en"
        ),
    )
    time.sleep(0.5)
    assert "result" not in outcome and "error" not in outcome  # waiting on the attempt's lock
    release.set()
    regrader.join(10)
    answerer.join(10)

    assert "error" not in outcome, outcome.get("error")
    answer = Answer.objects.select_related("version").get(pk=outcome["result"][0].pk)
    assert (answer.is_correct, answer.version.number, answer.version.correct_choice_id) == (True, 2, new_key.pk)
    assert QuestionVersion.objects.get(question=q1, number=1).correct_choice_id == old_key.pk
    assert Regrade.objects.get().versions == [1]
