"""A question's versions in the admin: the list on its page, and what changed between versions
per field and language, old and new side by side, Urdu right to left."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from quizzes.content.versions_diff import Kind, question_version_history, question_versions, version_changes
from quizzes.models import Question, QuestionVersion, Quiz
from tests.admin_forms import admin_url, form_data
from tests.factories import AnswerFactory, AttemptFactory, ChoiceFactory, UserFactory

pytestmark = pytest.mark.django_db

GC = "gradient-checkpointing"


@pytest.fixture
def gc(content) -> Quiz:
    return content[GC]


@pytest.fixture
def q1(gc) -> Question:
    return gc.questions.get(position=1)


@pytest.fixture
def answered(gc, q1, student):
    """q1 answered once (choice 2) in an attempt whose layout holds its version 1."""
    attempt = AttemptFactory(user=student, quiz=gc)
    return AnswerFactory(attempt=attempt, question=q1, choice=q1.choices.get(position=2))


def edit(client, question, **changes):
    url = admin_url("quizzes_question_change", question.pk)
    data = form_data(client.get(url).text, "question_form")
    data.update(changes)
    data["_save"] = "Save"
    response = client.post(url, data)
    assert response.status_code == 302, response.context and response.context["errors"]


def rows(tree, number):
    section = tree.one("section", id=f"version-{number}")
    return [
        (tr["data-field"], tr.get("data-language"), tr.one("td", class_="old"), tr.one("td", class_="new"))
        for tr in section.find_all("tr", class_="change")
    ]


def plain(cell) -> str:
    """A cell's text as it reads (the word marks inside it add no space)."""
    return " ".join("".join(cell.element.itertext()).split())


def test_editing_an_answered_question_makes_version_2_and_the_page_shows_the_change(
    editor_client, q1, answered, parse_html
):
    old_text, old_urdu = q1.text_en, q1.text_ur
    old_choice = q1.choices.get(position=2).text_en

    edit(
        editor_client,
        q1,
        text_en="What does gradient checkpointing trade?",
        text_ur="گریڈینٹ چیک پوائنٹنگ کس چیز کا سودا کرتی ہے؟",
        **{"choices-1-text_en": "Less memory, same time"},
    )

    assert list(q1.versions.order_by("number").values_list("number", flat=True)) == [1, 2]
    assert answered.version.number == 1  # the answer keeps the version it was given to
    tree = parse_html(editor_client.get(admin_url("quizzes_question_versions", q1.pk)))
    changes = rows(tree, 2)
    english = next(change for change in changes if change[:2] == ("text", "en"))
    assert plain(english[2]) == old_text and plain(english[3]) == "What does gradient checkpointing trade?"
    # The words that changed are marked; the ones kept are not.
    added = [mark.text for mark in english[3].find_all("ins")]
    removed = [mark.text for mark in english[2].find_all("del")]
    assert "primarily" in removed and "What" not in removed and "trade" not in removed and not added
    urdu = next(change for change in changes if change[:2] == ("text", "ur"))
    assert plain(urdu[2]) == old_urdu and plain(urdu[3]) == "گریڈینٹ چیک پوائنٹنگ کس چیز کا سودا کرتی ہے؟"
    assert (urdu[3]["lang"], urdu[3]["dir"]) == ("ur", "rtl")
    assert (english[3]["lang"], english[3]["dir"]) == ("en", "ltr")
    choice = next(change for change in changes if change[:2] == ("choice", "en"))
    assert (plain(choice[2]), plain(choice[3])) == (old_choice, "Less memory, same time")
    assert {field for field, *_rest in changes} == {"text", "choice"}  # nothing else changed
    assert "The first version." in tree.one("section", id="version-1").text
    assert "current" in tree.one("section", id="version-2").one("h2").text


def test_the_versions_page_in_urdu(editor_client, q1, answered, parse_html):
    edit(editor_client, q1, text_ur="نیا متن")

    tree = parse_html(editor_client.get(admin_url("quizzes_question_versions", q1.pk, language="ur")))

    assert tree.one("html")["dir"] == "rtl"
    ((field, language, _old, new),) = rows(tree, 2)
    assert (field, language, new.text, new["lang"], new["dir"]) == ("text", "ur", "نیا متن", "ur", "rtl")


def test_editing_an_unanswered_question_keeps_one_version(editor_client, gc, parse_html):
    question = gc.questions.get(position=2)

    edit(editor_client, question, text_en="A question nobody was shown, reworded?")

    ((version),) = question.versions.all()
    assert version.number == 1 and version.texts["text_en"] == "A question nobody was shown, reworded?"
    tree = parse_html(editor_client.get(admin_url("quizzes_question_change", question.pk)))
    (row,) = tree.one("table", class_="question-versions").find_all("tr", class_="version")
    assert row.one("td", class_="answer-count").text == "0"
    assert row.one("td", class_="is-current").text == "current"


