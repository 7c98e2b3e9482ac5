"""Layout measured in chromium, at 360 and 1280 px, in every language: a choice whose text is
English inside an Urdu page keeps its radio beside the start of its text, never over it;
English headings in an Urdu page take the Latin line height; code inside Urdu text reads in
its own order; the header is one row and nothing overflows the page sideways.

The positions are the browser's (getBoundingClientRect, and Range rectangles for the text
itself), not the HTML's attributes: what a student sees. Each page's screenshot is kept in
artifacts/screenshots/ (layout-<language>-<width>-<page>.png).
"""

import io

import pytest
from django.core.management import call_command
from django.utils import translation

from quizzes.attempts.services import attempt_answer_submit, attempt_start
from quizzes.content.cache import quiz_content
from quizzes.content.shown import localized, shown_in_english
from quizzes.content.true_false import true_false_word
from quizzes.models import Attempt, AttemptQuestion, Choice, Question, Quiz, UserPreferences
from tests.browser.conftest import STUDENT_USERNAME, expect, fonts_ready, login, screenshot

LANGUAGES = ["en", "ur", "sn", "id"]
WIDTHS = [360, 1280]
GC = "gradient-checkpointing"
URDU_FALLBACK = 4  # no Urdu text: shown in English
URDU_TRANSLATED = 1
CODE_QUESTION = 5  # its Urdu explanation holds torch.utils.checkpoint, checkpoint(), checkpoint_sequential()

# For each choice row: where its radio is, where its text's first line starts and ends, and the
# row's direction.
ROWS = """
rows => rows.map(row => {
  const radio = row.querySelector('input[type="radio"]').getBoundingClientRect();
  const range = document.createRange();
  range.selectNodeContents(row.querySelector("label"));
  const lines = [...range.getClientRects()].filter(rect => rect.width > 0);
  const top = Math.min(...lines.map(rect => rect.top));
  const first = lines.filter(rect => rect.top < top + 4);
  return {
    choice: Number(row.querySelector('input[type="radio"]').value),
    direction: getComputedStyle(row).direction,
    radio: {left: radio.left, right: radio.right, top: radio.top, bottom: radio.bottom},
    text: {
      left: Math.min(...lines.map(rect => rect.left)), right: Math.max(...lines.map(rect => rect.right)),
      firstLeft: Math.min(...first.map(rect => rect.left)), firstRight: Math.max(...first.map(rect => rect.right)),
    },
  };
})
"""


@pytest.fixture
def attempt(student) -> Attempt:
    attempt, _created = attempt_start(user=student, quiz=Quiz.objects.get(slug=GC))
    return attempt


def shown_at(attempt: Attempt, position: int) -> int:
    """Where the attempt's layout shows the quiz's question at ``position`` (it may shuffle)."""
    return AttemptQuestion.objects.get(attempt=attempt, question__position=position).position


def answered_before(attempt: Attempt, layout_position: int) -> None:
    """Answer (rightly, in Urdu) every question the layout shows before ``layout_position``."""
    slots = AttemptQuestion.objects.filter(attempt=attempt, position__lt=layout_position)
    slots = slots.exclude(question__answers__attempt=attempt)
    for slot in slots.select_related("question").order_by("position"):
        right = slot.question.choices.get(is_correct=True)
        attempt_answer_submit(
            user=attempt.user, attempt_id=attempt.pk, question_id=slot.question_id, choice_id=right.pk, language="ur"
        )


def open_page(new_page, language: str, width: int):
    page = new_page(viewport={"width": width, "height": 800})
    login(page, language)
    return page


def assert_page_fits(page, name: str) -> None:
    fonts_ready(page)
    fit = page.evaluate(
        """() => {
            const middle = element => {
              const box = element.getBoundingClientRect();
              return (box.top + box.bottom) / 2;
            };
            const bar = document.querySelector(".site-header .bar");
            const wide = [...document.querySelectorAll("body *")]
              .filter(element => element.getBoundingClientRect().right > window.innerWidth + 0.5)
              .map(element => element.tagName + "." + element.className);
            return {
              scroll: document.documentElement.scrollWidth, width: window.innerWidth, wide,
              rows: [...bar.children].map(middle),
            };
        }"""
    )
    assert fit["scroll"] <= fit["width"], (name, fit)  # nothing overflows sideways
    # The header is one row: its brand and menus side by side.
    assert max(fit["rows"]) - min(fit["rows"]) < 12, (name, fit)
    screenshot(page, f"layout-{name}.png")


