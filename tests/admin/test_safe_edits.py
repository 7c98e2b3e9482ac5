"""Safe edits: changing an answered question's key asks, then regrades in one
transaction and logs; answered content is archived, never deleted."""

import threading
import time

import pytest
from django.db import connection
from rest_framework.test import APIClient

from quizzes.accounts.roles import TEACHERS, staff_groups_ensure
from quizzes.admin.content_forms import ARCHIVED_CHOICE_CORRECT
from quizzes.attempts.regrade import question_correct_choice_change
from quizzes.attempts.services import attempt_answer_submit, attempt_finish, attempt_start
from quizzes.content.archive import ArchiveError, choice_archive, questions_archive
from quizzes.content.problems import content_problems
from quizzes.content.selectors import quiz_content_queryset
from quizzes.models import Answer, Attempt, Choice, Question, Quiz, Regrade
from tests.admin_forms import admin_url, form_data
from tests.conftest import html_tree
from tests.factories import AnswerFactory, AttemptFactory, EnrollmentFactory, UserFactory

pytestmark = pytest.mark.django_db

GC = "gradient-checkpointing"


@pytest.fixture
def gc(content) -> Quiz:
    return content[GC]


@pytest.fixture
def q1(gc) -> Question:
    return gc.questions.get(position=1)


def choices(question) -> list[Choice]:
    return list(question.choices.order_by("position"))


def correct_choice(question, correct: bool = True) -> Choice:
    return question.choices.get(is_correct=correct) if correct else question.choices.filter(is_correct=False)[0]


@pytest.fixture
def graded(gc, q1):
    """Five attempts with a known pattern; Q1's key is choice 1, Q2's is its correct choice.

    A (ann, finished)   Q1 -> choice 1 (right), Q2 right   score 2
    B (ben, finished)   Q1 -> choice 2 (wrong), Q2 wrong   score 0
    C (cat, finished)   Q1 -> choice 3 (wrong), Q2 right   score 1
    D (dan, in progress) Q1 -> choice 1 (right)
    E (cat, finished, attempt 2) no Q1 answer, Q2 right    score 1
    """
    q2 = gc.questions.get(position=2)
    c = choices(q1)
    assert c[0].is_correct and not c[1].is_correct
    q2_right, q2_wrong = correct_choice(q2), correct_choice(q2, False)
    users = {name: UserFactory(username=name) for name in ("ann", "ben", "cat", "dan")}
    for user in users.values():
        EnrollmentFactory(user=user, course=gc.course)

    def attempt(name, number, score, answers):
        finished = score is not None
        made = AttemptFactory(user=users[name], quiz=gc, number=number, max_score=8, pass_mark=25, finished=finished)
        if finished:
            made.score = score
            made.save()
        for question, choice in answers:
            AnswerFactory(attempt=made, question=question, choice=choice)
        return made

    return {
        "A": attempt("ann", 1, 2, [(q1, c[0]), (q2, q2_right)]),
        "B": attempt("ben", 1, 0, [(q1, c[1]), (q2, q2_wrong)]),
        "C": attempt("cat", 1, 1, [(q1, c[2]), (q2, q2_right)]),
        "D": attempt("dan", 1, None, [(q1, c[0])]),
        "E": attempt("cat", 2, 1, [(q2, q2_right)]),
    }


def scores(graded) -> dict[str, int | None]:
    return {key: Attempt.objects.get(pk=attempt.pk).score for key, attempt in graded.items()}


def q1_answer_flags(graded) -> dict[str, bool]:
    return {
        key: answer.is_correct
        for key, attempt in graded.items()
        for answer in Answer.objects.filter(attempt=attempt, question__position=1)
    }


def snapshot(q1, graded):
    return (
        [(choice.pk, choice.is_correct) for choice in choices(q1)],
        q1_answer_flags(graded),
        scores(graded),
        Regrade.objects.count(),
    )


def question_post_data(client, question, **changes):
    url = admin_url("quizzes_question_change", question.pk)
    data = form_data(client.get(url).text, "question_form")
    data.update(changes)
    data["_save"] = "Save"
    return url, data


