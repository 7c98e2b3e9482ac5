"""GET /api/v1/quizzes/ and /api/v1/quizzes/{slug}/: what a student may see, in which language."""

import pytest

from quizzes.models import Course, PoolDraw, Quiz
from tests.api import QUIZZES_URL, answer, assert_error, finish_url, quiz_url, right, start, wrong
from tests.factories import ChoiceFactory, CourseFactory, EnrollmentFactory, QuestionFactory, QuizFactory

GC = "gradient-checkpointing"
ARC = "activation-recomputation-tradeoffs"

QUIZ_FIELDS = {
    "slug",
    "course",
    "title",
    "title_language",
    "title_machine",
    "description",
    "description_language",
    "description_machine",
    "pass_mark",
    "max_attempts",
    "attempts_used",
    "best_percent",
    "passed",
    "in_progress_attempt",
}


def results_by_slug(response) -> dict[str, dict]:
    assert response.status_code == 200, response.content
    return {quiz["slug"]: quiz for quiz in response.json()["results"]}


def take(client, quiz: Quiz, right_positions: set[int], *, finish: bool = True) -> int:
    """Start an attempt and answer every question, right at ``right_positions``; its id."""
    attempt_id = start(client, quiz.slug)
    for position in range(1, quiz.questions.count() + 1):
        choice = right(quiz, position) if position in right_positions else wrong(quiz, position)
        assert answer(client, attempt_id, choice).status_code == 201
    if finish:
        assert client.post(finish_url(attempt_id)).status_code == 200
    return attempt_id


# List ---------------------------------------------------------------------------------


def test_list_fields_before_any_attempt(student_api, content):
    response = student_api.get(QUIZZES_URL)

    body = response.json()
    assert set(body) == {"count", "next", "previous", "results"}
    assert body["count"] == 2
    assert body["next"] is None and body["previous"] is None
    assert [quiz["slug"] for quiz in body["results"]] == [GC, ARC]
    gc = body["results"][0]
    assert set(gc) == QUIZ_FIELDS
    assert gc == gc | {
        "course": "memory-efficient-training",
        "title": "Gradient Checkpointing Quiz",
        "title_language": "en",
        "title_machine": False,
        "description_language": "en",
        "description_machine": False,
        "pass_mark": 70,
        "max_attempts": 0,
        "attempts_used": 0,
        "best_percent": None,
        "passed": False,
        "in_progress_attempt": None,
    }


def test_list_only_published_quizzes_of_enrolled_courses(student_api, student, course):
    QuizFactory(course=course, slug="draft-in-my-course", is_published=False)
    other_course = CourseFactory(slug="other-course")
    QuizFactory(course=other_course, slug="published-elsewhere")
    mine = CourseFactory(slug="second-course")
    EnrollmentFactory(user=student, course=mine)
    QuizFactory(course=mine, slug="second-course-quiz", position=1)
    QuizFactory(course=mine, slug="second-course-draft", is_published=False)

    slugs = set(results_by_slug(student_api.get(QUIZZES_URL)))

    assert slugs == {GC, ARC, "second-course-quiz"}


def test_list_is_empty_for_a_user_enrolled_nowhere(outsider_api):
    body = outsider_api.get(QUIZZES_URL).json()

    assert body == {"count": 0, "next": None, "previous": None, "results": []}


def test_list_is_paginated(student_api, course):
    for number in range(25):
        QuizFactory(course=course, slug=f"extra-{number:02d}", position=10 + number)

    first = student_api.get(QUIZZES_URL).json()
    assert first["count"] == 27
    assert len(first["results"]) == 20
    assert first["previous"] is None
    assert first["next"].endswith("/api/v1/quizzes/?page=2")

    second = student_api.get(first["next"]).json()
    assert len(second["results"]) == 7
    assert second["next"] is None
    assert second["previous"] is not None

    slugs = [quiz["slug"] for quiz in first["results"] + second["results"]]
    assert len(set(slugs)) == 27
    assert slugs[:2] == [GC, ARC]


@pytest.mark.parametrize("page", ["2", "999999999"])
def test_list_page_past_the_last_is_404_json(student_api, content, page):
    assert_error(student_api.get(QUIZZES_URL, {"page": page}), 404, "not_found")