def assert_rows_laid_out(rows: list[dict], language: str) -> None:
    """Each row in its text's direction (English in an Urdu page runs left to right), its radio
    beside the start of its text."""
    for row in rows:
        radio, text = row["radio"], row["text"]
        shown = localized(Choice.objects.get(pk=row["choice"]), "text", language)
        direction = "rtl" if shown.language == "ur" else "ltr"
        assert row["direction"] == direction, row
        if direction == "ltr":  # the radio on the left, just before the text starts
            assert radio["right"] <= text["left"], row
            assert text["firstLeft"] - radio["right"] < 40, row
        else:  # the radio on the right, just after the text starts
            assert radio["left"] >= text["right"], row
            assert radio["left"] - text["firstRight"] < 40, row
        # Beside the text's first line, not above or below it.
        assert radio["bottom"] > 0 and radio["top"] < radio["bottom"], row


def assert_question_laid_out(page, language: str, position: int) -> None:
    rows = page.locator("main form.question .choice").evaluate_all(ROWS)
    assert len(rows) == 4
    assert_rows_laid_out(rows, language)
    question = Question.objects.get(quiz__slug=GC, position=position)
    in_english = localized(question, "text", language).language == "en"
    heading = page.locator("main form.question .question-text").evaluate(
        "h => parseFloat(getComputedStyle(h).lineHeight) / parseFloat(getComputedStyle(h).fontSize)"
    )
    # Latin text in the Latin line height, also inside an Urdu page; Urdu in Nastaliq's taller one.
    assert heading <= 1.6 if in_english or language != "ur" else heading >= 2, (language, position, heading)
    if language == "ur" and position == URDU_FALLBACK:
        assert in_english  # the case this test is for


def at_each_width(page, url: str):
    """Open ``url`` at each width in turn; yields the width."""
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(url)
        yield width


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_student_pages_at_each_width(new_page, attempt, language):
    """The dashboard and the quiz page (how many questions appear in English), the time zone page (the phone's
    zone proposed, a search, saved) and two questions, one translated into Urdu and one not
    (each choice's radio beside its text, the heading's line height), at 360 and 1280 px."""
    page = new_page(viewport={"width": WIDTHS[0], "height": 800}, timezone_id="Asia/Karachi")
    login(page, language)

    in_english = sum(shown_in_english(question, language) for question in quiz_content(attempt.quiz_id).questions)
    for width in at_each_width(page, f"/{language}/"):
        # The dashboard marks each quiz some of whose questions appear in English.
        mark = page.locator(f'main li.quiz-item:has(a[href$="/quizzes/{GC}/"]) .in-english-mark')
        assert mark.count() == (in_english > 0)
        assert_page_fits(page, f"{language}-{width}-dashboard")
    for width in at_each_width(page, f"/{language}/quizzes/{GC}/"):
        notice = page.locator("main .in-english")
        if in_english == 0:
            assert notice.count() == 0
        else:
            said = notice.inner_text()
            assert str(in_english) in said and str(len(quiz_content(attempt.quiz_id).questions)) in said, said
        assert_page_fits(page, f"{language}-{width}-quiz")
    if language == "ur":
        assert in_english > 0  # the seed content's Urdu lacks some: the case this is for

    for position in sorted((URDU_TRANSLATED, URDU_FALLBACK), key=lambda position: shown_at(attempt, position)):
        answered_before(attempt, shown_at(attempt, position))  # no page is reached past an open one
        for width in at_each_width(page, f"/{language}/attempts/{attempt.pk}/questions/{shown_at(attempt, position)}/"):
            assert_question_laid_out(page, language, position)
            assert_page_fits(page, f"{language}-{width}-question-{position}")

    for width in at_each_width(page, f"/{language}/account/time-zone/"):
        expect(page.locator("main .device-zone")).to_be_visible()
        assert page.locator("#time-zone").input_value() == "Asia/Karachi"
        assert_page_fits(page, f"{language}-{width}-time-zone")
    # The search narrows the list; saving confirms the proposal.
    page.locator("#zone-search").fill("harare")
    shown = page.locator("#time-zone option:not([hidden])")
    assert shown.evaluate_all("options => options.map(option => option.value)") == ["Africa/Harare"]
    page.locator("#zone-search").fill("")
    page.locator("#time-zone").select_option("Asia/Karachi")
    page.locator("main form.time-zone-form button[type=submit]").click()
    page.wait_for_url(f"**/{language}/account/time-zone/")
    expect(page.locator("main .device-zone")).to_be_hidden()  # chosen now: nothing proposed
    assert UserPreferences.objects.get(user=attempt.user).time_zone == "Asia/Karachi"


