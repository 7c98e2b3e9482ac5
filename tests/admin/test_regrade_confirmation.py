"""The regrade confirmation asks which versions take the new key
(quizzes/admin/regrade_confirmation.py and its template)."""

import re

import pytest

from quizzes.models import Answer, AttemptQuestion, Regrade
from tests.admin.test_safe_edits import confirmed
from tests.admin_forms import admin_url, form_data
from tests.attempts.test_regrade_versions import answered_on_two_versions, choices
from tests.conftest import html_tree
from tests.factories import AnswerFactory, AttemptFactory, EnrollmentFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def data(content):
    return answered_on_two_versions(content["gradient-checkpointing"])


def key_change_post(client, question):
    url = admin_url("quizzes_question_change", question.pk)
    data = form_data(client.get(url).text, "question_form")
    data.pop("choices-0-is_correct")
    data["choices-1-is_correct"] = "on"
    data["_save"] = "Save"
    return url, data


def test_the_page_has_a_ticked_checkbox_and_a_plan_per_version(editor_client, data):
    url, post = key_change_post(editor_client, data["q1"])

    response = editor_client.post(url, post)

    tree = html_tree(response.text)
    boxes = tree.find_all("input", type="checkbox", name="_regrade_versions")
    assert [(box["value"], "checked" in box.attrs) for box in boxes] == [("1", True), ("2", True)]
    for box in boxes:
        assert tree.one("label", **{"for": box["id"]}).text.strip() == f"Version {box['value']}"
    rows = tree.one("table", class_="regrade-version-plan").one("tbody").find_all("tr")
    # Version, answers, regraded, scores that change, attempts in progress moved.
    cells = [[cell.text.strip() for cell in row.find_all("td")[1:]] for row in rows]
    assert cells == [["3", "3", "2", "1"], ["1", "1", "1", "1"]]
    assert "for new attempts only" in " ".join(response.text.split())
    assert not Regrade.objects.exists()


def headline_and_table(response) -> tuple[str, list[list[int]]]:
    """The headline's text, and the table's counts per version: answers, regraded, scores
    that change, attempts in progress moved."""
    tree = html_tree(response.text)
    headline = " ".join(tree.one("p", class_="regrade-counts").text.split())
    rows = tree.one("table", class_="regrade-version-plan").one("tbody").find_all("tr")
    return headline, [[int(cell.text) for cell in row.find_all("td")[1:]] for row in rows]


def assert_headline_totals_table(headline, table):
    """The headline's three numbers are the totals of the table's last three columns."""
    totals = [sum(column) for column in list(zip(*table, strict=True))[1:]]
    assert [int(number) for number in re.findall(r"\d+", headline)] == totals


def test_the_headline_totals_the_table_in_its_units(editor_client, data):
    url, post = key_change_post(editor_client, data["q1"])

    headline, table = headline_and_table(editor_client.post(url, post))

    assert table == [[3, 3, 2, 1], [1, 1, 1, 1]]
    assert headline == (
        "4 answers will be regraded. The scores of 3 finished attempts will change. "
        "2 attempts in progress will move to the new version."
    )
    assert_headline_totals_table(headline, table)


def test_a_students_two_attempts_are_two_scores_in_the_headline_as_in_the_table(editor_client, content):
    """One student's two finished attempts both lose the point: two answers, two scores
    that change (the table's unit), though one student."""
    quiz = content["gradient-checkpointing"]
    q1 = quiz.questions.get(position=1)
    right = choices(q1)[0]
    ann = UserFactory(username="ann")
    EnrollmentFactory(user=ann, course=quiz.course)
    for number in (1, 2):
        attempt = AttemptFactory(user=ann, quiz=quiz, number=number, finished=True, score=1)
        AnswerFactory(attempt=attempt, question=q1, choice=right)
    for name in ("bea", "cy"):  # in progress, Q1 not answered
        AttemptFactory(user=UserFactory(username=name), quiz=quiz, number=1)
    url, post = key_change_post(editor_client, q1)

    headline, table = headline_and_table(editor_client.post(url, post))

    assert table == [[2, 2, 2, 2]]
    assert headline == (
        "2 answers will be regraded. The scores of 2 finished attempts will change. "
        "2 attempts in progress will move to the new version."
    )
    assert_headline_totals_table(headline, table)
    assert not Regrade.objects.exists()


def test_a_post_without_the_version_choice_is_asked_first(editor_client, data):
    url, post = key_change_post(editor_client, data["q1"])
    post["_confirm_regrade"] = "yes"  # not from the page: no version was asked

    response = editor_client.post(url, post)

    assert response.status_code == 200 and "regrade-confirmation" in response.text
    assert not Regrade.objects.exists()


def test_the_versions_ticked_are_regraded(editor_client, data):
    url, post = key_change_post(editor_client, data["q1"])

    response = editor_client.post(url, confirmed(post, versions=["2"]))

    assert response.status_code == 302
    regrade = Regrade.objects.get()
    assert (regrade.versions, regrade.answers_changed) == ([2], 1)
    assert Answer.objects.get(attempt=data["C"]).is_correct is True
    assert Answer.objects.get(attempt=data["A"]).is_correct is True
    assert AttemptQuestion.objects.get(attempt=data["E"], question=data["q1"]).version.number == 3


def test_none_ticked_changes_the_key_for_new_attempts_only(editor_client, data):
    url, post = key_change_post(editor_client, data["q1"])

    response = editor_client.post(url, confirmed(post, versions=[]), follow=True)

    regrade = Regrade.objects.get()
    assert (regrade.versions, regrade.answers_changed) == ([], 0)
    assert "The correct choice changed for new attempts only" in response.text
    assert [answer.is_correct for answer in Answer.objects.filter(question=data["q1"]).order_by("pk")] == [
        True,
        False,
        True,
        False,
    ]


def test_an_unknown_version_shows_the_page_again_with_the_reason(editor_client, data):
    url, post = key_change_post(editor_client, data["q1"])

    response = editor_client.post(url, confirmed(post, versions=["9"]))

    assert response.status_code == 200
    assert html_tree(response.text).one("p", role="alert").text.strip() == (
        "Version 9 is not a version of this question."
    )
    assert not Regrade.objects.exists()
