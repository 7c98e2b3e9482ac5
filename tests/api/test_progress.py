"""GET /api/v1/progress/: per course and per quiz, the user's own only."""

import pytest

from quizzes.models import Course
from tests.api import PROGRESS_URL, answer, assert_error, finish_url, right, start, wrong
from tests.factories import CourseFactory, EnrollmentFactory, QuizFactory

GC = "gradient-checkpointing"
ARC = "activation-recomputation-tradeoffs"
COURSE = "memory-efficient-training"


def take(client, quiz, right_positions: set[int]) -> int:
    attempt_id = start(client, quiz.slug)
    for position in range(1, 9):
        answer(client, attempt_id, right(quiz, position) if position in right_positions else wrong(quiz, position))
    assert client.post(finish_url(attempt_id)).status_code == 200
    return attempt_id


def courses(client, **params) -> dict[str, dict]:
    response = client.get(PROGRESS_URL, params)
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == {"count", "next", "previous", "results"}
    return {course["slug"]: course for course in body["results"]}


def test_progress_before_any_attempt(student_api, content):
    course = courses(student_api)[COURSE]

    assert set(course) == {
        "slug",
        "title",
        "title_language",
        "title_machine",
        "quizzes_total",
        "quizzes_passed",
        "quizzes",
    }
    assert course["title"] == "Memory-Efficient Training"
    assert course["title_language"] == "en"
    assert (course["quizzes_total"], course["quizzes_passed"]) == (2, 0)
    assert [quiz["slug"] for quiz in course["quizzes"]] == [GC, ARC]
    for quiz in course["quizzes"]:
        assert (quiz["attempts_used"], quiz["best_percent"], quiz["passed"], quiz["in_progress_attempt"]) == (
            0,
            None,
            False,
            None,
        )


def test_progress_after_attempts(student_api, content):
    take(student_api, content[GC], {1, 2, 3, 4, 5, 6, 7})  # 87%: passed
    take(student_api, content[ARC], {1, 2})  # 25%
    in_progress = start(student_api, ARC)

    course = courses(student_api)[COURSE]

    assert (course["quizzes_total"], course["quizzes_passed"]) == (2, 1)
    gc, arc = course["quizzes"]
    assert (gc["attempts_used"], gc["best_percent"], gc["passed"], gc["in_progress_attempt"]) == (1, 87, True, None)
    assert (arc["attempts_used"], arc["best_percent"], arc["passed"], arc["in_progress_attempt"]) == (
        2,
        25,
        False,
        in_progress,
    )


def test_progress_counts_a_quiz_passed_once_whatever_came_after(student_api, content):
    take(student_api, content[GC], set(range(1, 9)))
    take(student_api, content[GC], set())

    course = courses(student_api)[COURSE]

    assert course["quizzes_passed"] == 1
    assert course["quizzes"][0]["best_percent"] == 100
    assert course["quizzes"][0]["attempts_used"] == 2


def test_progress_is_only_the_users_own(student_api, other_api, content):
    take(other_api, content[GC], set(range(1, 9)))
    take(other_api, content[ARC], set(range(1, 9)))
    start(other_api, GC)
    take(student_api, content[ARC], {1})

    mine = courses(student_api)[COURSE]
    theirs = courses(other_api)[COURSE]

    assert mine["quizzes_passed"] == 0
    assert [(q["attempts_used"], q["best_percent"], q["in_progress_attempt"]) for q in mine["quizzes"]] == [
        (0, None, None),
        (1, 12, None),
    ]
    assert theirs["quizzes_passed"] == 2
    assert [q["attempts_used"] for q in theirs["quizzes"]] == [2, 1]


def test_progress_lists_only_enrolled_courses_and_published_quizzes(student_api, student, content):
    QuizFactory(course=Course.objects.get(slug=COURSE), slug="draft", is_published=False)
    elsewhere = CourseFactory(slug="elsewhere")
    QuizFactory(course=elsewhere, slug="elsewhere-quiz")
    empty = CourseFactory(slug="empty-course")
    EnrollmentFactory(user=student, course=empty)

    found = courses(student_api)

    assert set(found) == {COURSE, "empty-course"}
    assert found[COURSE]["quizzes_total"] == 2
    assert "draft" not in [quiz["slug"] for quiz in found[COURSE]["quizzes"]]
    assert (found["empty-course"]["quizzes_total"], found["empty-course"]["quizzes"]) == (0, [])


def test_progress_of_a_user_enrolled_nowhere(outsider_api, content):
    assert outsider_api.get(PROGRESS_URL).json() == {"count": 0, "next": None, "previous": None, "results": []}


@pytest.mark.parametrize(("language", "expected"), [("ur", "ur"), ("sn", "sn"), ("id", "id")])
def test_progress_in_the_requested_language(student_api, content, language, expected):
    course = courses(student_api, lang=language)[COURSE]
    column = "title_ind" if language == "id" else f"title_{language}"

    assert course["title"] == getattr(Course.objects.get(slug=COURSE), column)
    assert course["title_language"] == expected
    gc = course["quizzes"][0]
    assert gc["title_language"] == ("ur" if language == "ur" else "en")


def test_progress_unknown_language_is_400(student_api, content):
    assert_error(student_api.get(PROGRESS_URL, {"lang": "xx"}), 400, "unknown_language")


def test_progress_is_get_only(student_api, content):
    assert_error(student_api.post(PROGRESS_URL, {}, format="json"), 405, "method_not_allowed")