def confirmed(data, versions=("1",)):
    """``data`` as the confirmation page posts it back, with ``versions`` ticked."""
    return {**data, "_confirm_regrade": "yes", "_regrade_versions_shown": "yes", "_regrade_versions": list(versions)}


def make_choice_2_correct(client, question, **extra):
    url, data = question_post_data(client, question, **extra)
    data.pop("choices-0-is_correct")
    data["choices-1-is_correct"] = "on"
    return url, data


# Regrade through the admin ---------------------------------------------------------------


def test_changing_the_key_of_an_answered_question_asks_first(editor_client, q1, graded):
    before = snapshot(q1, graded)
    url, data = make_choice_2_correct(editor_client, q1, text_en="Edited on the same page?")

    response = editor_client.post(url, data)

    assert response.status_code == 200
    assert "regrade-confirmation" in response.text
    counts = " ".join(html_tree(response.text).one("p", class_="regrade-counts").text.split())
    assert counts == (
        "3 answers will be regraded. The scores of 2 finished attempts will change. "
        "0 attempts in progress will move to the new version."
    )
    assert "1 of these answers is in an attempt still in progress" in response.text
    assert snapshot(q1, graded) == before
    q1.refresh_from_db()
    assert q1.text_en != "Edited on the same page?"  # the question form was rolled back too
    # The confirmation carries the whole form, and a cancel link that changes nothing.
    tree = html_tree(response.text)
    form = tree.find_all("form")[-1]
    hidden = {node["name"]: node["value"] for node in form.find_all("input", type="hidden")}
    assert hidden["_confirm_regrade"] == "yes"
    assert hidden["text_en"] == "Edited on the same page?"
    assert hidden["choices-1-is_correct"] == "on" and "choices-0-is_correct" not in hidden
    assert tree.one("a", class_="button cancel-link")["href"] == url


def test_confirming_regrades_every_answer_and_score(editor_client, editor, q1, graded):
    url, data = make_choice_2_correct(editor_client, q1, text_en="Edited on the same page?")
    old, new = choices(q1)[0], choices(q1)[1]

    response = editor_client.post(url, confirmed(data))

    assert response.status_code == 302, response.context and response.context.get("errors")
    assert [choice.is_correct for choice in choices(q1)] == [False, True, False, False]
    q1.refresh_from_db()
    assert q1.text_en == "Edited on the same page?"
    assert q1_answer_flags(graded) == {"A": False, "B": True, "C": False, "D": False}
    # A lost Q1 (2 -> 1), B gained it (0 -> 1), C and E unchanged, D not finished.
    assert scores(graded) == {"A": 1, "B": 1, "C": 1, "D": None, "E": 1}
    assert Attempt.objects.get(pk=graded["A"].pk).max_score == 8
    assert Attempt.objects.get(pk=graded["A"].pk).pass_mark == 25

    regrade = Regrade.objects.get()
    assert (regrade.question_id, regrade.old_correct_choice_id, regrade.new_correct_choice_id) == (
        q1.pk,
        old.pk,
        new.pk,
    )
    assert regrade.changed_by == editor
    assert (regrade.answers_changed, regrade.attempts_regraded, regrade.students_affected) == (3, 2, 2)
    shown = {row["user"]: (row["shown_correct"], row["now_correct"]) for row in regrade.answers}
    assert shown == {"ann": (True, False), "ben": (False, True), "dan": (True, False)}
    assert sorted((row["user"], row["old_score"], row["new_score"]) for row in regrade.attempts) == [
        ("ann", 2, 1),
        ("ben", 0, 1),
    ]
    # The record is readable, not editable.
    page = editor_client.get(admin_url("quizzes_regrade_change", regrade.pk))
    assert page.status_code == 200 and 'name="_save"' not in page.text
    assert editor_client.post(admin_url("quizzes_regrade_delete", regrade.pk), {"post": "yes"}).status_code == 403


def test_finishing_the_in_progress_attempt_after_a_regrade_uses_the_new_key(editor_client, q1, graded):
    url, data = make_choice_2_correct(editor_client, q1)
    editor_client.post(url, confirmed(data))

    finished = attempt_finish(attempt=graded["D"])

    assert finished.score == 0  # D chose choice 1, no longer correct


