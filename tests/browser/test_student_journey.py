"""A student takes a whole quiz in the browser, in each language of each seed file.

The texts on screen must be exactly the seed file's lines; the UI strings are
translated (and still being translated), so the checks use roles, ids,
classes and lang/dir attributes, never English UI words.
"""

import re

import pytest

from quizzes.content.languages import LocalizedText
from quizzes.content.seedformat import ParsedQuestion, ParsedQuiz, parse
from quizzes.content.shown import localized
from quizzes.models import Attempt, Course, Quiz
from tests.browser.conftest import (
    COURSE_SLUG,
    expect,
    fonts_ready,
    login,
    questions_of,
    screenshot,
    seed_path,
)

# (page language, quiz slug, seed file prefix, questions whose text is shown in English)
JOURNEYS = [
    pytest.param("ur", "gradient-checkpointing", "000", {3, 4, 6, 7, 8}, id="ur"),
    pytest.param("sn", "gradient-checkpointing", "001", {3, 4, 6, 7, 8}, id="sn"),
    pytest.param("id", "activation-recomputation-tradeoffs", "002", {3, 4, 7, 8}, id="id"),
    pytest.param("en", "activation-recomputation-tradeoffs", "003", set(), id="en"),
]
RIGHT_TO_LEFT = {"ur"}


# Checks ---------------------------------------------------------------------------


def assert_page_language(page, language: str) -> None:
    html = page.locator("html")
    expect(html).to_have_attribute("lang", language)
    expect(html).to_have_attribute("dir", "rtl" if language in RIGHT_TO_LEFT else "ltr")


def assert_language_marked(locator, text: LocalizedText, page_language: str) -> bool:
    """English shown in place of a translation says so (lang="en" dir="ltr", on it or on the row it
    is in); returns whether it did."""
    shown = locator.evaluate(
        """element => ({
            effective: element.closest("[lang]").getAttribute("lang"),
            dir: element.closest("[dir]").getAttribute("dir"),
            direction: getComputedStyle(element).direction,
        })"""
    )
    if text.is_fallback:
        assert (shown["effective"], shown["dir"], shown["direction"]) == ("en", "ltr", "ltr"), (text.text, shown)
    else:
        expected_direction = "rtl" if page_language in RIGHT_TO_LEFT else "ltr"
        assert (shown["effective"], shown["direction"]) == (page_language, expected_direction), (text.text, shown)
    return text.is_fallback


def assert_assets_loaded(page, language: str) -> None:
    """The stylesheet applied, and in Urdu the Nastaliq web font loaded (requests are also watched)."""
    fonts_ready(page)
    sheets = page.evaluate("() => [...document.styleSheets].map(s => [s.href || '', s.cssRules.length])")
    assert any(href.endswith("/static/quizzes/site.css") and rules > 0 for href, rules in sheets), sheets
    if language == "ur":
        faces = page.evaluate("() => [...document.fonts].map(f => [f.family.replaceAll('\"', ''), f.status])")
        assert ["Noto Nastaliq Urdu", "loaded"] in faces, faces


def numbers_in(text: str) -> list[int]:
    return [int(number) for number in re.findall(r"\d+", text)]


# Steps ------------------------------------------------------------------------------


def open_quiz_from_dashboard(page, language: str, slug: str, seed: ParsedQuiz) -> None:
    quiz = Quiz.objects.get(slug=slug)
    title, description = localized(quiz, "title", language), localized(quiz, "description", language)
    link = page.locator(f'main a[href="/{language}/quizzes/{slug}/"]')
    expect(link).to_have_text(seed.title)
    assert_language_marked(link, title, language)
    link.click()
    page.wait_for_url(f"**/{language}/quizzes/{slug}/")
    assert_page_language(page, language)
    expect(page.locator("main h1")).to_have_text(seed.title)
    assert_language_marked(page.locator("main h1"), title, language)
    expect(page.locator("main .lead")).to_have_text(seed.description)
    assert_language_marked(page.locator("main .lead"), description, language)


def start_attempt(page, language: str, slug: str) -> None:
    page.locator(f'main form[action="/{language}/quizzes/{slug}/start/"] button[type="submit"]').click()
    page.wait_for_url(re.compile(rf"/{language}/attempts/\d+/questions/1/$"))


