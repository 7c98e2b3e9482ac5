"""The question and quiz change pages offer the translation memory's suggestions for
each translation input, never the field's own translation, in a bounded number of queries;
the status block names each field's state per language."""

import pytest

from quizzes.content.translation_status import Status, translations_stamp
from tests.admin_forms import admin_url
from tests.conftest import html_tree
from tests.factories import ChoiceFactory, QuestionFactory, QuizFactory

pytestmark = pytest.mark.django_db

ENGLISH = "What does gradient checkpointing trade to save memory?"


def stamped(obj, state=Status.TRANSLATED, **columns):
    for name, value in columns.items():
        setattr(obj, name, value)
    translations_stamp(obj, state=state)
    obj.save()
    return obj


def blocks(html) -> dict[tuple[str, str, str], list]:
    """(input, choice, column) -> the suggestion items of that block."""
    tree = html_tree(html)
    return {
        (block.get("data-input"), block.get("data-choice"), block.get("data-column")): block.find_all("li")
        for block in tree.find_all("div", class_="tm-suggestions")
    }


def test_question_page_suggests_for_its_fields_and_choices(editor_client):
    stamped(QuestionFactory(text_en=ENGLISH), Status.REVIEWED, text_ur="یادداشت کا سودا")
    stamped(ChoiceFactory(text_en="Compute for memory"), text_ur="حساب بمقابلہ یادداشت")
    edited = stamped(QuestionFactory(text_en=ENGLISH), text_ur="اپنا ترجمہ")
    choice = ChoiceFactory(question=edited, text_en="Compute for memory")

    html = editor_client.get(admin_url("quizzes_question_change", edited.pk)).text
    found = blocks(html)

    (item,) = found[("text_ur", "", "")]
    assert item.one("button", class_="tm-use")["data-value"] == "یادداشت کا سودا"
    assert item.one("button", class_="tm-use").text == "Use this"
    assert item.one("span", class_="tm-score").text == "100% match"
    assert item.one("span", class_="tm-state").text == "reviewed"
    assert "اپنا ترجمہ" not in html.split('class="translation-memory"')[1].split("</fieldset>")[0]
    (choice_item,) = found[("", str(choice.pk), "text_ur")]
    assert choice_item.one("button", class_="tm-use")["data-value"] == "حساب بمقابلہ یادداشت"
    assert "quizzes/translation-memory.js" in html


def test_question_page_queries_do_not_grow_with_the_memory(editor_client, django_assert_max_num_queries):
    edited = QuestionFactory(text_en=ENGLISH)
    ChoiceFactory.create_batch(4, question=edited)
    url = admin_url("quizzes_question_change", edited.pk)
    editor_client.get(url)
    with django_assert_max_num_queries(200) as few:
        editor_client.get(url)
    for n in range(20):
        stamped(QuestionFactory(text_en=f"{ENGLISH} {n}"), text_ur=f"ترجمہ {n}", text_sn=f"Shanduro {n}")
        stamped(ChoiceFactory(text_en=f"Compute {n}"), text_ur=f"حساب {n}")
    with django_assert_max_num_queries(len(few.captured_queries)):
        html = editor_client.get(url).text
    assert "ترجمہ 1" in html


def test_quiz_page_suggests_for_its_title(editor_client):
    stamped(QuizFactory(title_en="Gradient checkpointing"), title_sn="Kuchengetedza gradient")
    quiz = QuizFactory(title_en="Gradient checkpointing")
    html = editor_client.get(admin_url("quizzes_quiz_change", quiz.pk)).text
    (item,) = blocks(html)[("title_sn", "", "")]
    assert item.one("button", class_="tm-use")["data-value"] == "Kuchengetedza gradient"


def test_page_without_anything_alike_says_so(editor_client):
    question = QuestionFactory(text_en="Nothing else looks like this sentence at all.")
    html = editor_client.get(admin_url("quizzes_question_change", question.pk, language="ur")).text
    assert blocks(html) == {}
    assert "tm-suggestions" not in html


def test_status_block_names_each_fields_state(editor_client):
    question = stamped(QuestionFactory(text_en=ENGLISH), Status.REVIEWED, text_ur="جانچا ہوا")
    question.explanation_ur = "مشینی"
    translations_stamp(question, columns=["explanation_ur"], state=Status.MACHINE)
    question.save()
    choice = stamped(ChoiceFactory(question=question, position=1, text_en="A"), text_ur="پہلا", text_sn="A")
    choice.text_en = "Changed"
    choice.save()

    html = editor_client.get(admin_url("quizzes_question_change", question.pk)).text
    block = html_tree(html).one("dl", class_="translation-status")
    urdu = block.find_all("dd")[0]
    assert urdu.one(class_="state-reviewed").text == "reviewed: text"
    assert urdu.one(class_="state-machine").text == "machine translation: explanation"
    assert urdu.one(class_="state-stale").text == "stale: choice 1"
    shona = block.find_all("dd")[1]
    assert shona.one(class_="state-missing").text == "missing (shown in English): text, explanation"
    assert shona.one(class_="state-stale").text == "stale: choice 1"