def test_the_api_grade_follows_the_new_key_and_the_feedback_stays_as_shown(editor_client, q1, graded):
    url, data = make_choice_2_correct(editor_client, q1)
    editor_client.post(url, confirmed(data))
    api = APIClient()
    api.force_authenticate(graded["A"].user)

    body = api.get(f"/api/v1/attempts/{graded['A'].pk}/").json()

    feedback = next(answer for answer in body["answers"] if answer["question"] == q1.pk)
    assert feedback["correct"] is False and feedback["regraded"] is True
    assert feedback["correct_choice"] == choices(q1)[0].pk  # the key the student was shown
    assert body["score"] == 1


def test_the_review_says_a_regrade_changed_the_grade_since_the_feedback(editor_client, q1, graded, client):
    url, data = make_choice_2_correct(editor_client, q1)
    editor_client.post(url, confirmed(data))
    client.force_login(graded["A"].user)

    page = client.get(f"/en/attempts/{graded['A'].pk}/result/").content.decode()

    # The key as shown (choice 1, which this student chose) and the grade now, explained.
    assert page.count("your answer now counts as wrong") == 1
    assert "your answer now counts as right" not in page


def test_a_question_nobody_answered_changes_key_without_asking(editor_client, gc):
    q3 = gc.questions.get(position=3)
    url, data = question_post_data(editor_client, q3)
    for index in range(4):
        data.pop(f"choices-{index}-is_correct", None)
    data["choices-3-is_correct"] = "on"

    response = editor_client.post(url, data)

    assert response.status_code == 302
    assert [choice.is_correct for choice in choices(q3)] == [False, False, False, True]
    assert not Regrade.objects.exists()


def test_editing_an_answered_question_without_changing_the_key_does_not_ask(editor_client, q1, graded):
    before = snapshot(q1, graded)
    url, data = question_post_data(editor_client, q1, text_en="Only the wording changed?")

    assert editor_client.post(url, data).status_code == 302
    assert snapshot(q1, graded) == before


def test_teachers_can_not_regrade(client, q1, graded):
    teacher = UserFactory(username="teacher-1", is_staff=True)
    teacher.groups.add(staff_groups_ensure()[TEACHERS])
    client.force_login(teacher)
    before = snapshot(q1, graded)
    url = admin_url("quizzes_question_change", q1.pk)
    page = client.get(url)
    assert page.status_code == 200 and 'name="_save"' not in page.text  # view only

    data = form_data(page.text, "question_form")
    data.update({"choices-1-is_correct": "on", "_confirm_regrade": "yes", "_save": "Save"})
    data.pop("choices-0-is_correct", None)

    assert client.post(url, data).status_code == 403
    assert snapshot(q1, graded) == before
    # Teachers read the regrade log (they read attempts).
    assert client.get(admin_url("quizzes_regrade_changelist")).status_code == 200


# The service ---------------------------------------------------------------------------------


def test_a_failure_midway_leaves_everything_unchanged(monkeypatch, q1, graded, editor):
    before = snapshot(q1, graded)

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(Regrade.objects, "create", broken)  # after the flags, answers and scores
    with pytest.raises(RuntimeError):
        question_correct_choice_change(question=q1, new_correct=choices(q1)[1], changed_by=editor)

    assert snapshot(q1, graded) == before


def test_a_new_choice_can_become_the_key(q1, graded, editor):
    added = Choice(question=q1, position=5, text_en="A new right answer")

    regrade = question_correct_choice_change(question=q1, new_correct=added, changed_by=editor)

    assert added.pk is not None
    assert [choice.is_correct for choice in choices(q1)] == [False, False, False, False, True]
    assert q1_answer_flags(graded) == {"A": False, "B": False, "C": False, "D": False}
    assert scores(graded) == {"A": 1, "B": 0, "C": 1, "D": None, "E": 1}
    assert regrade.new_correct_choice_id == added.pk


def test_the_same_key_again_changes_nothing(q1, graded, editor):
    before = snapshot(q1, graded)
    assert question_correct_choice_change(question=q1, new_correct=choices(q1)[0], changed_by=editor) is None
    assert snapshot(q1, graded) == before