def test_the_question_page_lists_versions_with_their_answers(editor_client, gc, q1, answered, parse_html):
    edit(editor_client, q1, explanation_en="A new explanation.")
    other = UserFactory(username="student-9")
    AnswerFactory(attempt=AttemptFactory(user=other, quiz=gc), question=q1, choice=q1.choices.get(position=1))

    tree = parse_html(editor_client.get(admin_url("quizzes_question_change", q1.pk)))

    table = tree.one("table", class_="question-versions")
    listed = [
        (tr["data-version"], tr.one("td", class_="answer-count").text, tr.one("td", class_="is-current").text)
        for tr in table.find_all("tr", class_="version")
    ]
    assert listed == [("1", "1", ""), ("2", "1", "current")]
    assert tree.find("a", href=admin_url("quizzes_question_versions", q1.pk)) is not None


def test_the_answers_of_every_version_come_from_one_query(q1, answered):
    with CaptureQueriesContext(connection) as queries:
        versions = list(question_versions(question_id=q1.pk))
    assert len(queries) == 1
    assert [(version.number, version.answer_count) for version in versions] == [(1, 1)]


def _version(number, choices, correct, **texts):
    base = {"text_en": "Q?", "text_ur": "", "text_sn": "", "text_ind": "", "explanation_en": "E."}
    base |= {"explanation_ur": "", "explanation_sn": "", "explanation_ind": ""}
    return QuestionVersion(number=number, texts=base | texts, choices=choices, correct_choice_id=correct, revisions={})


def _choice(id_, position, text_en, **texts):
    return {"id": id_, "position": position, "text_en": text_en, "text_ur": "", "text_sn": "", "text_ind": ""} | texts


def test_choices_added_removed_moved_changed_and_the_key():
    old = _version(1, [_choice(1, 1, "A"), _choice(2, 2, "B", text_ur="ب"), _choice(3, 3, "C")], correct=1)
    new = _version(
        2,
        [_choice(1, 1, "A"), _choice(3, 2, "C"), _choice(2, 3, "B", text_ur="بی"), _choice(4, 4, "D", text_sn="D!")],
        correct=4,
        explanation_sn="Tsananguro.",
    )
    old.choices.pop(1)
    old.choices.insert(1, _choice(2, 2, "B", text_ur="ب"))

    changes = {(c.field, c.kind, c.language, c.position, c.old, c.new) for c in version_changes(old, new)}

    assert changes == {
        ("explanation", Kind.CHANGED, "sn", None, "", "Tsananguro."),
        ("choice", Kind.MOVED, None, 2, "3", "2"),
        ("choice", Kind.MOVED, None, 3, "2", "3"),
        ("choice", Kind.CHANGED, "ur", 3, "ب", "بی"),
        ("choice", Kind.ADDED, "en", 4, "", "D"),
        ("choice", Kind.ADDED, "sn", 4, "", "D!"),
        ("correct_choice", Kind.CHANGED, None, None, "1. A", "4. D"),
    }
    removed = version_changes(new, _version(3, [_choice(1, 1, "A"), _choice(4, 2, "D")], correct=4))
    assert {(c.field, c.kind, c.language, c.old) for c in removed if c.kind == Kind.REMOVED} == {
        ("choice", Kind.REMOVED, "en", "C"),
        ("choice", Kind.REMOVED, "en", "B"),
        ("choice", Kind.REMOVED, "ur", "بی"),
    }


def test_a_choice_added_and_the_key_moved_to_it_on_the_page(editor_client, q1, answered, parse_html):
    ChoiceFactory(question=q1, position=5, text_en="None of these")

    (latest, *_older) = question_version_history(question_id=q1.pk)

    assert latest.version.number == 2 and latest.is_current
    assert [(c.field, c.kind, c.language, c.new) for c in latest.changes] == [
        ("choice", Kind.ADDED, "en", "None of these")
    ]
    tree = parse_html(editor_client.get(admin_url("quizzes_question_versions", q1.pk)))
    assert "Choice 5 (added)" in tree.one("section", id="version-2").text


def test_whoever_may_view_the_question_may_view_its_versions(client, teacher, q1, student):
    client.force_login(teacher)
    assert client.get(admin_url("quizzes_question_versions", q1.pk)).status_code == 200

    client.force_login(UserFactory(username="plain-staff", is_staff=True))
    assert client.get(admin_url("quizzes_question_versions", q1.pk)).status_code == 403

    client.force_login(student)
    response = client.get(admin_url("quizzes_question_versions", q1.pk))
    assert response.status_code == 302 and "/login/" in response["Location"]