@pytest.mark.parametrize("page", ["0", "-1", "abc", "1.0", "", " 1", "\u0661", "99999999999999999999999", ["1", "2"]])
def test_list_malformed_page_is_400_json(student_api, content, page):
    assert_error(student_api.get(QUIZZES_URL, {"page": page}), 400, "invalid_page")


def test_list_progress_after_attempts(student_api, other_api, content):
    gc, arc = content[GC], content[ARC]
    take(student_api, gc, {1, 2, 3, 4, 5, 6})  # 6/8 = 75% >= 70: passed
    take(student_api, gc, {1})  # 1/8 = 12%
    in_progress = start(student_api, GC)
    answer(student_api, in_progress, right(gc, 1))
    take(student_api, arc, {1, 2, 3, 4, 5})  # 5/8 = 62%: not passed
    # Another student: full marks in arc, and an attempt in progress in gc.
    take(other_api, arc, set(range(1, 9)))
    take(other_api, arc, set(range(1, 9)))
    other_in_progress = start(other_api, GC)

    mine = results_by_slug(student_api.get(QUIZZES_URL))
    theirs = results_by_slug(other_api.get(QUIZZES_URL))

    assert {key: mine[GC][key] for key in ("attempts_used", "best_percent", "passed", "in_progress_attempt")} == {
        "attempts_used": 3,
        "best_percent": 75,
        "passed": True,
        "in_progress_attempt": in_progress,
    }
    assert {key: mine[ARC][key] for key in ("attempts_used", "best_percent", "passed", "in_progress_attempt")} == {
        "attempts_used": 1,
        "best_percent": 62,
        "passed": False,
        "in_progress_attempt": None,
    }
    assert {key: theirs[GC][key] for key in ("attempts_used", "best_percent", "passed", "in_progress_attempt")} == {
        "attempts_used": 1,
        "best_percent": None,
        "passed": False,
        "in_progress_attempt": other_in_progress,
    }
    assert {key: theirs[ARC][key] for key in ("attempts_used", "best_percent", "passed", "in_progress_attempt")} == {
        "attempts_used": 2,
        "best_percent": 100,
        "passed": True,
        "in_progress_attempt": None,
    }


def test_list_pass_uses_the_pass_mark_exactly(student_api, course):
    """7 of 10 at a 70% pass mark is a pass; 69% would not be."""
    quiz = QuizFactory(course=course, slug="ten", position=5, pass_mark=70)
    for position in range(1, 11):
        question = QuestionFactory(quiz=quiz, position=position)
        ChoiceFactory(question=question, position=1, is_correct=True)
        ChoiceFactory(question=question, position=2)
    take(student_api, quiz, set(range(1, 8)))

    ten = results_by_slug(student_api.get(QUIZZES_URL))["ten"]

    assert ten["best_percent"] == 70
    assert ten["passed"] is True


def test_list_in_the_requested_language(student_api, content):
    ur = results_by_slug(student_api.get(QUIZZES_URL, {"lang": "ur"}))
    ind = results_by_slug(student_api.get(QUIZZES_URL, HTTP_ACCEPT_LANGUAGE="id"))

    assert ur[GC]["title"] == content[GC].title_ur
    assert ur[GC]["title_language"] == "ur"
    assert ur[ARC]["title"] == content[ARC].title_en
    assert ur[ARC]["title_language"] == "en"
    assert ind[ARC]["title"] == content[ARC].title_ind
    assert ind[ARC]["title_language"] == "id"
    assert ind[GC]["title_language"] == "en"


# Detail -----------------------------------------------------------------------------


def test_detail_says_how_each_attempt_is_drawn(student_api, gc_quiz):
    questions = list(gc_quiz.questions.order_by("position"))
    for question in questions[:3]:
        question.pool = "memory"
        question.save()
    questions[3].keep_choice_order = True
    questions[3].save()
    gc_quiz.shuffle_choices, gc_quiz.questions_per_attempt = True, 4
    gc_quiz.save()
    PoolDraw.objects.create(quiz=gc_quiz, pool="memory", count=2)

    body = student_api.get(quiz_url(GC)).json()

    assert (body["shuffle_questions"], body["shuffle_choices"], body["questions_per_attempt"]) == (False, True, 4)
    assert body["pool_draws"] == [{"pool": "memory", "count": 2}]
    assert [q["pool"] for q in body["questions"][:4]] == ["memory", "memory", "memory", ""]
    assert [q["keep_choice_order"] for q in body["questions"][2:5]] == [False, True, False]
    attempt = student_api.get(f"/api/v1/attempts/{start(student_api, GC)}/").json()
    assert attempt["max_score"] == len(attempt["questions"]) == 4


