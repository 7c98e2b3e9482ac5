"""The attempt's admin page shows what its student saw: the layout's order, each question as its
version showed it in the answer's language, the choices in the attempt's order, the choice made,
right or wrong, the explanation shown; and the gradebook leads there."""

import pytest
from django.urls import reverse

from quizzes.models import AttemptQuestion, Question, Quiz
from tests.admin_forms import admin_url, form_data
from tests.factories import AnswerFactory, AttemptFactory

pytestmark = pytest.mark.django_db

GC = "gradient-checkpointing"


@pytest.fixture
def gc(content) -> Quiz:
    return content[GC]


@pytest.fixture
def shuffled(gc, student):
    """An attempt asking questions 2, 1, 3 in that order, question 1's choices reversed;
    question 1 answered in Urdu (wrong), question 2 in English (right), question 3 unanswered."""
    attempt = AttemptFactory(user=student, quiz=gc, layout=False, max_score=3)
    questions = {q.position: q for q in Question.objects.filter(quiz=gc, position__in=(1, 2, 3))}
    for place, position in enumerate((2, 1, 3), start=1):
        question = questions[position]
        version = question.versions.get()
        order = [choice["id"] for choice in version.choices]
        AttemptQuestion.objects.create(
            attempt=attempt,
            position=place,
            question=question,
            version=version,
            choice_order=order[::-1] if position == 1 else order,
        )
    q1, q2 = questions[1], questions[2]
    AnswerFactory(attempt=attempt, question=q1, choice=q1.choices.get(is_correct=False, position=2), language="ur")
    AnswerFactory(attempt=attempt, question=q2, choice=q2.choices.get(is_correct=True))
    return attempt, questions


def seen(tree):
    return tree.one("ol", class_="attempt-seen").find_all("li", class_="seen-question")


def test_the_attempt_page_shows_the_layout_as_the_student_saw_it(editor_client, shuffled, parse_html):
    attempt, questions = shuffled
    q1, q2, q3 = questions[1], questions[2], questions[3]

    tree = parse_html(editor_client.get(admin_url("quizzes_attempt_change", attempt.pk)))

    shown = seen(tree)
    assert [int(item["data-question"]) for item in shown] == [q2.pk, q1.pk, q3.pk]
    second = shown[1]
    assert "version 1" in second.text and "answered in Urdu" in second.text and "✗ wrong" in second.text
    content = second.one("div", class_="seen-content")
    assert (content["lang"], content["dir"]) == ("ur", "rtl")
    assert content.one("p", class_="seen-text").text == q1.text_ur
    choices = content.find_all("li", class_="seen-choice")
    reversed_texts = [c.text_ur or c.text_en for c in q1.choices.order_by("-position")]
    assert [item.find("span").text for item in choices] == reversed_texts
    chosen = [item for item in choices if "chosen" in item.classes]
    assert [item.find("span").text for item in chosen] == [q1.choices.get(position=2).text_ur]
    assert [item.find("span").text for item in choices if "correct" in item.classes] == [
        q1.choices.get(is_correct=True).text_ur
    ]
    assert content.one("p", class_="seen-explanation").text == q1.explanation_ur

    first = shown[0]
    assert "✓ right" in first.text and "answered in English" in first.text
    assert first.one("p", class_="seen-explanation").text == q2.explanation_en

    third = shown[2]
    assert "not answered" in third.text
    assert third.find("p", class_="seen-explanation") is None
    assert third.one("p", class_="seen-text").text == q3.text_en


def test_an_edit_after_the_answer_leaves_the_attempt_page_as_it_was(editor_client, shuffled, parse_html):
    attempt, questions = shuffled
    q1 = questions[1]
    old_urdu = q1.text_ur
    url = admin_url("quizzes_question_change", q1.pk)
    data = form_data(editor_client.get(url).text, "question_form")
    data.update(text_ur="بدلا ہوا سوال", text_en="A reworded question?", _save="Save")
    assert editor_client.post(url, data).status_code == 302
    assert q1.versions.count() == 2

    tree = parse_html(editor_client.get(admin_url("quizzes_attempt_change", attempt.pk)))

    shown = seen(tree)[1]
    assert shown.one("p", class_="seen-text").text == old_urdu
    assert "version 1" in shown.text
    assert "A reworded question?" not in tree.text and "بدلا ہوا سوال" not in tree.text


def test_english_shown_in_place_of_a_missing_translation_is_marked(editor_client, gc, student, parse_html):
    question = gc.questions.get(position=3)  # not translated into Urdu
    assert not question.text_ur
    attempt = AttemptFactory(user=student, quiz=gc)
    AnswerFactory(attempt=attempt, question=question, choice=question.choices.get(is_correct=True), language="ur")

    tree = parse_html(editor_client.get(admin_url("quizzes_attempt_change", attempt.pk)))

    item = next(item for item in seen(tree) if item["data-question"] == str(question.pk))
    text = item.one("p", class_="seen-text").one("strong")
    assert (text["lang"], text["dir"], text.text) == ("en", "ltr", question.text_en)


def test_teachers_read_the_attempt_page_in_their_language(client, teacher, shuffled, parse_html):
    attempt, _questions = shuffled
    client.force_login(teacher)

    response = client.get(admin_url("quizzes_attempt_change", attempt.pk, language="ur"))

    assert response.status_code == 200
    tree = parse_html(response)
    assert tree.one("html")["dir"] == "rtl"
    assert len(seen(tree)) == 3


def test_the_gradebook_leads_to_the_attempt_page(client, teacher, shuffled, parse_html):
    attempt, _questions = shuffled
    client.force_login(teacher)

    tree = parse_html(client.get(reverse("staff:gradebook", args=[attempt.quiz.course.slug]) + "?unpublished=on"))

    link = tree.one("a", class_="attempt-count")
    assert link["href"] == reverse("admin:quizzes_attempt_change", args=[attempt.pk])
    page = parse_html(client.get(link["href"]))
    assert len(seen(page)) == 3


def test_several_attempts_lead_to_their_list_whose_rows_open_each_page(client, teacher, gc, student, parse_html):
    first = AttemptFactory(user=student, quiz=gc, number=1, finished=True)
    AttemptFactory(user=student, quiz=gc, number=2)
    client.force_login(teacher)

    tree = parse_html(client.get(reverse("staff:gradebook", args=[gc.course.slug])))

    cell = next(a for a in tree.find_all("a", class_="attempt-count") if a.text == "2 attempts")
    listed = client.get(cell["href"])
    assert listed.status_code == 200
    change_url = reverse("admin:quizzes_attempt_change", args=[first.pk])
    assert change_url in listed.text
    assert client.get(change_url).status_code == 200
