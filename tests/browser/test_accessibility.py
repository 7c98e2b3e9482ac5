"""Accessibility: axe-core on every student page, the keyboard alone, and no JavaScript.

axe-core is vendored in tests/browser/vendor/ (npm package axe-core, MPL-2.0)
so that the tests need no network. Only "serious" and "critical" violations
fail a test; the message lists each rule and the elements it flagged.
"""

import re

import pytest

from quizzes.attempts.services import attempt_answer_submit, attempt_finish, attempt_start
from quizzes.models import Answer, Attempt, Quiz
from tests.browser.conftest import AXE_JS, STUDENT_USERNAME, expect, fonts_ready, login, questions_of
from tests.factories import DEFAULT_PASSWORD

SLUG = "gradient-checkpointing"
OTHER_SLUG = "activation-recomputation-tradeoffs"
FAILING_IMPACTS = {"serious", "critical"}
# The question whose text Urdu shows in English, so that the page mixes both.
QUESTION = 3


# Axe ------------------------------------------------------------------------------------


def axe_violations(page) -> list[dict]:
    fonts_ready(page)  # colour contrast and overlap checks need the final layout
    # Evaluated by the test, not loaded by the page: the page's CSP admits no script of ours.
    page.evaluate(AXE_JS.read_text(encoding="utf-8"))
    return page.evaluate(
        """async () => {
            const results = await axe.run(document, {resultTypes: ["violations"]});
            return results.violations.map(violation => ({
                id: violation.id,
                impact: violation.impact,
                help: violation.help,
                nodes: violation.nodes.map(node => ({target: node.target.join(" "), summary: node.failureSummary})),
            }));
        }"""
    )


def describe(violations: list[dict]) -> str:
    lines = []
    for violation in violations:
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']}")
        lines += [f"    {node['target']}: {(node['summary'] or '').splitlines()[-1:]}" for node in violation["nodes"]]
    return "\n".join(lines)


def assert_no_serious_violations(page) -> None:
    violations = axe_violations(page)
    serious = [violation for violation in violations if violation["impact"] in FAILING_IMPACTS]
    assert not serious, f"axe found serious or critical violations on {page.url}:\n{describe(serious)}"


# States -----------------------------------------------------------------------------------


def answer(attempt: Attempt, position: int, *, right: bool, language: str) -> None:
    question = questions_of(attempt.quiz.slug)[position]
    choice = next(choice for choice in question.choices.all() if choice.is_correct == right)
    attempt_answer_submit(
        user=attempt.user, attempt_id=attempt.pk, question_id=question.pk, choice_id=choice.pk, language=language
    )


def attempt_in_progress(student, language: str, *, answered: int) -> Attempt:
    """An attempt at the seed quiz with its first ``answered`` questions answered (right, wrong, ...)."""
    attempt, _created = attempt_start(user=student, quiz=Quiz.objects.get(slug=SLUG))
    for position in range(1, answered + 1):
        answer(attempt, position, right=position % 2 == 1, language=language)
    return attempt


def page_url(state: str, student, language: str) -> str:
    """Put the student's records in the state the page shows; its URL."""
    if state == "dashboard":
        # One quiz attempted and failed, the other in progress: badges, progress bar and "continue".
        finished = attempt_in_progress(student, language, answered=8)
        attempt_finish(attempt=finished)
        attempt_start(user=student, quiz=Quiz.objects.get(slug=OTHER_SLUG))
        return f"/{language}/"
    if state == "quiz":
        finished = attempt_in_progress(student, language, answered=8)
        attempt_finish(attempt=finished)
        return f"/{language}/quizzes/{SLUG}/"
    if state == "question":
        attempt = attempt_in_progress(student, language, answered=QUESTION - 1)
        return f"/{language}/attempts/{attempt.pk}/questions/{QUESTION}/"
    if state == "feedback":
        attempt = attempt_in_progress(student, language, answered=QUESTION)
        return f"/{language}/attempts/{attempt.pk}/questions/{QUESTION}/#feedback"
    if state == "result":
        attempt = attempt_in_progress(student, language, answered=8)
        attempt_finish(attempt=attempt)
        return f"/{language}/attempts/{attempt.pk}/result/"
    raise AssertionError(state)


@pytest.mark.parametrize("language", ["en", "ur"])
@pytest.mark.parametrize("state", ["dashboard", "quiz", "question", "feedback", "result"])
def test_no_serious_axe_violations(page, student, language, state):
    url = page_url(state, student, language)
    login(page, language)
    page.goto(url)
    expect(page.locator("html")).to_have_attribute("lang", language)
    if state == "question":
        expect(page.locator("main form.question fieldset input[type=radio]")).to_have_count(4)
    if state == "feedback":
        expect(page.locator("#feedback[role=status]")).to_be_visible()
    assert_no_serious_violations(page)


@pytest.mark.parametrize("language", ["en", "ur"])
def test_login_page_has_no_serious_axe_violations(page, content, language):
    page.goto(f"/{language}/accounts/login/")
    assert_no_serious_violations(page)


# The keyboard alone --------------------------------------------------------------------------

