"""Each feedback timing in a real browser, in English and in Urdu: what the quiz page promises,
what an answered question shows, and what the result shows once the attempt is finished.

A one-question attempt (``questions_per_attempt``), answered wrong by clicking, as a student
would: where the timing withholds the feedback, the page says the answer is saved and when
it will say more, and shows nothing of the key (no verdict, no right choice, no explanation).
"""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext, override

from quizzes.models import Attempt, AttemptQuestion, Choice, FeedbackTiming, Quiz
from quizzes.web.timing import ANSWER_WITHHELD, FEEDBACK_TIMING, RESULT_WITHHELD
from tests.browser.conftest import expect, login

SLUG = "gradient-checkpointing"
DIRECTION = {"en": "ltr", "ur": "rtl"}


def said(message, language: str) -> str:
    """``message`` (lazy or a msgid) in ``language``, whitespace collapsed as a page shows it."""
    with override(language):
        return " ".join((str(message) if isinstance(message, Promise) else gettext(message)).split())


def assert_key_hidden(scope) -> None:
    expect(scope.locator(".choice.right")).to_have_count(0)
    expect(scope.locator(".verdict")).to_have_count(0)
    expect(scope.locator(".explanation")).to_have_count(0)
    expect(scope.locator(".choice .mark")).to_have_text([""] * scope.locator(".choice .mark").count())


@pytest.mark.parametrize("language", ["en", "ur"])
@pytest.mark.parametrize("feedback_timing", [timing.value for timing in FeedbackTiming])
def test_each_feedback_timing(page, student, language, feedback_timing):
    quiz = Quiz.objects.get(slug=SLUG)
    quiz.feedback_timing = feedback_timing
    quiz.questions_per_attempt = 1
    quiz.closes_at = timezone.now() + timedelta(days=1)
    quiz.save()
    login(page, language)

    page.goto(f"/{language}/quizzes/{SLUG}/")
    expect(page.locator("html")).to_have_attribute("dir", DIRECTION[language])
    expect(page.locator("main p.help")).to_have_text(said(FEEDBACK_TIMING[feedback_timing], language))
    page.locator(f'main form[action="/{language}/quizzes/{SLUG}/start/"] button[type="submit"]').click()
    page.wait_for_url(re.compile(rf"/{language}/attempts/\d+/questions/1/$"))

    attempt = Attempt.objects.get(user=student, quiz=quiz)
    slot = AttemptQuestion.objects.get(attempt=attempt)
    wrong = Choice.objects.filter(question_id=slot.question_id, is_correct=False).order_by("position").first()
    page.locator(f'label[for="choice-{wrong.pk}"]').click()
    page.locator('main form.question button[type="submit"]').click()
    page.wait_for_url(re.compile(rf"/{language}/attempts/{attempt.pk}/questions/1/#feedback$"))

    section = page.locator("main section.question")
    expect(section.locator(".choice.chosen .tag")).to_have_text(said("your answer", language))
    if feedback_timing == FeedbackTiming.IMMEDIATELY:
        expect(section.locator(".feedback.incorrect .verdict")).to_be_visible()
        expect(section.locator(".choice.right")).to_have_count(1)
        expect(section.locator(".explanation")).to_be_visible()
    else:
        expect(section.locator(".feedback .withheld")).to_have_text(said(ANSWER_WITHHELD[feedback_timing], language))
        assert_key_hidden(section)

    section.get_by_role("button").click()  # the only question: see the result
    page.wait_for_url(re.compile(rf"/{language}/attempts/{attempt.pk}/result/$"))
    expect(page.locator("main #score")).to_be_visible()  # the score, whatever the timing
    review = page.locator("main ol.review")
    if feedback_timing in (FeedbackTiming.IMMEDIATELY, FeedbackTiming.AFTER_ATTEMPT):
        expect(review.locator(".verdict")).to_be_visible()
        expect(review.locator(".choice.right")).to_have_count(1)
        expect(review.locator(".explanation")).to_be_visible()
        expect(page.locator("main p.withheld")).to_have_count(0)
    else:
        expect(page.locator("main p.withheld")).to_have_text(said(RESULT_WITHHELD[feedback_timing], language))
        expect(review.locator(".choice.chosen .tag")).to_have_text(said("your answer", language))
        assert_key_hidden(review)
