"""REST API tests: helpers shared by the modules of this package."""

from quizzes.models import Choice, Question, Quiz
from tests.factories import ChoiceFactory, CourseFactory, QuestionFactory, QuizFactory

API = "/api/v1"
TOKEN_URL = f"{API}/auth/token/"
QUIZZES_URL = f"{API}/quizzes/"
PROGRESS_URL = f"{API}/progress/"
SCHEMA_URL = f"{API}/schema/"
DOCS_URL = f"{API}/docs/"


def quiz_url(slug: str) -> str:
    return f"{API}/quizzes/{slug}/"


def start_url(slug: str) -> str:
    return f"{API}/quizzes/{slug}/attempts/"


def attempt_url(pk) -> str:
    return f"{API}/attempts/{pk}/"


def answers_url(pk) -> str:
    return f"{API}/attempts/{pk}/answers/"


def finish_url(pk) -> str:
    return f"{API}/attempts/{pk}/finish/"


def question(quiz: Quiz, position: int) -> Question:
    return quiz.questions.get(position=position)


def right(quiz: Quiz, position: int) -> Choice:
    return question(quiz, position).choices.get(is_correct=True)


def wrong(quiz: Quiz, position: int) -> Choice:
    return question(quiz, position).choices.filter(is_correct=False).order_by("position").first()


def answer(client, attempt_id: int, choice: Choice, **extra):
    """POST an answer of ``choice`` (to its own question) as JSON."""
    return client.post(
        answers_url(attempt_id), {"question": choice.question_id, "choice": choice.pk}, format="json", **extra
    )


def start(client, slug: str, **extra) -> int:
    """Start (or resume) an attempt at ``slug``; its id."""
    response = client.post(start_url(slug), format="json", **extra)
    assert response.status_code in (200, 201), response.content
    return response.json()["id"]


def assert_error(response, status: int, code: str | None = None) -> dict:
    """A JSON error body with ``detail`` and ``code`` (and the expected status)."""
    assert response.status_code == status, (response.status_code, response.content[:500])
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert isinstance(body.get("detail"), str) and body["detail"], body
    assert isinstance(body.get("code"), str) and body["code"], body
    if code is not None:
        assert body["code"] == code, body
    return body


def keys(data) -> set[str]:
    """Every key of every object nested anywhere in a JSON document."""
    found: set[str] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            found.add(key)
            found |= keys(value)
    elif isinstance(data, list):
        for item in data:
            found |= keys(item)
    return found


def small_content() -> dict[str, Quiz]:
    """A small stand-in for the seed content, with the same course and quiz slugs.

    Modules that need no translations override the ``content`` fixture with it:
    loading the fixtures for each of their many parametrized cases is slow.
    """
    course = CourseFactory(slug="memory-efficient-training")
    quiz = QuizFactory(course=course, slug="gradient-checkpointing", pass_mark=70)
    for position in (1, 2):
        question_ = QuestionFactory(quiz=quiz, position=position)
        ChoiceFactory(question=question_, position=1, is_correct=True)
        ChoiceFactory(question=question_, position=2)
    return {quiz.slug: quiz}