FOCUSED = """() => {
    const element = document.activeElement;
    const label = element && element.id ? document.querySelector(`label[for="${element.id}"]`) : null;
    return {
        tag: element ? element.tagName.toLowerCase() : null,
        type: element ? element.getAttribute("type") : null,
        id: element ? element.id : null,
        name: element ? element.getAttribute("name") : null,
        checked: element ? Boolean(element.checked) : false,
        href: element ? element.getAttribute("href") : null,
        formAction: element && element.form ? element.form.getAttribute("action") : null,
        outline: element ? getComputedStyle(element).outlineStyle : null,
        labelOutline: label ? getComputedStyle(label).outlineStyle : null,
    };
}"""


def focused(page) -> dict:
    return page.evaluate(FOCUSED)


def tab_to(page, matches, *, limit: int = 25) -> dict:
    """Press Tab until the focused element ``matches``; fail after ``limit`` presses."""
    seen = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        element = focused(page)
        if matches(element):
            return element
        seen.append(element["id"] or element["href"] or element["tag"])
    raise AssertionError(f"Tab never reached the element; focus went through {seen}")


@pytest.mark.parametrize("language", ["en", "ur"])
def test_answer_a_question_with_the_keyboard_alone(page, student, language):
    # Log in: Tab to the username field, type, Tab, type, Enter.
    page.goto(f"/{language}/accounts/login/")
    tab_to(page, lambda element: element["id"] == "id_username")
    page.keyboard.type(STUDENT_USERNAME)
    page.keyboard.press("Tab")
    assert focused(page)["id"] == "id_password"
    page.keyboard.type(DEFAULT_PASSWORD)
    with page.expect_navigation(url=re.compile(rf"/{language}/$")):
        page.keyboard.press("Enter")

    # Start the quiz from its page.
    page.goto(f"/{language}/quizzes/{SLUG}/")
    tab_to(page, lambda element: element["tag"] == "button" and (element["formAction"] or "").endswith("/start/"))
    with page.expect_navigation(url=re.compile(rf"/{language}/attempts/\d+/questions/1/$")):
        page.keyboard.press("Enter")

    # Tab into the choices: the first radio button has the focus, and it shows.
    question = questions_of(SLUG)[1]
    choices = list(question.choices.all())
    radio = tab_to(page, lambda element: element["type"] == "radio")
    assert radio["id"] == f"choice-{choices[0].pk}", radio
    assert radio["outline"] != "none" and radio["labelOutline"] != "none", radio

    # ArrowDown moves to the second choice and selects it; the focus still shows.
    page.keyboard.press("ArrowDown")
    radio = focused(page)
    assert (radio["id"], radio["checked"]) == (f"choice-{choices[1].pk}", True), radio
    assert radio["outline"] != "none" and radio["labelOutline"] != "none", radio
    expect(page.locator(f"#choice-{choices[0].pk}")).not_to_be_checked()

    # Tab leaves the radio group for the submit button; Enter submits.
    button = tab_to(page, lambda element: element["tag"] == "button", limit=1)
    assert button["type"] == "submit" and button["outline"] != "none", button
    with page.expect_navigation(url=re.compile(r"/questions/1/#feedback$")):
        page.keyboard.press("Enter")
    feedback = page.locator("#feedback")
    expect(feedback).to_be_visible()
    expect(feedback).to_have_class(re.compile(r"\bcorrect\b" if choices[1].is_correct else r"\bincorrect\b"))
    recorded = Answer.objects.get(attempt__user=student, question=question)
    assert (recorded.choice_id, recorded.language) == (choices[1].pk, language)

    # From the feedback, the next Tab stops lead to the next question.
    link = tab_to(page, lambda element: (element["href"] or "").endswith("/questions/2/"), limit=5)
    assert link["outline"] != "none", link
    with page.expect_navigation(url=re.compile(r"/questions/2/$")):
        page.keyboard.press("Enter")


# Without JavaScript ----------------------------------------------------------------------------


def test_take_the_quiz_without_javascript(new_page, student):
    language = "ur"
    page = new_page(java_script_enabled=False)
    login(page, language)
    page.locator(f'main a[href="/{language}/quizzes/{SLUG}/"]').click()
    page.locator('main form[action$="/start/"] button[type="submit"]').click()
    page.wait_for_url(re.compile(r"/questions/1/$"))

    questions = questions_of(SLUG)
    for position, question in questions.items():
        choice = next(choice for choice in question.choices.all() if choice.is_correct == (position % 2 == 1))
        page.locator(f'label[for="choice-{choice.pk}"]').click()
        expect(page.locator(f"#choice-{choice.pk}")).to_be_checked()
        page.locator('main form.question button[type="submit"]').click()
        page.wait_for_url(re.compile(rf"/questions/{position}/#feedback$"))
        feedback = page.locator("#feedback[role=status]")
        expect(feedback).to_be_visible()
        expect(feedback).to_have_class(re.compile(r"\bcorrect\b" if choice.is_correct else r"\bincorrect\b"))
        if position < len(questions):
            page.locator(f'main .actions a[href$="/questions/{position + 1}/"]').click()
            page.wait_for_url(re.compile(rf"/questions/{position + 1}/$"))
        else:
            page.locator('main .actions form[action$="/finish/"] button[type="submit"]').click()
            page.wait_for_url(re.compile(r"/result/$"))

    expect(page.locator("main section.result")).to_have_class(re.compile(r"\bfailed\b"))
    expect(page.locator("main ol.review > li")).to_have_count(len(questions))
    attempt = Attempt.objects.get(user=student, quiz__slug=SLUG)
    assert (attempt.state, attempt.score) == (Attempt.State.FINISHED, 4)
    assert set(attempt.answers.values_list("language", flat=True)) == {language}
