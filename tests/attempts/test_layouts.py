"""Attempts' layouts: drawn once at the start, then the same on every page, resume and the API.

With shuffling on, a class of 50 gets many orders, each stable; with it off, one order.
Pools and ``questions_per_attempt`` choose the questions; the maximum score is the layout's
size; the web form and the API refuse answers to questions outside the layout.
"""

import re

import pytest
from django.test import Client

from quizzes.attempts.services import OTHER_QUESTION, QUESTION_NOT_IN_ATTEMPT
from quizzes.enrollment.services import enrollment_create
from quizzes.models import Answer, Attempt, AttemptQuestion, Course, PoolDraw, Question, Quiz
from tests.api import attempt_url, start_url
from tests.api.conftest import token_client
from tests.factories import UserFactory

GC = "gradient-checkpointing"
CLASS_SIZE = 50


@pytest.fixture
def quiz(content) -> Quiz:
    return content[GC]


@pytest.fixture
def course(content) -> Course:
    return Course.objects.get(slug="memory-efficient-training")


def settings(quiz: Quiz, **values) -> None:
    for name, value in values.items():
        setattr(quiz, name, value)
    quiz.save()


def students(course: Course, count: int) -> list:
    users = [UserFactory(username=f"class-{n}") for n in range(count)]
    for user in users:
        enrollment_create(user=user, course=course)
    return users


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def web_start(client) -> int:
    response = client.post(f"/en/quizzes/{GC}/start/")
    assert response.status_code == 302, response.content[:500]
    match = re.fullmatch(r"/en/attempts/(\d+)/", response["Location"])
    assert match, response["Location"]
    return int(match[1])


def form_of(parse_html, client, attempt_id: int, position: int) -> tuple[int, tuple[int, ...]]:
    """The question a page asks (its form's hidden field) and its choices (the radios' values)."""
    response = client.get(f"/en/attempts/{attempt_id}/questions/{position}/")
    assert response.status_code == 200, (position, response.status_code)
    form = parse_html(response).one("form", class_="question")
    question = int(form.one("input", type="hidden", name="question")["value"])
    choices = tuple(int(radio["value"]) for radio in form.find_all("input", type="radio", name="choice"))
    return question, choices


def web_walk(parse_html, client, attempt_id: int) -> list[tuple[int, tuple[int, ...]]]:
    """Every question page of the attempt, each loaded twice (the same both times), answered in
    turn with its first choice: the layout as the web shows it."""
    layout = []
    total = AttemptQuestion.objects.filter(attempt_id=attempt_id).count()
    for position in range(1, total + 1):
        shown = form_of(parse_html, client, attempt_id, position)
        assert form_of(parse_html, client, attempt_id, position) == shown, "a reload changed the page"
        question, choices = shown
        response = client.post(
            f"/en/attempts/{attempt_id}/questions/{position}/", {"question": question, "choice": choices[0]}
        )
        assert response.status_code == 302, response.content[:500]
        layout.append(shown)
    return layout


def api_layout(api, attempt_id: int) -> list[tuple[int, tuple[int, ...]]]:
    body = api.get(attempt_url(attempt_id)).json()
    assert [item["position"] for item in body["questions"]] == list(range(1, len(body["questions"]) + 1))
    return [(item["id"], tuple(choice["id"] for choice in item["choices"])) for item in body["questions"]]


def stored_layout(attempt_id: int) -> list[tuple[int, tuple[int, ...]]]:
    slots = AttemptQuestion.objects.filter(attempt_id=attempt_id).order_by("position")
    return [(slot.question_id, tuple(slot.choice_order)) for slot in slots]


def position_order(quiz: Quiz) -> list[tuple[int, tuple[int, ...]]]:
    questions = Question.objects.filter(quiz=quiz, is_archived=False).order_by("position")
    return [
        (
            question.pk,
            tuple(question.choices.filter(is_archived=False).order_by("position").values_list("pk", flat=True)),
        )
        for question in questions
    ]