def assert_question_shown(
    page, language: str, position: int, total: int, seed_question: ParsedQuestion, question
) -> bool:
    """The unanswered question: the seed's text and choices, marked when English; returns whether in English."""
    expect(page).to_have_url(re.compile(rf"/{language}/attempts/\d+/questions/{position}/$"))
    assert_page_language(page, language)
    progress = page.locator("#quiz-progress")
    expect(progress).to_have_attribute("value", str(position - 1))
    expect(progress).to_have_attribute("max", str(total))

    text = page.locator("main form.question fieldset legend .question-text")
    expect(text).to_have_text(seed_question.text)
    labels = page.locator("main form.question fieldset .choice label")
    expect(labels).to_have_text([choice.text for choice in seed_question.choices])
    # Every label belongs to its radio button, in the same order as the answer key.
    for label, choice in zip(labels.all(), question.choices.all(), strict=True):
        assert label.get_attribute("for") == f"choice-{choice.pk}"
        expect(page.locator(f'input[type="radio"][name="choice"]#choice-{choice.pk}')).not_to_be_checked()
        assert_language_marked(label, localized(choice, "text", language), language)
    return assert_language_marked(text, localized(question, "text", language), language)


def choose_and_submit(page, language: str, position: int, choice) -> None:
    page.locator(f'label[for="choice-{choice.pk}"]').click()
    expect(page.locator(f"#choice-{choice.pk}")).to_be_checked()
    page.locator('main form.question button[type="submit"]').click()
    page.wait_for_url(re.compile(rf"/{language}/attempts/\d+/questions/{position}/#feedback$"))


def assert_feedback_shown(page, language: str, seed_question: ParsedQuestion, question, choice) -> None:
    """The answered question: right or wrong at once, and why."""
    right = next(c for c in question.choices.all() if c.is_correct)
    feedback = page.locator("#feedback")
    expect(feedback).to_be_visible()
    expect(feedback).to_have_attribute("role", "status")
    verdict, other = ("correct", "incorrect") if choice.is_correct else ("incorrect", "correct")
    expect(feedback).to_have_class(re.compile(rf"(^|\s){verdict}(\s|$)"))
    expect(feedback).not_to_have_class(re.compile(rf"(^|\s){other}(\s|$)"))
    explanation = localized(question, "explanation", language)
    if explanation.text:
        expect(feedback.locator(".explanation")).to_have_text(explanation.text)
        assert_language_marked(feedback.locator(".explanation"), explanation, language)
    # The answered question still shows the seed's texts, with the chosen and the right choice marked.
    expect(page.locator("main section.question .question-text")).to_have_text(seed_question.text)
    shown_choices = page.locator("main section.question .choices.answered > .choice")
    expect(shown_choices).to_have_count(len(seed_question.choices))
    texts = {c.pk: seed_question.choices[index].text for index, c in enumerate(question.choices.all())}
    expect(page.locator("main section.question .choice.chosen")).to_have_count(1)
    expect(page.locator("main section.question .choice.chosen")).to_contain_text(texts[choice.pk])
    expect(page.locator("main section.question .choice.right")).to_have_count(1)
    expect(page.locator("main section.question .choice.right")).to_contain_text(texts[right.pk])


def go_on(page, language: str, position: int, total: int) -> None:
    """After the feedback: the next question, or the result."""
    if position < total:
        page.locator(f'main .actions a[href$="/questions/{position + 1}/"]').click()
        page.wait_for_url(re.compile(rf"/{language}/attempts/\d+/questions/{position + 1}/$"))
    else:
        page.locator('main .actions form[action$="/finish/"] button[type="submit"]').click()
        page.wait_for_url(re.compile(rf"/{language}/attempts/\d+/result/$"))


def assert_resumes(page, language: str, slug: str, seed: ParsedQuiz, position: int, chosen_text: str) -> None:
    """A reload and a visit to the dashboard lose nothing; "continue" goes to the first unanswered question."""
    page.reload()
    assert_page_language(page, language)
    expect(page.locator("#feedback")).to_be_visible()
    expect(page.locator("main section.question .choice.chosen")).to_contain_text(chosen_text)

    page.goto(f"/{language}/")
    assert_page_language(page, language)
    attempt = Attempt.objects.get(quiz__slug=slug, state=Attempt.State.IN_PROGRESS)
    resume = page.locator("main .resume a")
    expect(resume).to_have_attribute("href", f"/{language}/attempts/{attempt.pk}/")
    expect(resume.locator("span")).to_have_text(seed.title)
    resume.click()
    page.wait_for_url(re.compile(rf"/{language}/attempts/{attempt.pk}/questions/{position + 1}/$"))
    expect(page.locator("#quiz-progress")).to_have_attribute("value", str(position))