# Deleting answered content -------------------------------------------------------------------


def test_deleting_an_answered_question_is_refused_with_the_reason(editor_client, q1, graded):
    url = admin_url("quizzes_question_delete", q1.pk)

    page = editor_client.get(url)
    posted = editor_client.post(url, {"post": "yes"})

    for response in (page, posted):
        assert response.status_code == 200
        assert "Students have answered this question" in response.text
        # 4 answers to Q1 (A, B, C, D) in 4 attempts by 4 students.
        assert "On record: 4 answers in 4 attempts by 4 students." in " ".join(response.text.split())
    archive = html_tree(page.text).one("form", action=admin_url("quizzes_question_archive", q1.pk))
    assert archive.one("input", type="submit")["value"] == "Archive instead"
    assert Question.objects.filter(pk=q1.pk).exists()
    assert Answer.objects.filter(question=q1).count() == 4


def test_deleting_in_bulk_is_refused_too(editor_client, gc, q1, graded):
    response = editor_client.post(
        admin_url("quizzes_question_changelist"),
        {"action": "delete_selected", "_selected_action": [q1.pk, gc.questions.get(position=3).pk], "post": "yes"},
        follow=True,
    )

    assert "can&#x27;t be deleted" in response.text or "can't be deleted" in response.text
    assert gc.questions.count() == 8


def test_a_question_nobody_answered_can_be_deleted(editor_client, gc):
    q3 = gc.questions.get(position=3)
    response = editor_client.post(admin_url("quizzes_question_delete", q3.pk), {"post": "yes"})
    assert response.status_code == 302
    assert not Question.objects.filter(pk=q3.pk).exists()


def test_deleting_a_quiz_with_attempts_is_refused(editor_client, gc, graded):
    response = editor_client.post(admin_url("quizzes_quiz_delete", gc.pk), {"post": "yes"})

    assert response.status_code == 200
    assert "Students have attempted this quiz" in response.text
    assert "On record: 8 answers in 5 attempts by 4 students." in " ".join(response.text.split())
    assert Quiz.objects.filter(pk=gc.pk).exists()


def test_deleting_an_answered_question_on_the_quiz_page_is_a_form_error(editor_client, gc, q1, graded):
    url = admin_url("quizzes_quiz_change", gc.pk)
    data = form_data(editor_client.get(url).text, "quiz_form")
    data["questions-0-DELETE"] = "on"
    data["_save"] = "Save"

    response = editor_client.post(url, data)

    assert response.status_code == 200
    assert "Question 1 can&#x27;t be deleted: students have given 4 answers to it" in response.text
    assert "protected related objects" not in response.text
    assert gc.questions.count() == 8


def test_deleting_an_answered_choice_is_a_form_error(editor_client, q1, graded):
    url, data = question_post_data(editor_client, q1)
    data["choices-2-DELETE"] = "on"  # choice 3: C chose it

    response = editor_client.post(url, data)

    assert response.status_code == 200
    assert "Choice 3 can&#x27;t be deleted: a student chose it" in response.text
    assert "protected related objects" not in response.text
    assert q1.choices.count() == 4


# Archiving ------------------------------------------------------------------------------------------


def test_archive_instead_keeps_the_answers_and_leaves_new_attempts_out(editor_client, gc, q1, graded, student):
    response = editor_client.post(admin_url("quizzes_question_archive", q1.pk))

    assert response.status_code == 302
    q1.refresh_from_db()
    assert q1.is_archived
    assert Answer.objects.filter(question=q1).count() == 4
    assert scores(graded) == {"A": 2, "B": 0, "C": 1, "D": None, "E": 1}
    attempt, created = attempt_start(user=student, quiz=gc)
    assert created and attempt.max_score == 7
    api = APIClient()
    api.force_authenticate(student)
    ids = [question["id"] for question in api.get(f"/api/v1/quizzes/{GC}/").json()["questions"]]
    assert len(ids) == 7 and q1.pk not in ids