def test_shuffled_a_class_gets_many_orders_each_stable(quiz, course, parse_html):
    kept = Question.objects.get(quiz=quiz, position=3)
    kept.keep_choice_order = True
    kept.save()
    settings(quiz, shuffle_questions=True, shuffle_choices=True)
    natural = dict(position_order(quiz))
    layouts = []
    for user in students(course, CLASS_SIZE):
        client = logged_in(user)
        attempt_id = web_start(client)
        stored = stored_layout(attempt_id)
        assert web_walk(parse_html, client, attempt_id) == stored
        assert web_start(client) == attempt_id  # a resume: the same attempt, the same layout
        assert stored_layout(attempt_id) == stored
        api = token_client(user)
        assert api.post(start_url(GC), format="json").json()["id"] == attempt_id
        assert api_layout(api, attempt_id) == stored
        # Every question once, each with all its choices.
        assert sorted(question for question, _choices in stored) == sorted(natural)
        for question, choices in stored:
            assert sorted(choices) == sorted(natural[question])
        layouts.append(stored)

    question_orders = {tuple(question for question, _choices in layout) for layout in layouts}
    shuffled = Question.objects.get(quiz=quiz, position=1).pk
    choice_orders = {layout_choices(layout, shuffled) for layout in layouts}
    assert len(question_orders) >= CLASS_SIZE // 2, len(question_orders)
    assert len(choice_orders) >= 6, choice_orders  # of 24
    # The question that keeps its choices' order is never shuffled.
    assert {layout_choices(layout, kept.pk) for layout in layouts} == {natural[kept.pk]}


def layout_choices(layout, question_id: int) -> tuple[int, ...]:
    return dict(layout)[question_id]


def test_unshuffled_the_whole_class_gets_the_position_order(quiz, course, parse_html):
    assert not (quiz.shuffle_questions or quiz.shuffle_choices)  # the default
    expected = position_order(quiz)
    for user in students(course, CLASS_SIZE):
        client = logged_in(user)
        attempt_id = web_start(client)
        assert stored_layout(attempt_id) == expected
        assert form_of(parse_html, client, attempt_id, 1) == expected[0]
        assert form_of(parse_html, client, attempt_id, 1) == expected[0]
        assert api_layout(token_client(user), attempt_id) == expected


def test_pools_draw_their_counts_and_the_rest_is_always_asked(quiz, course, parse_html):
    questions = {q.position: q for q in Question.objects.filter(quiz=quiz)}
    pools = {1: "a", 2: "a", 3: "a", 4: "b", 5: "b", 6: "b", 7: "b"}  # question 8 in no pool
    for position, pool in pools.items():
        questions[position].pool = pool
        questions[position].save()
    PoolDraw.objects.create(quiz=quiz, pool="a", count=2)
    PoolDraw.objects.create(quiz=quiz, pool="b", count=3)
    of_pool = {pool: {questions[p].pk for p, tag in pools.items() if tag == pool} for pool in ("a", "b")}
    drawn = set()
    for user in students(course, 20):
        client = logged_in(user)
        attempt_id = web_start(client)
        asked = [question for question, _choices in stored_layout(attempt_id)]
        assert len(asked) == 6
        assert len(set(asked) & of_pool["a"]) == 2
        assert len(set(asked) & of_pool["b"]) == 3
        assert questions[8].pk in asked
        # Unshuffled: the drawn questions in position order.
        assert asked == sorted(asked, key=lambda pk: next(p for p, q in questions.items() if q.pk == pk))
        attempt = Attempt.objects.get(pk=attempt_id)
        assert attempt.max_score == 6
        drawn.add(frozenset(asked))
    assert len(drawn) > 1

    # The last of them answered right on every question: 6 of 6, 100%.
    for position, (question_id, _choices) in enumerate(stored_layout(attempt_id), start=1):
        right = Question.objects.get(pk=question_id).choices.get(is_correct=True)
        response = client.post(
            f"/en/attempts/{attempt_id}/questions/{position}/", {"question": question_id, "choice": right.pk}
        )
        assert response.status_code == 302
    client.post(f"/en/attempts/{attempt_id}/finish/")
    attempt = Attempt.objects.get(pk=attempt_id)
    assert (attempt.score, attempt.max_score, attempt.percent, attempt.passed) == (6, 6, 100, True)
    page = parse_html(client.get(f"/en/attempts/{attempt_id}/result/"))
    assert len(page.one("ol", class_="review").find_all("li", class_="card")) == 6


