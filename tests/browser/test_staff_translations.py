"""An editor, in English and in Urdu, finds a stale translation, reads the quiz's
translation status, and changes an answered question's key through the confirmation."""

import re

import pytest
from django.conf import settings
from django.utils import translation

from quizzes.attempts.services import attempt_answer_submit, attempt_finish, attempt_start
from quizzes.models import Attempt, Choice, Question, Quiz, Regrade
from tests.browser import admin_login
from tests.browser.conftest import EDITOR_USERNAME, expect, screenshot
from tests.browser.test_accessibility import FAILING_IMPACTS, axe_violations, describe

SLUG = "gradient-checkpointing"


@pytest.fixture
def stale_question(content, student):
    """Question 1: its English reworded after the Urdu and Shona were written; answered once, right."""
    question = Question.objects.get(quiz__slug=SLUG, position=1)
    question.text_en = "What does gradient checkpointing mainly trade to save memory?"
    question.save()
    attempt, _created = attempt_start(user=student, quiz=question.quiz)
    right = question.choices.get(is_correct=True)
    attempt_answer_submit(
        user=attempt.user, attempt_id=attempt.pk, question_id=question.pk, choice_id=right.pk, language="ur"
    )
    attempt_finish(attempt=attempt)
    return question


def _jquery_ui_tab(target: str) -> bool:
    return target.startswith('li[aria-controls="tab_id_') or target.startswith(".ui-")


def assert_no_serious_violations(page) -> None:
    """axe-core's serious and critical violations, less one that is jQuery UI's, not ours.

    modeltranslation's language tabs are jQuery UI tabs: a ``role="tab"`` item
    holding its link with ``tabindex="-1"`` (out of the tab order; the item
    takes the keyboard). axe flags that link as a control nested in a control.
    """
    serious = []
    for violation in axe_violations(page):
        if violation["impact"] not in FAILING_IMPACTS:
            continue
        if violation["id"] == "nested-interactive":
            violation["nodes"] = [node for node in violation["nodes"] if not _jquery_ui_tab(node["target"])]
            if not violation["nodes"]:
                continue
        serious.append(violation)
    assert not serious, f"axe found serious or critical violations on {page.url}:\n{describe(serious)}"


@pytest.mark.parametrize("language", ["en", "ur"])
def test_editor_sees_stale_translation_and_regrades(page, language, editor, stale_question):
    question = stale_question
    quiz = Quiz.objects.get(slug=SLUG)
    admin_login(page, EDITOR_USERNAME, language)

    # The question page marks the stale Urdu and Shona texts.
    page.goto(f"/{language}/admin/quizzes/question/{question.pk}/change/")
    expect(page.locator("html")).to_have_attribute("lang", language)
    expect(page.locator("html")).to_have_attribute("dir", "rtl" if language == "ur" else "ltr")
    expect(page.locator('textarea[name="text_ur"]')).to_have_class(re.compile(r"\btranslation-stale\b"))
    expect(page.locator('textarea[name="text_sn"]')).to_have_class(re.compile(r"\btranslation-stale\b"))
    expect(page.locator('textarea[name="explanation_ur"]')).not_to_have_class(re.compile("translation-stale"))
    status = page.locator("dl.translation-status")
    expect(status.locator("dd.translation-stale")).to_have_count(2)
    # Open the Urdu tab of the question text (modeltranslation's tabs), where the stale input is.
    panel = page.locator('textarea[name="text_ur"]').evaluate("el => el.closest('.ui-tabs-panel').id")
    page.locator(f'a[href="#{panel}"]').click()
    expect(page.locator('textarea[name="text_ur"]')).to_be_visible()
    # The tabs are named by language, in the editor's language ("IND" was modeltranslation's).
    tabs = page.locator(".ui-tabs-nav").first.locator("li a")
    with translation.override(language):
        names = [str(name) for _code, name in settings.LANGUAGES]
    expect(tabs).to_have_text(names)
    assert_no_serious_violations(page)
    screenshot(page, f"staff-translation-{language}.png")

    # The quiz's translation status page counts it.
    page.goto(f"/{language}/admin/quizzes/quiz/{quiz.pk}/translations/")
    expect(page.locator("#summary-ur .count-stale")).to_have_text("1")
    expect(page.locator("#summary-sn .count-stale")).to_have_text("1")
    expect(page.locator("#summary-ur .count-translated")).to_have_text("19 (38%)")
    assert_no_serious_violations(page)
    screenshot(page, f"staff-translation-status-{language}.png")
    page.locator("#language-ur ul.stale a").first.click()
    page.wait_for_url(re.compile(rf"/{language}/admin/quizzes/question/{question.pk}/change/$"))

    # Changing the correct choice asks first, then regrades.
    choices = list(question.choices.order_by("position"))
    page.locator('input[name="choices-0-is_correct"]').uncheck()
    page.locator('input[name="choices-1-is_correct"]').check()
    page.locator('input[name="_save"]').click()
    expect(page.locator(".regrade-summary")).to_be_visible()
    expect(page.locator(".regrade-counts")).to_contain_text("1")
    assert [choice.is_correct for choice in Choice.objects.filter(question=question).order_by("position")] == [
        True,
        False,
        False,
        False,
    ]
    assert_no_serious_violations(page)
    screenshot(page, f"staff-regrade-confirmation-{language}.png")
    page.locator('#content form input[type="submit"].default').click()
    page.wait_for_url(re.compile(rf"/{language}/admin/quizzes/question/(\?.*)?$"))
    expect(page.locator(".messagelist a[href*='/regrade/']")).to_have_count(1)

    assert [choice.is_correct for choice in Choice.objects.filter(question=question).order_by("position")] == [
        False,
        True,
        False,
        False,
    ]
    regrade = Regrade.objects.get()
    assert (regrade.old_correct_choice_id, regrade.new_correct_choice_id) == (choices[0].pk, choices[1].pk)
    assert Attempt.objects.get(user__username="browser-student").score == 0