def test_archive_needs_post_and_change_permission(client, editor_client, q1):
    assert editor_client.get(admin_url("quizzes_question_archive", q1.pk)).status_code == 405
    teacher = UserFactory(username="teacher-2", is_staff=True)
    teacher.groups.add(staff_groups_ensure()[TEACHERS])
    client.force_login(teacher)
    assert client.post(admin_url("quizzes_question_archive", q1.pk)).status_code == 403
    q1.refresh_from_db()
    assert not q1.is_archived


def test_archive_and_unarchive_actions(editor_client, gc):
    q7, q8 = gc.questions.get(position=7), gc.questions.get(position=8)
    changelist = admin_url("quizzes_question_changelist")

    editor_client.post(changelist, {"action": "archive_questions", "_selected_action": [q7.pk, q8.pk]})
    assert list(gc.questions.filter(is_archived=True).order_by("position")) == [q7, q8]
    archived = editor_client.get(changelist, {"is_archived__exact": "1"}).context["cl"].result_list
    assert list(archived) == [q7, q8]

    editor_client.post(changelist, {"action": "unarchive_questions", "_selected_action": [q8.pk]})
    assert list(gc.questions.filter(is_archived=True)) == [q7]


def test_the_correct_choice_can_not_be_archived(editor_client, q1):
    with pytest.raises(ArchiveError):
        choice_archive(choice=choices(q1)[0])
    url, data = question_post_data(editor_client, q1)
    data["choices-0-is_archived"] = "on"

    response = editor_client.post(url, data)

    assert response.status_code == 200
    assert str(ARCHIVED_CHOICE_CORRECT % {"position": 1}).replace("'", "&#x27;") in response.text
    assert not choices(q1)[0].is_archived


def test_one_correct_choice_among_those_offered(editor_client, q1):
    assert choice_archive(choice=choices(q1)[3]) is True
    # Choices 1 (correct), 2, 3 offered; archived choice 4 may not be the key either.
    url, data = question_post_data(editor_client, q1)
    data.pop("choices-0-is_correct")
    data["choices-3-is_correct"] = "on"
    response = editor_client.post(url, data)
    assert response.status_code == 200
    assert [choice.is_correct for choice in choices(q1)] == [True, False, False, False]

    assert choice_archive(choice=choices(q1)[2]) is True
    assert choice_archive(choice=choices(q1)[1]) is True
    found = content_problems(quiz_content_queryset().filter(pk=q1.quiz_id))
    assert [(problem.question, problem.code) for problem in found] == [(1, "too_few_choices")]


def test_archived_questions_have_no_content_problems(gc):
    q2 = gc.questions.get(position=2)
    Choice.objects.filter(question=q2).update(is_correct=False)
    assert [p.code for p in content_problems(quiz_content_queryset().filter(pk=gc.pk))] == ["no_correct_choice"]

    questions_archive(questions=[q2])

    assert content_problems(quiz_content_queryset().filter(pk=gc.pk)) == []


# A race, on PostgreSQL --------------------------------------------------------------------------------


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="select_for_update is a no-op on SQLite; run with DATABASE_URL=postgres://...",
)
@pytest.mark.django_db(transaction=True)
def test_a_finish_waits_for_a_regrade_in_flight(monkeypatch, content, editor):
    gc = Quiz.objects.get(slug=GC)
    q1 = gc.questions.get(position=1)
    user = UserFactory(username="racer")
    EnrollmentFactory(user=user, course=gc.course)
    attempt = AttemptFactory(user=user, quiz=gc, number=1, max_score=8, pass_mark=70)
    AnswerFactory(attempt=attempt, question=q1, choice=choices(q1)[0])  # right under the old key

    release, regrader = _regrade_held(monkeypatch, q1, choices(q1)[1], editor)
    outcome = {}
    finisher = _in_thread(outcome, lambda: attempt_finish(attempt=attempt))
    time.sleep(0.5)
    assert "result" not in outcome and "error" not in outcome  # blocked on the attempt's lock
    released_at = time.monotonic()
    release.set()
    regrader.join(10)
    finisher.join(10)

    assert "error" not in outcome, outcome.get("error")
    assert outcome["at"] >= released_at
    assert outcome["result"].score == 0  # graded with the new key
    assert Attempt.objects.get(pk=attempt.pk).score == 0
    assert Regrade.objects.get().answers_changed == 1