def assert_result(page, seed: ParsedQuiz, score: int, total: int, passed: bool) -> None:
    result = page.locator("main section.result")
    expect(result).to_have_class(re.compile(r"(^|\s)passed(\s|$)" if passed else r"(^|\s)failed(\s|$)"))
    score_text = page.locator("#score").inner_text()
    numbers = numbers_in(score_text)
    assert score in numbers and total in numbers and score * 100 // total in numbers, score_text
    review = page.locator("main ol.review > li")
    expect(review).to_have_count(total)
    expect(review.locator(".question-text")).to_have_text([question.text for question in seed.questions])
    expect(review.locator(".choice.chosen")).to_have_count(total)
    expect(review.locator(".choice.chosen.right")).to_have_count(score)


def assert_course_progress(page, language: str, slug: str, passed: int) -> None:
    page.locator(f'main .result .actions a[href="/{language}/"]').click()
    page.wait_for_url(re.compile(rf"/{language}/$"))
    assert_page_language(page, language)
    course = Course.objects.get(slug=COURSE_SLUG)
    progress = page.locator(f"#progress-{course.pk}")
    expect(progress).to_have_attribute("max", str(course.quizzes.count()))
    expect(progress).to_have_attribute("value", str(passed))
    expect(page.locator(f'label[for="progress-{course.pk}"]')).to_be_visible()


# The journey --------------------------------------------------------------------------


@pytest.mark.parametrize(("language", "slug", "seed_prefix", "shown_in_english"), JOURNEYS)
def test_student_takes_the_whole_quiz(page, student, language, slug, seed_prefix, shown_in_english):
    seed = parse(seed_path(seed_prefix).read_bytes())
    key = questions_of(slug)
    total = len(seed.questions)
    assert total == len(key) == 8

    login(page, language)
    assert_page_language(page, language)
    open_quiz_from_dashboard(page, language, slug, seed)
    start_attempt(page, language, slug)

    # First attempt: right on odd questions, wrong on even ones.
    english_questions = set()
    for position, seed_question in enumerate(seed.questions, start=1):
        question = key[position]
        if assert_question_shown(page, language, position, total, seed_question, question):
            english_questions.add(position)
        if position == 1:
            assert_assets_loaded(page, language)
            screenshot(page, f"{language}-question.png")
        choices = list(question.choices.all())
        choice = next(c for c in choices if c.is_correct == (position % 2 == 1))
        choose_and_submit(page, language, position, choice)
        assert_feedback_shown(page, language, seed_question, question, choice)
        if position == 1:
            screenshot(page, f"{language}-feedback.png")
        if position == 3:
            chosen_text = seed_question.choices[choices.index(choice)].text
            assert_resumes(page, language, slug, seed, position, chosen_text)
        else:
            go_on(page, language, position, total)
    assert english_questions == shown_in_english

    assert_page_language(page, language)
    assert_result(page, seed, score=4, total=total, passed=False)
    assert_course_progress(page, language, slug, passed=0)  # 4/8 = 50% < pass mark 70%

    # Second attempt: every answer right; the quiz counts as passed on the dashboard.
    open_quiz_from_dashboard(page, language, slug, seed)
    start_attempt(page, language, slug)
    for position, seed_question in enumerate(seed.questions, start=1):
        question = key[position]
        expect(page.locator("main form.question legend .question-text")).to_have_text(seed_question.text)
        choice = next(c for c in question.choices.all() if c.is_correct)
        choose_and_submit(page, language, position, choice)
        expect(page.locator("#feedback")).to_have_class(re.compile(r"(^|\s)correct(\s|$)"))
        go_on(page, language, position, total)
    assert_result(page, seed, score=total, total=total, passed=True)
    assert_course_progress(page, language, slug, passed=1)

    first, second = Attempt.objects.filter(user=student, quiz__slug=slug).order_by("number")
    assert (first.state, first.score, first.max_score) == (Attempt.State.FINISHED, 4, 8)
    assert (second.state, second.score) == (Attempt.State.FINISHED, 8)
    for attempt in (first, second):
        answers = list(attempt.answers.select_related("question", "choice"))
        assert len(answers) == 8
        assert {answer.language for answer in answers} == {language}
    assert [answer.is_correct for answer in first.answers.order_by("question__position")] == [True, False] * 4
