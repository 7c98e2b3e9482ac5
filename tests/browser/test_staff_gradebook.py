"""The gradebook and bulk enrollment in a real browser, in English and in Urdu: an
editor logs in through the admin, reads the gradebook, pastes usernames, checks
the preview and confirms; axe-core finds no serious problem on any of these
pages, and artifacts/screenshots/staff-gradebook-<lang>.png shows the gradebook."""

import re

import pytest

from quizzes.accounts.roles import CONTENT_EDITORS, staff_groups_ensure
from quizzes.enrollment.services import enrollment_create
from quizzes.models import Enrollment, EnrollmentChange, Quiz
from tests.browser import admin_login
from tests.browser.conftest import expect, screenshot
from tests.browser.test_accessibility import assert_no_serious_violations
from tests.factories import AttemptFactory, UserFactory
from tests.reports.test_gradebook import finished

EDITOR = "browser-gradebook-editor"
COURSE = "memory-efficient-training"
GC = "gradient-checkpointing"
AR = "activation-recomputation-tradeoffs"


@pytest.fixture
def editor(content):
    user = UserFactory(username=EDITOR, is_staff=True, first_name="Grace", last_name="Editor")
    user.groups.add(staff_groups_ensure()[CONTENT_EDITORS])
    return user


@pytest.fixture
def classroom(content):
    """Three enrolled students with a known record, and two accounts not enrolled yet.

    ayesha: gradient-checkpointing 6/8 (75 %, passed); activation: 2/8 then one in progress
    bilal:  gradient-checkpointing 3/8 (37 %, not passed)
    chipo:  nothing yet
    """
    gc, ar = Quiz.objects.get(slug=GC), Quiz.objects.get(slug=AR)
    students = {}
    for username, first, last in [("ayesha", "عائشہ", "خان"), ("bilal", "Bilal", "Ahmed"), ("chipo", "Chipo", "Moyo")]:
        students[username] = UserFactory(username=username, first_name=first, last_name=last)
        enrollment_create(user=students[username], course=content)
    for username in ("dumi", "Esther"):
        UserFactory(username=username)

    finished(students["ayesha"], gc, 1, 6)
    finished(students["ayesha"], ar, 1, 2)
    AttemptFactory(user=students["ayesha"], quiz=ar, number=2, max_score=8, pass_mark=ar.pass_mark)
    finished(students["bilal"], gc, 1, 3)
    return students


def cell(page, username: str, column: int):
    """The gradebook cell of ``username``'s row: column 0 is the name, 1.. the quizzes."""
    row = page.locator("table.gradebook-table tbody tr").filter(has=page.locator("th a", has_text=username))
    return row.locator("td").nth(column)


@pytest.mark.parametrize("language", ["en", "ur"])
def test_editor_reads_the_gradebook_and_enrolls_in_bulk(page, editor, classroom, content, language):
    admin_login(page, EDITOR, language, f"/{language}/admin/reports/gradebook/")
    expect(page.locator("html")).to_have_attribute("dir", "rtl" if language == "ur" else "ltr")
    assert_no_serious_violations(page)

    # The course picker, then the gradebook.
    page.locator(f'a[href="/{language}/admin/reports/gradebook/{COURSE}/"]').click()
    page.wait_for_url(re.compile(rf"/{language}/admin/reports/gradebook/{COURSE}/$"))
    rows = page.locator("table.gradebook-table tbody tr")
    expect(rows).to_have_count(3)
    expect(page.locator("table.gradebook-table thead th.quiz-column")).to_have_count(2)
    gc_column = 1 if Quiz.objects.get(slug=GC).position < Quiz.objects.get(slug=AR).position else 2
    ar_column = 3 - gc_column
    expect(cell(page, "ayesha", gc_column).locator(".best")).to_have_text("75%")
    expect(cell(page, "ayesha", gc_column)).to_have_class(re.compile(r"\bpassed\b"))
    expect(cell(page, "ayesha", ar_column).locator(".best")).to_have_text("25%")
    expect(cell(page, "ayesha", ar_column).locator(".in-progress")).to_be_visible()
    expect(cell(page, "bilal", gc_column).locator(".best")).to_have_text("37%")
    expect(cell(page, "bilal", gc_column)).to_have_class(re.compile(r"\bnot-passed\b"))
    expect(cell(page, "chipo", gc_column).locator(".not-attempted")).to_be_visible()
    expect(cell(page, "ayesha", 0)).to_have_text("عائشہ خان")
    assert_no_serious_violations(page)
    screenshot(page, f"staff-gradebook-{language}.png")

    # The Enrollment changelist leads to bulk enrollment.
    page.goto(f"/{language}/admin/quizzes/enrollment/")
    page.locator(f'.object-tools a[href^="/{language}/admin/reports/enrollments/bulk/"]').click()
    page.wait_for_url(re.compile(rf"/{language}/admin/reports/enrollments/bulk/"))
    assert_no_serious_violations(page)
    page.locator("#id_course").select_option(str(content.pk))
    page.locator("#id_usernames").fill("dumi\nESTHER, ghost-user\nbilal")
    page.locator(".enroll-bulk form [type=submit]").click()

    # The preview: nothing written yet.
    expect(page.locator("form.confirm-enroll")).to_be_visible()
    will = page.locator("table.enroll-list").first.locator("tbody th")
    expect(will).to_have_text(["dumi", "Esther"])
    expect(page.locator("section.enroll-problems")).to_contain_text("ghost-user")
    assert not Enrollment.objects.filter(user__username__in=["dumi", "Esther"]).exists()
    assert_no_serious_violations(page)
    screenshot(page, f"staff-enroll-preview-{language}.png")

    page.locator("form.confirm-enroll [type=submit]").click()
    page.wait_for_url(re.compile(rf"/{language}/admin/quizzes/enrollment/\?course__id__exact={content.pk}$"))
    expect(page.locator("ul.messagelist li.success")).to_have_count(1)
    expect(page.locator("ul.messagelist li.warning")).to_contain_text("ghost-user")
    enrolled = set(Enrollment.objects.filter(course=content).values_list("user__username", flat=True))
    assert enrolled == {"ayesha", "bilal", "chipo", "dumi", "Esther"}
    assert set(EnrollmentChange.objects.filter(source="bulk").values_list("user__username", "changed_by")) == {
        ("dumi", editor.pk),
        ("Esther", editor.pk),
    }