def _regrade_held(monkeypatch, question, new_correct, editor):
    """Start a regrade in a thread and hold it after its locks and writes, before COMMIT.

    Returns (release, join): set ``release`` to let it commit.
    """
    holding, release = threading.Event(), threading.Event()
    real_create = Regrade.objects.create

    def slow_create(**kwargs):
        holding.set()
        assert release.wait(10)
        return real_create(**kwargs)

    monkeypatch.setattr(Regrade.objects, "create", slow_create)

    def regrade():
        try:
            question_correct_choice_change(question=question, new_correct=new_correct, changed_by=editor)
        finally:
            connection.close()

    regrader = threading.Thread(target=regrade)
    regrader.start()
    assert holding.wait(10)
    return release, regrader


def _in_thread(outcome: dict, work):
    def run():
        try:
            outcome["result"] = work()
            outcome["at"] = time.monotonic()
        except Exception as error:  # reported by the assertions below
            outcome["error"] = error
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="select_for_update is a no-op on SQLite; run with DATABASE_URL=postgres://...",
)
@pytest.mark.django_db(transaction=True)
def test_an_answer_during_a_regrade_waits_and_is_graded_with_the_new_key(monkeypatch, content, editor):
    """An answer waits for the regrade and is graded with the committed key: the attempt,
    started on the old version, is moved to the new one before the answer's INSERT reads it."""
    gc = Quiz.objects.get(slug=GC)
    q1 = gc.questions.get(position=1)
    old_key, new_key = choices(q1)[0], choices(q1)[1]
    answered = UserFactory(username="answered-before")
    EnrollmentFactory(user=answered, course=gc.course)
    AnswerFactory(attempt=AttemptFactory(user=answered, quiz=gc, number=1), question=q1, choice=old_key)
    racer = UserFactory(username="racer")
    EnrollmentFactory(user=racer, course=gc.course)
    attempt, _new = attempt_start(user=racer, quiz=gc)

    release, regrader = _regrade_held(monkeypatch, q1, new_key, editor)
    outcome = {}
    answerer = _in_thread(
        outcome,
        lambda: attempt_answer_submit(
            user=racer, attempt_id=attempt.pk, question_id=q1.pk, choice_id=new_key.pk, language="ur"
        ),
    )
    time.sleep(0.5)
    assert "result" not in outcome and "error" not in outcome  # waiting on the attempt's lock
    released_at = time.monotonic()
    release.set()
    regrader.join(10)
    answerer.join(10)

    assert "error" not in outcome, outcome.get("error")
    answer, created = outcome["result"]
    assert created and outcome["at"] >= released_at
    assert answer.is_correct is True  # the new key
    assert Answer.objects.get(pk=answer.pk).is_correct is True


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="select_for_update is a no-op on SQLite; run with DATABASE_URL=postgres://...",
)
@pytest.mark.django_db(transaction=True)
def test_no_attempt_starts_while_a_regrade_is_in_flight(monkeypatch, content, editor):
    """An attempt started during the regrade would escape its locks: the quiz lock holds starts back."""
    gc = Quiz.objects.get(slug=GC)
    q1 = gc.questions.get(position=1)
    answered = UserFactory(username="answered-before")
    EnrollmentFactory(user=answered, course=gc.course)
    AnswerFactory(attempt=AttemptFactory(user=answered, quiz=gc, number=1), question=q1, choice=choices(q1)[0])
    late = UserFactory(username="late-starter")
    EnrollmentFactory(user=late, course=gc.course)

    release, regrader = _regrade_held(monkeypatch, q1, choices(q1)[1], editor)
    outcome = {}
    starter = _in_thread(outcome, lambda: attempt_start(user=late, quiz=gc))
    time.sleep(0.5)
    assert "result" not in outcome and "error" not in outcome  # waiting on the quiz's lock
    released_at = time.monotonic()
    release.set()
    regrader.join(10)
    starter.join(10)

    assert "error" not in outcome, outcome.get("error")
    assert outcome["result"][1] is True and outcome["at"] >= released_at