def test_code_in_urdu_text_reads_in_its_own_order(new_page, attempt):
    answered_before(attempt, shown_at(attempt, CODE_QUESTION) + 1)
    page = open_page(new_page, "ur", WIDTHS[0])
    for width in at_each_width(page, f"/ur/attempts/{attempt.pk}/questions/{shown_at(attempt, CODE_QUESTION)}/"):
        runs = page.locator("#feedback .explanation bdi").evaluate_all(
            """runs => runs.map(run => {
                const text = run.firstChild;
                const xs = [];
                for (let i = 0; i < text.length; i++) {
                  const range = document.createRange();
                  range.setStart(text, i);
                  range.setEnd(text, i + 1);
                  xs.push(range.getBoundingClientRect().left);
                }
                return {text: run.textContent, direction: getComputedStyle(run).direction, xs};
            })"""
        )
        assert [run["text"] for run in runs] == [
            "torch.utils.checkpoint",
            "checkpoint()",
            "checkpoint_sequential()",  # its Urdu parenthesis's closing bracket stays outside
            "torch.optim.SGD",
            "torch.nn.Dropout",
            "torch.cuda.empty_cache",
        ]
        for run in runs:
            assert run["direction"] == "ltr", run
            # Each character to the right of the one before it: read left to right, in its order.
            assert all(later > earlier for earlier, later in zip(run["xs"], run["xs"][1:], strict=False)), run
        assert_page_fits(page, f"ur-{width}-feedback-{CODE_QUESTION}")


def test_a_true_or_false_question_in_english_inside_an_urdu_page(new_page, student, tmp_path):
    """A short English question (a fallback) starts at the left of an Urdu page, above its two
    choices in the site's Urdu words."""
    path = tmp_path / "facts.gift"
    path.write_text("$CATEGORY: $course$/top/Facts\n\n::Sky:: The sky is blue.{T}\n", encoding="utf-8")
    call_command("import_quiz", str(path), "--format", "gift", stdout=io.StringIO())
    Quiz.objects.filter(slug="facts").update(is_published=True)
    attempt, _created = attempt_start(user=student, quiz=Quiz.objects.get(slug="facts"))
    page = open_page(new_page, "ur", WIDTHS[0])
    for width in at_each_width(page, f"/ur/attempts/{attempt.pk}/questions/1/"):
        edges = page.locator("main form.question").evaluate(
            """form => {
                const range = document.createRange();
                range.selectNodeContents(form.querySelector(".question-text"));
                const text = range.getBoundingClientRect(), box = form.getBoundingClientRect();
                return {gapLeft: text.left - box.left, gapRight: box.right - text.right};
            }"""
        )
        assert edges["gapLeft"] < 40 < edges["gapRight"], (width, edges)
        labels = page.locator("main form.question .choice label").all_inner_texts()
        with translation.override("ur"):
            assert [label.strip() for label in labels] == [true_false_word(True), true_false_word(False)]
        assert_page_fits(page, f"ur-{width}-true-false")


def test_the_menus_open_and_work_without_javascript(new_page, student):
    page = new_page(viewport={"width": 360, "height": 800}, java_script_enabled=False)
    login(page, "ur")
    page.locator("header .language-menu summary").click()
    page.locator('header .languages a[hreflang="id"]').click()
    assert page.url.endswith("/id/"), page.url
    page.locator("header .account-menu summary").click()
    assert page.locator("header .account-menu .username").inner_text() == STUDENT_USERNAME
    page.locator('header form.account button[type="submit"]').click()
    page.wait_for_url("**/id/accounts/login/")


@pytest.mark.parametrize("language", ["en", "ur"])
def test_the_login_warning_and_the_reset_page(new_page, student, settings, language):
    settings.AXES_FAILURE_LIMIT = 5
    page = new_page(viewport={"width": WIDTHS[0], "height": 800})
    page.goto(f"/{language}/accounts/login/")
    for _number in range(4):
        page.locator("#id_username").fill(STUDENT_USERNAME)
        page.locator("#id_password").fill("not the password")
        page.locator("main form button[type=submit]").click()
        page.wait_for_load_state()
    alert = page.locator("main form .alert")
    assert alert.locator("p").count() == 2  # the wrong password, and that one more locks it
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        assert_page_fits(page, f"{language}-{width}-login-warning")
    page.locator('main a[href$="/accounts/password-reset/"]').click()
    page.wait_for_url(f"**/{language}/accounts/password-reset/")
    for width in at_each_width(page, f"/{language}/accounts/password-reset/"):
        assert_page_fits(page, f"{language}-{width}-password-reset")
