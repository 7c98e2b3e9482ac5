"""The quiz's layout settings in the admin: shuffling, questions per attempt and pool draws,
refused with a clear message (in the editor's language) when an attempt could not honour them,
nothing saved; later breakage (questions archived after the draw) is a content problem."""

import io

import pytest
from django.core.management import call_command
from django.utils import translation
from django.utils.html import escape

from quizzes.attempts.services import attempt_start
from quizzes.content.layout_rules import DRAW_LARGER_THAN_POOL
from quizzes.content.problems import content_problems
from quizzes.models import AttemptQuestion, PoolDraw, Question, Quiz
from tests.admin_forms import admin_url, form_data

pytestmark = pytest.mark.django_db

GC = "gradient-checkpointing"


@pytest.fixture
def gc(content) -> Quiz:
    return content[GC]


def tag(quiz, pool: str, *positions: int) -> None:
    for question in Question.objects.filter(quiz=quiz, position__in=positions):
        question.pool = pool
        question.save()


def quiz_post_data(client, quiz, language="en", **changes):
    url = admin_url("quizzes_quiz_change", quiz.pk, language=language)
    data = form_data(client.get(url).text, "quiz_form")
    data.update(changes)
    data["_save"] = "Save"
    return url, data


def add_draw(data, pool: str, count) -> None:
    index = int(data["pool_draws-TOTAL_FORMS"])
    data["pool_draws-TOTAL_FORMS"] = str(index + 1)
    data[f"pool_draws-{index}-pool"] = pool
    data[f"pool_draws-{index}-count"] = str(count)


def question_index(data, question) -> int:
    return next(
        int(name.split("-")[1])
        for name, value in data.items()
        if name.startswith("questions-") and name.endswith("-id") and str(value) == str(question.pk)
    )


def test_the_quiz_page_has_the_attempt_settings_and_the_draws(editor_client, gc, parse_html):
    tree = parse_html(editor_client.get(admin_url("quizzes_quiz_change", gc.pk)))
    form = tree.one("form", id="quiz_form")

    for name in ("shuffle_questions", "shuffle_choices", "questions_per_attempt", "pool_draws-TOTAL_FORMS"):
        assert form.find("input", name=name) is not None, name
    assert form.find("input", name="questions-0-pool") is not None
    assert form.find("input", name="questions-0-keep_choice_order") is not None
    assert "Attempts: order and draw" in form.text


def test_the_question_page_has_pool_and_keep_choice_order(editor_client, gc, parse_html):
    question = gc.questions.get(position=1)
    form = parse_html(editor_client.get(admin_url("quizzes_question_change", question.pk))).one(
        "form", id="question_form"
    )

    assert form.find("input", name="pool") is not None
    assert form.find("input", name="keep_choice_order") is not None


def test_settings_and_a_draw_are_saved(editor_client, gc):
    tag(gc, "memory", 1, 2, 3)
    url, data = quiz_post_data(editor_client, gc, shuffle_questions="on", shuffle_choices="on")
    data["questions_per_attempt"] = "5"
    add_draw(data, "memory", 2)

    response = editor_client.post(url, data)

    assert response.status_code == 302, response.context and response.context["errors"]
    gc.refresh_from_db()
    assert (gc.shuffle_questions, gc.shuffle_choices, gc.questions_per_attempt) == (True, True, 5)
    assert [(draw.pool, draw.count) for draw in gc.pool_draws.all()] == [("memory", 2)]


def test_a_pool_filled_and_drawn_from_in_one_save(editor_client, gc):
    url, data = quiz_post_data(editor_client, gc)
    for position in (1, 2):
        data[f"questions-{question_index(data, gc.questions.get(position=position))}-pool"] = "memory"
    add_draw(data, "memory", 2)

    response = editor_client.post(url, data)

    assert response.status_code == 302, response.context and response.context["errors"]
    assert list(gc.questions.filter(pool="memory").values_list("position", flat=True)) == [1, 2]
    assert gc.pool_draws.get().count == 2


@pytest.mark.parametrize(
    ("pool", "count", "message"),
    [
        ("memory", 3, "The pool memory has 2 questions; you draw 3."),
        ("nowhere", 1, "The pool nowhere has no question to draw (no question asked is tagged with it); you draw 1."),
        ("memory", 0, "Draw at least one question."),
        ("memory", -2, "Draw at least one question."),
    ],
)
def test_a_draw_its_pool_can_not_give_is_refused(editor_client, gc, pool, count, message):
    tag(gc, "memory", 4, 5)
    url, data = quiz_post_data(editor_client, gc, shuffle_questions="on")
    add_draw(data, pool, count)

    response = editor_client.post(url, data)

    assert response.status_code == 200
    assert message in response.text
    assert not PoolDraw.objects.exists()
    gc.refresh_from_db()
    assert gc.shuffle_questions is False  # nothing of the page was saved


def test_a_pool_emptied_on_the_page_that_draws_from_it_is_refused(editor_client, gc):
    tag(gc, "memory", 4, 5)
    PoolDraw.objects.create(quiz=gc, pool="memory", count=2)
    url, data = quiz_post_data(editor_client, gc)
    data[f"questions-{question_index(data, gc.questions.get(position=5))}-is_archived"] = "on"

    response = editor_client.post(url, data)

    assert response.status_code == 200
    assert "The pool memory has 1 question; you draw 2." in response.text
    assert gc.questions.get(position=5).is_archived is False