def test_detail_questions_and_choices_with_ids_in_order(student_api, gc_quiz):
    body = student_api.get(quiz_url(GC)).json()

    assert set(body) == QUIZ_FIELDS | {
        "shuffle_questions",
        "shuffle_choices",
        "questions_per_attempt",
        "pool_draws",
    } | {"questions"} | {
        "attempts_left",
        "opens_at",
        "closes_at",
        "is_open",
        "time_limit",
        "feedback_timing",
        "show_right_answer",
    }
    assert (body["shuffle_questions"], body["shuffle_choices"], body["questions_per_attempt"]) == (False, False, 0)
    assert body["pool_draws"] == []
    questions = list(gc_quiz.questions.order_by("position"))
    assert [q["id"] for q in body["questions"]] == [q.pk for q in questions]
    assert [q["position"] for q in body["questions"]] == list(range(1, 9))
    for got, question in zip(body["questions"], questions, strict=True):
        assert got["kind"] == "single"
        assert set(got) == {
            "id",
            "position",
            "kind",
            "text",
            "text_language",
            "text_machine",
            "pool",
            "keep_choice_order",
            "choices",
        }
        assert got["text"] == question.text_en
        choices = list(question.choices.order_by("position"))
        assert [c["id"] for c in got["choices"]] == [c.pk for c in choices]
        assert [c["text"] for c in got["choices"]] == [c.text_en for c in choices]
        for choice in got["choices"]:
            assert set(choice) == {"id", "position", "text", "text_language", "text_machine"}


def test_detail_questions_in_order_whatever_the_insertion_order(student_api, course):
    quiz = QuizFactory(course=course, slug="shuffled")
    for position in (3, 1, 2):
        question = QuestionFactory(quiz=quiz, position=position, text_en=f"Q{position}")
        for choice_position in (2, 1):
            ChoiceFactory(question=question, position=choice_position, text_en=f"Q{position}C{choice_position}")

    body = student_api.get(quiz_url("shuffled")).json()

    assert [q["text"] for q in body["questions"]] == ["Q1", "Q2", "Q3"]
    assert [c["text"] for c in body["questions"][0]["choices"]] == ["Q1C1", "Q1C2"]


def test_detail_in_english_by_default(student_api, gc_quiz):
    body = student_api.get(quiz_url(GC)).json()

    assert body["title"] == gc_quiz.title_en
    texts = [body["title_language"], body["description_language"]]
    texts += [q["text_language"] for q in body["questions"]]
    texts += [c["text_language"] for q in body["questions"] for c in q["choices"]]
    assert set(texts) == {"en"}


def check_urdu(body, quiz):
    assert body["title"] == quiz.title_ur
    assert body["title_language"] == "ur"
    assert body["description_language"] == "ur"
    q1, q3 = body["questions"][0], body["questions"][2]
    assert q1["text"] == quiz.questions.get(position=1).text_ur
    assert q1["text_language"] == "ur"
    assert {c["text_language"] for c in q1["choices"]} == {"ur"}
    # Question 3 has no Urdu: English, and saying so.
    assert q3["text"] == quiz.questions.get(position=3).text_en
    assert q3["text_language"] == "en"
    assert {c["text_language"] for c in q3["choices"]} == {"en"}


def test_detail_in_urdu_via_query(student_api, gc_quiz):
    check_urdu(student_api.get(quiz_url(GC), {"lang": "ur"}).json(), gc_quiz)


def test_detail_in_urdu_via_accept_language(student_api, gc_quiz):
    response = student_api.get(quiz_url(GC), HTTP_ACCEPT_LANGUAGE="ur")

    check_urdu(response.json(), gc_quiz)
    assert response["Content-Language"] == "ur"


def test_detail_query_overrides_accept_language(student_api, gc_quiz):
    body = student_api.get(quiz_url(GC), {"lang": "en"}, HTTP_ACCEPT_LANGUAGE="ur").json()

    assert body["title"] == gc_quiz.title_en
    assert body["title_language"] == "en"


