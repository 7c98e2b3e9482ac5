"""The README's pictures (``make screenshots``): a student's question with its feedback in
Urdu on a phone, and the item statistics a teacher reads, written to docs/images/.

Skipped unless ``LMS_SCREENSHOTS=1``: the suite does not rewrite committed files.
"""

import os
from pathlib import Path

import pytest

from tests.browser import admin_login
from tests.browser.conftest import EDITOR_USERNAME, fonts_ready, login, questions_of
from tests.browser.test_staff_statistics import answered_quiz  # noqa: F401  (a fixture)
from tests.browser.test_student_journey import choose_and_submit, start_attempt

IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
MAX_BYTES = 200_000
SLUG = "gradient-checkpointing"

pytestmark = pytest.mark.skipif(os.environ.get("LMS_SCREENSHOTS") != "1", reason="make screenshots only")


def saved(page, name: str, *, full_page: bool = False) -> Path:
    IMAGES.mkdir(parents=True, exist_ok=True)
    fonts_ready(page)
    path = IMAGES / name
    page.screenshot(path=str(path), full_page=full_page)
    assert path.stat().st_size < MAX_BYTES, (name, path.stat().st_size)
    return path


def test_a_student_answers_in_urdu_on_a_phone(new_page, student):
    page = new_page(viewport={"width": 390, "height": 844}, device_scale_factor=1, is_mobile=True, has_touch=True)
    login(page, "ur")
    page.goto(f"/ur/quizzes/{SLUG}/")
    start_attempt(page, "ur", SLUG)
    question = questions_of(SLUG)[1]
    wrong = next(choice for choice in question.choices.all() if not choice.is_correct)
    choose_and_submit(page, "ur", 1, wrong)
    saved(page, "student-question-ur.png", full_page=True)  # the question, its choices and the feedback


def test_a_teacher_reads_the_item_statistics(page, editor, answered_quiz):  # noqa: F811
    page.set_viewport_size({"width": 1280, "height": 800})
    admin_login(page, EDITOR_USERNAME, "en", f"/en/admin/reports/quizzes/{answered_quiz.pk}/statistics/")
    saved(page, "staff-report.png")
