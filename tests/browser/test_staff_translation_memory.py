"""An editor working in the Urdu admin takes a suggestion from the translation memory
for a question whose English is already translated elsewhere, saves it, and reads each
field's state in the question's translation status block."""

import re

from django.utils import translation
from django.utils.translation import gettext

from quizzes.content.translation_status import Status, translation_status, translations_stamp
from quizzes.models import Question, Quiz
from tests.browser import admin_login
from tests.browser.conftest import EDITOR_USERNAME, expect, screenshot
from tests.factories import ChoiceFactory, QuestionFactory

SOURCE_SLUG = "gradient-checkpointing"
TARGET_SLUG = "activation-recomputation-tradeoffs"


def test_editor_uses_a_suggestion_in_urdu_and_sees_the_states(page, content, editor):
    source = Question.objects.get(quiz__slug=SOURCE_SLUG, position=1)
    assert translation_status(source, "text", "ur") in (Status.TRANSLATED, Status.REVIEWED)
    urdu = source.text_ur.strip()
    # The same English asked again in another quiz, not yet in Urdu; its explanation's
    # Urdu came from a machine.
    question = QuestionFactory(
        quiz=Quiz.objects.get(slug=TARGET_SLUG),
        position=99,
        text_en=source.text_en,
        explanation_en="Checkpointing recomputes activations in the backward pass.",
        explanation_ur="چیک پوائنٹنگ پچھلے مرحلے میں ایکٹیویشنز دوبارہ حساب کرتی ہے",
    )
    translations_stamp(question, columns=["explanation_ur"], state=Status.MACHINE)
    question.save()
    ChoiceFactory(question=question, position=1, text_en="Compute for memory", is_correct=True)
    ChoiceFactory(question=question, position=2, text_en="Memory for compute")

    url = f"/ur/admin/quizzes/question/{question.pk}/change/"
    admin_login(page, EDITOR_USERNAME, "ur", next_path=url)
    expect(page.locator("html")).to_have_attribute("dir", "rtl")

    # Open the Urdu tab of the question text: the suggestions sit beside its input.
    textarea = page.locator('textarea[name="text_ur"]')
    panel = textarea.evaluate("el => el.closest('.ui-tabs-panel').id")
    page.locator(f'a[href="#{panel}"]').click()
    suggestions = page.locator(f'#{panel} .tm-suggestions[data-target="text_ur"]')
    expect(suggestions).to_be_visible()
    first = suggestions.locator("li").first
    expect(first.locator(".tm-score")).to_contain_text("100")
    expect(first.locator(".tm-translation")).to_have_text(urdu)
    screenshot(page, "staff-translation-memory-ur.png")

    first.locator("button.tm-use").click()
    expect(textarea).to_have_value(urdu)
    page.locator('input[name="_save"]').click()
    page.wait_for_url(re.compile(r"/ur/admin/quizzes/question/(\?.*)?$"))

    question.refresh_from_db()
    assert question.text_ur == urdu
    assert translation_status(question, "text", "ur") == Status.TRANSLATED
    assert translation_status(question, "explanation", "ur") == Status.MACHINE

    page.goto(url)
    with translation.override("ur"):
        translated = gettext("translated: %(fields)s") % {"fields": gettext("text")}
        machine = gettext("machine translation: %(fields)s") % {"fields": gettext("explanation")}
    row = page.locator("dl.translation-status dd").first
    expect(row.locator(".state-translated")).to_contain_text(translated)
    expect(row.locator(".state-machine")).to_have_text(machine)
    screenshot(page, "staff-translation-memory-states-ur.png")