def test_questions_per_attempt_draws_that_many(quiz, course):
    settings(quiz, questions_per_attempt=5, shuffle_questions=True)
    drawn = set()
    for user in students(course, 20):
        api = token_client(user)
        response = api.post(start_url(GC), format="json")
        assert response.status_code == 201
        body = response.json()
        assert body["max_score"] == 5
        assert len(body["questions"]) == 5
        assert [item["id"] for item in body["questions"]] == [q for q, _c in stored_layout(body["id"])]
        drawn.add(frozenset(item["id"] for item in body["questions"]))
    assert len(drawn) > 1


def test_the_web_form_checks_the_position_in_the_layout(quiz, student, parse_html):
    settings(quiz, shuffle_questions=True)
    client = logged_in(student)
    attempt_id = web_start(client)
    layout = stored_layout(attempt_id)
    (second_question, second_choices) = layout[1]
    # The question at position 2, posted to position 1's page: refused, nothing written.
    response = client.post(
        f"/en/attempts/{attempt_id}/questions/1/", {"question": second_question, "choice": second_choices[0]}
    )
    assert response.status_code == 400
    alert = parse_html(response).one("div", class_="alert", role="alert")
    assert alert.text == " ".join(str(OTHER_QUESTION).split())
    assert not Answer.objects.exists()
    # Posted to its own position, it is recorded.
    response = client.post(
        f"/en/attempts/{attempt_id}/questions/2/", {"question": second_question, "choice": second_choices[0]}
    )
    assert response.status_code == 302
    assert Answer.objects.get().question_id == second_question


def test_the_api_refuses_a_question_outside_the_layout(quiz, student):
    settings(quiz, questions_per_attempt=3)
    api = token_client(student)
    attempt_id = api.post(start_url(GC), format="json").json()["id"]
    asked = {question for question, _choices in stored_layout(attempt_id)}
    outside = Question.objects.filter(quiz=quiz).exclude(pk__in=asked).first()
    choice = outside.choices.get(is_correct=True)
    response = api.post(
        f"/api/v1/attempts/{attempt_id}/answers/", {"question": outside.pk, "choice": choice.pk}, format="json"
    )
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "question_not_in_attempt"
    assert response.json()["detail"] == str(QUESTION_NOT_IN_ATTEMPT)
    assert not Answer.objects.exists()
    assert Attempt.objects.get(pk=attempt_id).state == Attempt.State.IN_PROGRESS


def test_a_draw_larger_than_its_pool_or_from_an_empty_pool_never_stops_a_start(quiz, student):
    for position in (1, 2):
        question = Question.objects.get(quiz=quiz, position=position)
        question.pool = "small"
        question.save()
    PoolDraw.objects.create(quiz=quiz, pool="small", count=5)  # the admin refuses it; a start must not fail
    PoolDraw.objects.create(quiz=quiz, pool="nobody", count=2)  # a pool without questions
    settings(quiz, shuffle_questions=True, shuffle_choices=True)
    api = token_client(student)
    response = api.post(start_url(GC), format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    # The whole small pool and every question in no pool: all 8.
    assert body["max_score"] == len(body["questions"]) == 8
    assert sorted(item["id"] for item in body["questions"]) == sorted(
        Question.objects.filter(quiz=quiz).values_list("pk", flat=True)
    )