@pytest.mark.parametrize("how", ["query", "header"])
def test_detail_in_shona_falls_back_per_field(student_api, gc_quiz, how):
    if how == "query":
        response = student_api.get(quiz_url(GC), {"lang": "sn"})
    else:
        response = student_api.get(quiz_url(GC), HTTP_ACCEPT_LANGUAGE="sn")

    body = response.json()
    # No Shona title: English, marked as such; the description is translated.
    assert body["title"] == gc_quiz.title_en
    assert body["title_language"] == "en"
    assert body["description"] == gc_quiz.description_sn
    assert body["description_language"] == "sn"
    assert body["questions"][0]["text"] == gc_quiz.questions.get(position=1).text_sn
    assert body["questions"][0]["text_language"] == "sn"
    assert body["questions"][2]["text_language"] == "en"


@pytest.mark.parametrize("how", ["query", "header"])
def test_detail_in_indonesian(student_api, content, how):
    arc = content[ARC]
    if how == "query":
        response = student_api.get(quiz_url(ARC), {"lang": "id"})
    else:
        response = student_api.get(quiz_url(ARC), HTTP_ACCEPT_LANGUAGE="id,en;q=0.5")

    body = response.json()
    assert body["title"] == arc.title_ind
    assert body["title_language"] == "id"
    assert body["questions"][0]["text"] == arc.questions.get(position=1).text_ind
    assert body["questions"][0]["text_language"] == "id"
    assert body["questions"][2]["text"] == arc.questions.get(position=3).text_en
    assert body["questions"][2]["text_language"] == "en"


def test_detail_unsupported_accept_language_falls_back_to_english(student_api, gc_quiz):
    body = student_api.get(quiz_url(GC), HTTP_ACCEPT_LANGUAGE="fr").json()

    assert body["title"] == gc_quiz.title_en
    assert body["title_language"] == "en"


@pytest.mark.parametrize("lang", ["xx", "", "EN", "ur-PK", "en;", "x" * 500])
def test_detail_unknown_lang_is_400(student_api, content, lang):
    body = assert_error(student_api.get(quiz_url(GC), {"lang": lang}), 400, "unknown_language")

    assert len(body["detail"]) < 200


def test_list_unknown_lang_is_400(student_api, content):
    assert_error(student_api.get(QUIZZES_URL, {"lang": "xx"}), 400, "unknown_language")


def test_repeated_lang_is_400(student_api, content):
    assert_error(student_api.get(quiz_url(GC), {"lang": ["ur", "en"]}), 400, "unknown_language")


def test_detail_not_enrolled_is_403(outsider_api, content):
    assert_error(outsider_api.get(quiz_url(GC)), 403, "not_enrolled")


def test_detail_of_another_course_is_403(student_api, content):
    QuizFactory(course=CourseFactory(slug="elsewhere"), slug="elsewhere-quiz")

    assert_error(student_api.get(quiz_url("elsewhere-quiz")), 403, "not_enrolled")


def test_detail_progress_fields(student_api, gc_quiz):
    attempt_id = start(student_api, GC)

    body = student_api.get(quiz_url(GC)).json()

    assert body["attempts_used"] == 1
    assert body["in_progress_attempt"] == attempt_id
    assert body["best_percent"] is None


@pytest.mark.parametrize("slug", ["no-such-quiz", "draft"])
def test_detail_unknown_or_unpublished_is_404(student_api, course, slug):
    QuizFactory(course=course, slug="draft", is_published=False)

    response = student_api.get(quiz_url(slug))

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json()["detail"]


@pytest.mark.parametrize("slug", ["no-such-quiz", "draft"])
def test_detail_unknown_or_unpublished_404_has_code_not_found(student_api, course, slug):
    QuizFactory(course=course, slug="draft", is_published=False)

    assert_error(student_api.get(quiz_url(slug)), 404, "not_found")


def test_unpublishing_hides_the_quiz(student_api, content):
    Quiz.objects.filter(slug=ARC).update(is_published=False)

    assert set(results_by_slug(student_api.get(QUIZZES_URL))) == {GC}
    assert student_api.get(quiz_url(ARC)).status_code == 404


def test_withdrawn_student_is_refused(student_api, student, content):
    student.enrollments.filter(course=Course.objects.get(slug="memory-efficient-training")).delete()

    assert student_api.get(QUIZZES_URL).json()["count"] == 0
    assert_error(student_api.get(quiz_url(GC)), 403, "not_enrolled")
