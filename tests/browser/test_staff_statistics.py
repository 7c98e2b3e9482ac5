"""The item statistics page in a real browser: an editor logs in through the
admin, reads the report in English and in Urdu, axe-core finds no serious
problem, and the screenshots in artifacts/screenshots/ show the charts."""

import re

import pytest

from quizzes.models import Attempt, Quiz
from tests.browser import admin_login
from tests.browser.conftest import EDITOR_USERNAME, expect, questions_of, screenshot
from tests.browser.test_accessibility import assert_no_serious_violations
from tests.reports.test_item_statistics import seed_attempts

SLUG = "gradient-checkpointing"


@pytest.fixture
def answered_quiz(content) -> Quiz:
    """40 finished attempts in English and 40 in Urdu; question 1 is much harder in Urdu (flagged)."""
    questions = questions_of(SLUG)

    def picks(*, right: set[int]) -> dict:
        chosen = {}
        for position, question in questions.items():
            choices = list(question.choices.all())
            wanted = position in right
            chosen[question] = next(choice for choice in choices if choice.is_correct == wanted)
        return chosen

    everything = set(questions)
    finished = Attempt.State.FINISHED
    seed_attempts(
        Quiz.objects.get(slug=SLUG),
        [
            (30, "en", finished, picks(right=everything), 8),
            (10, "en", finished, picks(right={1, 2, 3}), 3),
            (10, "ur", finished, picks(right=everything), 8),
            (30, "ur", finished, picks(right=everything - {1}), 7),
            (5, "sn", Attempt.State.IN_PROGRESS, {}, None),
        ],
        max_score=8,
    )
    return Quiz.objects.get(slug=SLUG)


@pytest.mark.parametrize("language", ["en", "ur"])
def test_editor_reads_the_statistics(page, editor, answered_quiz, language):
    path = f"/{language}/admin/reports/quizzes/{answered_quiz.pk}/statistics/"
    admin_login(page, EDITOR_USERNAME, language, path)
    expect(page.locator("html")).to_have_attribute("dir", "rtl" if language == "ur" else "ltr")
    summary = page.locator("table.statistics-summary tbody tr")
    expect(summary).to_have_count(8)
    # Question 1: 80 answers, 30 + 10 English and 10 Urdu right: 50 of 80 = 62.5%
    expect(summary.first.locator("td").nth(0)).to_have_text("80")
    expect(summary.first.locator("td").nth(1)).to_have_text(re.compile("62[.,\u066b]5"))
    charts = page.locator("section.question-statistics svg.chart[role=img]")
    expect(charts).to_have_count(8)
    first_chart = charts.first
    expect(first_chart.locator("g.bar")).to_have_count(4)
    expect(first_chart.locator("g.bar.correct text").first).to_contain_text("✓")
    box = first_chart.bounding_box()
    assert box["width"] > 300 and box["height"] > 100, box
    # Urdu: 10 of 40 right vs English 40 of 40 -> flagged, linked to the question's admin page.
    flags = page.locator("ul.translation-flags li")
    expect(flags).to_have_count(1)
    expect(flags.first.locator("a")).to_have_attribute("href", re.compile(rf"/{language}/admin/quizzes/question/\d+/"))
    if language == "ur":
        # Mirrored: the choice labels sit to the right of their bars.
        label = first_chart.locator("g.bar").first.locator("text").first.bounding_box()
        bar = first_chart.locator("g.bar").first.locator("rect").bounding_box()
        assert label["x"] >= bar["x"] + bar["width"] - 1, (label, bar)
    assert_no_serious_violations(page)
    path = screenshot(page, f"staff-statistics-{language}.png")
    # Close-ups to read the flag and the chart at full size.
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(path.with_name(f"staff-statistics-{language}-top.png")))
    page.locator("#question-1").screenshot(path=str(path.with_name(f"staff-statistics-{language}-question-1.png")))


def test_index_lists_the_quizzes(page, editor, answered_quiz):
    admin_login(page, EDITOR_USERNAME, "en", "/en/admin/reports/statistics/")
    link = page.get_by_role("link", name=re.compile("checkpointing", re.IGNORECASE))
    expect(link).to_have_count(1)
    link.click()
    expect(page.locator("table.statistics-summary")).to_be_visible()
    assert_no_serious_violations(page)
