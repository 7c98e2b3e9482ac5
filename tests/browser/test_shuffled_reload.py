"""An Urdu student with shuffled choices reloads mid-quiz and sees the same order.

The order of a question's choices is drawn once, when the attempt starts: a reload, the
feedback after answering and the result's review all show that order.
"""

import re

from quizzes.content.shown import localized
from quizzes.models import Attempt, AttemptQuestion, Choice, Quiz
from tests.browser.conftest import expect, login

LANGUAGE = "ur"
SLUG = "gradient-checkpointing"


def shown_radio_values(page) -> list[int]:
    radios = page.locator('main form.question fieldset input[type="radio"][name="choice"]')
    return [int(value) for value in radios.evaluate_all("radios => radios.map(radio => radio.value)")]


def shown_question_id(page) -> int:
    return int(page.locator('main form.question input[type="hidden"][name="question"]').get_attribute("value"))


def urdu_texts(choice_ids: list[int]) -> list[str]:
    choices = Choice.objects.in_bulk(choice_ids)
    return [localized(choices[choice_id], "text", LANGUAGE).text for choice_id in choice_ids]


def answer(page, position: int, choice_id: int) -> None:
    page.locator(f'label[for="choice-{choice_id}"]').click()
    expect(page.locator(f"#choice-{choice_id}")).to_be_checked()
    page.locator('main form.question button[type="submit"]').click()
    page.wait_for_url(re.compile(rf"/{LANGUAGE}/attempts/\d+/questions/{position}/#feedback$"))


def test_an_urdu_student_reloads_and_keeps_the_shuffled_choice_order(page, student):
    quiz = Quiz.objects.get(slug=SLUG)
    quiz.shuffle_choices = True
    quiz.save()
    login(page, LANGUAGE)
    page.goto(f"/{LANGUAGE}/quizzes/{SLUG}/")
    page.locator(f'main form[action="/{LANGUAGE}/quizzes/{SLUG}/start/"] button[type="submit"]').click()
    page.wait_for_url(re.compile(rf"/{LANGUAGE}/attempts/\d+/questions/1/$"))
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    attempt = Attempt.objects.get(user=student, quiz__slug=SLUG)
    stored = {slot.position: slot.choice_order for slot in AttemptQuestion.objects.filter(attempt=attempt)}

    # Question 1, answered with the choice shown first.
    first = shown_radio_values(page)
    assert first == stored[1]
    answer(page, 1, first[0])
    page.locator('main .actions a[href$="/questions/2/"]').click()
    page.wait_for_url(re.compile(rf"/{LANGUAGE}/attempts/{attempt.pk}/questions/2/$"))

    # Question 2, mid-quiz: a reload shows the same order, the attempt's.
    order = shown_radio_values(page)
    question_id = shown_question_id(page)
    assert order == stored[2]
    assert sorted(order) == sorted(Choice.objects.filter(question_id=question_id).values_list("pk", flat=True))
    labels = page.locator("main form.question fieldset .choice label")
    expect(labels).to_have_text(urdu_texts(order))
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", LANGUAGE)
    assert shown_radio_values(page) == order
    expect(labels).to_have_text(urdu_texts(order))

    # Once answered, the feedback lists the choices in that order.
    answer(page, 2, order[-1])
    answered = page.locator("main section.question .choices.answered > .choice > span:not(.mark):not(.tag)")
    expect(answered).to_have_text(urdu_texts(order))
    page.reload()
    expect(answered).to_have_text(urdu_texts(order))

    # The rest of the quiz, then the result's review: question 2's choices in that order too.
    total = len(stored)
    for position in range(3, total + 1):
        page.goto(f"/{LANGUAGE}/attempts/{attempt.pk}/questions/{position}/")
        shown = shown_radio_values(page)
        assert shown == stored[position]
        answer(page, position, shown[0])
    page.locator('main .actions form[action$="/finish/"] button[type="submit"]').click()
    page.wait_for_url(re.compile(rf"/{LANGUAGE}/attempts/{attempt.pk}/result/$"))
    review = page.locator("main ol.review > li").nth(1)
    expect(review.locator(".choices.answered > .choice > span:not(.mark):not(.tag)")).to_have_text(urdu_texts(order))
    expect(review.locator(".choice.chosen")).to_contain_text(urdu_texts(order)[-1])
