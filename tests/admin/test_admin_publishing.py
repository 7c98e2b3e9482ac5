"""Publishing a quiz in the admin: refused while the quiz has content problems, each listed once
as an item of its own; a quiz already published is saved whatever its content (a teacher can
always change its dates), and a missing translation never refuses anything: it is a warning."""

from datetime import UTC, datetime, timedelta

import pytest

from quizzes.admin import content_forms as forms
from quizzes.admin import quiz_dates
from quizzes.models import Choice, Quiz
from tests.admin_forms import admin_url, form_data
from tests.conftest import html_tree

pytestmark = pytest.mark.django_db

GC = "gradient-checkpointing"
CLOSES = datetime(2031, 6, 30, 17, 0, tzinfo=UTC)
URDU_PARTIAL = "The Urdu translation has 3 of 4 choices; the others would show in English."
SAVED_WITH_PROBLEMS = "This quiz has {count} content problem(s); see “Content check”."


@pytest.fixture
def gc(content) -> Quiz:
    return content[GC]


def english_only_choice(quiz: Quiz) -> None:
    """Leave the Urdu of question 1's third choice out: the Urdu page shows it in English."""
    Choice.objects.filter(question__quiz=quiz, question__position=1, position=3).update(text_ur=None)


def no_correct_choice(quiz: Quiz, *positions: int) -> None:
    Choice.objects.filter(question__quiz=quiz, question__position__in=positions).update(is_correct=False)


def page_data(client, quiz: Quiz, **changes) -> tuple[str, dict]:
    """The quiz's change form as the browser sends it, with ``changes``, saved to stay on the page."""
    url = admin_url("quizzes_quiz_change", quiz.pk)
    data = form_data(client.get(url).text, "quiz_form")
    data.update(changes)
    data["_continue"] = "Save and continue editing"
    return url, data


def content_check(html: str):
    return html_tree(html).one("div", class_="field-problems")


def refusal(response) -> list[str]:
    """The items of the page's list of errors of the whole form."""
    assert response.status_code == 200, "the page was saved"
    return [item.text.strip() for item in html_tree(response.text).one("ul", class_="nonfield").find_all("li")]


def test_a_published_quiz_with_a_partial_translation_has_its_dates_and_limit_changed(editor_client, gc):
    english_only_choice(gc)
    url, data = page_data(
        editor_client, gc, closes_at_0=CLOSES.strftime("%Y-%m-%d"), closes_at_1="17:00:00", time_limit="00:30:00"
    )

    response = editor_client.post(url, data, follow=True)

    assert response.redirect_chain, response.context["adminform"].form.errors
    gc.refresh_from_db()
    assert gc.is_published
    assert (gc.closes_at, gc.time_limit) == (CLOSES, timedelta(minutes=30))
    check = content_check(response.text)
    assert check.text.count(URDU_PARTIAL) == 1
    warnings = check.one("p", class_="content-warnings").text
    assert warnings == "Warnings (publishing is allowed):"
    assert "None: every question has one correct choice and an explanation." in check.text
    assert not [message for message in response.context["messages"] if "content problem" in str(message)]


def test_a_quiz_with_a_partial_translation_is_published(editor_client, gc):
    Quiz.objects.filter(pk=gc.pk).update(is_published=False)
    english_only_choice(gc)
    url, data = page_data(editor_client, gc, is_published="on")

    response = editor_client.post(url, data)

    assert response.status_code == 302, refusal(response)
    gc.refresh_from_db()
    assert gc.is_published


def test_publishing_is_refused_with_each_problem_listed_once(editor_client, gc):
    Quiz.objects.filter(pk=gc.pk).update(is_published=False)
    no_correct_choice(gc, 2, 4)
    english_only_choice(gc)  # a warning: not in the refusal
    pass_mark = gc.pass_mark
    url, data = page_data(editor_client, gc, is_published="on", pass_mark=str(pass_mark + 5))

    response = editor_client.post(url, data)

    problems = [f"{GC} #2: No choice is marked correct.", f"{GC} #4: No choice is marked correct."]
    assert refusal(response) == [str(forms.PUBLISH_WITH_PROBLEMS), *problems]
    for problem in problems:
        assert response.text.count(problem) == 1
    check = content_check(response.text)
    assert "The content problems are listed at the top of the page." in check.text
    assert URDU_PARTIAL in check.text
    gc.refresh_from_db()
    assert (gc.is_published, gc.pass_mark) == (False, pass_mark)


def test_a_refused_publishing_leaves_the_other_errors_of_the_page_shown(editor_client, gc):
    Quiz.objects.filter(pk=gc.pk).update(is_published=False)
    no_correct_choice(gc, 4)
    url, data = page_data(editor_client, gc, is_published="on", time_limit="00:00:00")

    response = editor_client.post(url, data)

    assert refusal(response) == [str(forms.PUBLISH_WITH_PROBLEMS), f"{GC} #4: No choice is marked correct."]
    assert response.context["adminform"].form.errors["time_limit"] == [str(quiz_dates.TIME_LIMIT_NOT_POSITIVE)]


def test_the_quiz_page_lists_its_problems_before_publishing(editor_client, gc):
    Quiz.objects.filter(pk=gc.pk).update(is_published=False)
    no_correct_choice(gc, 4)

    check = content_check(editor_client.get(admin_url("quizzes_quiz_change", gc.pk)).text)

    problems = check.find("ul")  # the first list; the warnings follow
    assert [item.text for item in problems.find_all("li")] == [f"{GC} #4: No choice is marked correct."]


def test_a_published_quiz_with_a_problem_is_saved_and_warned_about(editor_client, gc):
    no_correct_choice(gc, 4)
    url, data = page_data(editor_client, gc, pass_mark="80")

    response = editor_client.post(url, data, follow=True)

    assert response.redirect_chain, response.context["adminform"].form.errors
    gc.refresh_from_db()
    assert (gc.is_published, gc.pass_mark) == (True, 80)
    messages = [str(message) for message in response.context["messages"]]
    assert SAVED_WITH_PROBLEMS.format(count=1) in messages
    assert response.text.count(f"{GC} #4: No choice is marked correct.") == 1  # in the content check


def test_an_unpublished_quiz_with_a_problem_is_saved_unpublished(editor_client, gc):
    Quiz.objects.filter(pk=gc.pk).update(is_published=False)
    no_correct_choice(gc, 4)
    url, data = page_data(editor_client, gc, pass_mark="80")

    response = editor_client.post(url, data)

    assert response.status_code == 302, refusal(response)
    gc.refresh_from_db()
    assert (gc.is_published, gc.pass_mark) == (False, 80)


def test_a_new_quiz_is_refused_published_and_saved_unpublished(editor_client, gc):
    url = admin_url("quizzes_quiz_add")
    data = form_data(editor_client.get(url).text, "quiz_form")
    data.update({"course": str(gc.course_id), "slug": "new-quiz", "title_en": "New quiz", "position": "5"})

    response = editor_client.post(url, {**data, "is_published": "on", "_save": "Save"})

    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {"is_published": [str(forms.PUBLISH_NEW_QUIZ)]}
    assert not Quiz.objects.filter(slug="new-quiz").exists()

    response = editor_client.post(url, {**data, "_save": "Save"})

    assert response.status_code == 302, response.context["adminform"].form.errors
    assert not Quiz.objects.get(slug="new-quiz").is_published