def test_more_questions_per_attempt_than_an_attempt_can_have_is_refused(editor_client, gc):
    tag(gc, "memory", 1, 2, 3, 4)
    url, data = quiz_post_data(editor_client, gc)
    add_draw(data, "memory", 1)  # 4 untagged + 1 drawn = 5
    data["questions_per_attempt"] = "6"

    response = editor_client.post(url, data)

    assert response.status_code == 200
    assert "An attempt can have at most 5 questions (after the pool draws); you ask 6 per attempt." in response.text
    gc.refresh_from_db()
    assert gc.questions_per_attempt == 0 and not PoolDraw.objects.exists()

    data["questions_per_attempt"] = "5"
    assert editor_client.post(url, data).status_code == 302


def test_the_refusal_is_in_the_editors_language(editor_client, gc):
    tag(gc, "memory", 4, 5)
    url, data = quiz_post_data(editor_client, gc, language="ur")
    add_draw(data, "memory", 3)

    response = editor_client.post(url, data)

    assert response.status_code == 200
    with translation.override("ur"):
        urdu = str(DRAW_LARGER_THAN_POOL % {"pool": "memory", "available": 2, "count": 3})
    assert urdu != "The pool memory has 2 questions; you draw 3."
    assert escape(urdu) in response.text
    assert not PoolDraw.objects.exists()


def test_a_pool_emptied_after_its_draw_is_a_content_problem_that_never_stops_a_start(editor_client, gc, student):
    tag(gc, "memory", 4, 5, 6)
    PoolDraw.objects.create(quiz=gc, pool="memory", count=3)
    Question.objects.get(quiz=gc, position=6).delete()  # nobody answered it
    question_5 = Question.objects.get(quiz=gc, position=5)
    question_5.is_archived = True
    question_5.save()

    problems = [str(problem) for problem in content_problems()]
    assert problems == [f"{GC}: The pool memory has 1 question; you draw 3."]
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(SystemExit) as exit_:
        call_command("validate_content", stdout=out, stderr=err)
    assert exit_.value.code == 1
    assert f"{GC}: The pool memory has 1 question; you draw 3." in out.getvalue().splitlines()
    page = editor_client.get(admin_url("quizzes_quiz_change", gc.pk)).text
    assert "The pool memory has 1 question; you draw 3." in page

    attempt, created = attempt_start(user=student, quiz=gc)

    assert created
    asked = set(AttemptQuestion.objects.filter(attempt=attempt).values_list("question__position", flat=True))
    assert asked == {1, 2, 3, 4, 7, 8}


def test_a_draw_from_a_pool_whose_questions_all_left_is_a_content_problem(gc):
    tag(gc, "memory", 4)
    PoolDraw.objects.create(quiz=gc, pool="memory", count=1)
    assert content_problems() == []
    tag(gc, "", 4)

    assert [str(problem) for problem in content_problems()] == [
        f"{GC}: The pool memory has no question to draw (no question asked is tagged with it); you draw 1."
    ]


def test_a_published_quiz_with_a_broken_draw_can_be_mended_on_its_page(editor_client, gc):
    assert gc.is_published
    tag(gc, "memory", 4, 5)
    draw = PoolDraw.objects.create(quiz=gc, pool="memory", count=2)
    tag(gc, "", 5)
    url, data = quiz_post_data(editor_client, gc)
    assert editor_client.post(url, data).status_code == 200  # the draw still asks for 2

    data["pool_draws-0-count"] = "1"
    response = editor_client.post(url, data)

    assert response.status_code == 302, response.context and response.context["errors"]
    draw.refresh_from_db()
    assert draw.count == 1 and content_problems() == []


def test_a_shuffled_quiz_names_the_questions_that_keep_their_order(editor_client, gc):
    url, data = quiz_post_data(editor_client, gc, shuffle_choices="on")
    for position in (3, 6):
        data[f"questions-{question_index(data, gc.questions.get(position=position))}-keep_choice_order"] = "on"

    response = editor_client.post(url, data, follow=True)

    assert response.status_code == 200
    shown = [str(message) for message in response.context["messages"]]
    assert (
        f"This quiz shuffles the choices of each question, except in these questions, which keep their order: "
        f"{GC} #3, {GC} #6." in shown
    )


def test_keeping_the_order_in_a_quiz_that_does_not_shuffle_says_nothing(editor_client, gc):
    url, data = quiz_post_data(editor_client, gc)
    data[f"questions-{question_index(data, gc.questions.get(position=3))}-keep_choice_order"] = "on"

    response = editor_client.post(url, data, follow=True)

    assert gc.questions.get(position=3).keep_choice_order is True
    assert not any("keep their order" in str(message) for message in response.context["messages"])


def test_teachers_see_the_draws_but_can_not_change_them(client, teacher, gc, parse_html):
    tag(gc, "memory", 4, 5)
    PoolDraw.objects.create(quiz=gc, pool="memory", count=2)
    client.force_login(teacher)

    tree = parse_html(client.get(admin_url("quizzes_quiz_change", gc.pk)))

    assert tree.find("input", name="pool_draws-0-count") is None
    assert "memory" in tree.text
    response = client.post(admin_url("quizzes_quiz_change", gc.pk), {"questions_per_attempt": 1})
    assert response.status_code == 403
