"""Nothing the API says before a question is answered hints at its right choice or its explanation.

The quiz built here carries a unique marker in every explanation, in every
language column, one marker per question. Choice texts are alike for right
and wrong choices, so only a ``correct``-like key or an explanation could
give the answer away: neither may appear before the question is answered.
"""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from quizzes.models import FeedbackTiming, Quiz
from tests.api import (
    PROGRESS_URL,
    QUIZZES_URL,
    answer,
    answers_url,
    assert_error,
    attempt_url,
    finish_url,
    keys,
    quiz_url,
    start,
    start_url,
)
from tests.api.conftest import token_client
from tests.factories import ChoiceFactory, CourseFactory, EnrollmentFactory, QuestionFactory, QuizFactory, UserFactory

MARKER = "ZZ-EXPLANATION-MARKER-456"
LANGUAGES = ["en", "ur", "sn", "id"]
COLUMN_SUFFIX = {"en": "en", "ur": "ur", "sn": "sn", "id": "ind"}
QUESTIONS = 3
SLUG = "leak-quiz"


def marker(position: int, language: str) -> str:
    return f"{MARKER}-Q{position}-{language}"


@pytest.fixture
def quiz(db) -> Quiz:
    course = CourseFactory(slug="leak-course", title_ur="کورس", title_sn="Kosi", title_ind="Kursus")
    quiz = QuizFactory(course=course, slug=SLUG, title_ur="کوئز", title_sn="Bvunzo", title_ind="Kuis")
    for position in range(1, QUESTIONS + 1):
        explanations = {f"explanation_{COLUMN_SUFFIX[language]}": marker(position, language) for language in LANGUAGES}
        question = QuestionFactory(
            quiz=quiz,
            position=position,
            text_en=f"Question {position}?",
            text_ur=f"سوال {position}؟",
            text_sn=f"Mubvunzo {position}?",
            text_ind=f"Pertanyaan {position}?",
            **explanations,
        )
        right_position = position  # the right choice moves: position is no hint either
        for choice_position in range(1, 4):
            ChoiceFactory(
                question=question,
                position=choice_position,
                text_en=f"Option {position}.{choice_position}",
                text_ur=f"اختیار {position}.{choice_position}",
                text_sn=f"Sarudzo {position}.{choice_position}",
                text_ind=f"Opsi {position}.{choice_position}",
                is_correct=choice_position == right_position,
            )
    return quiz


@pytest.fixture
def learner(quiz):
    user = UserFactory(username="leak-learner")
    EnrollmentFactory(user=user, course=quiz.course)
    return user


@pytest.fixture
def client(learner):
    return token_client(learner)


def assert_no_leak(response, *, allowed_positions=()):
    """No correct-like key and no explanation, except of the questions at ``allowed_positions``."""
    assert response.status_code < 500, response.content[:300]
    body = response.json()
    found = keys(body)
    if not allowed_positions:
        assert not {key for key in found if "correct" in key.lower() or "explanation" in key.lower()}, found
        assert b"correct" not in response.content.lower()
    assert b"is_correct" not in response.content
    for position in range(1, QUESTIONS + 1):
        if position in allowed_positions:
            continue
        for language in LANGUAGES:
            assert marker(position, language).encode() not in response.content, (position, language)
    if not allowed_positions:
        assert MARKER.encode() not in response.content


def language_variants(url: str):
    """The same GET in every language, by query and by header, and with none."""
    yield url, {}
    for language in LANGUAGES:
        yield f"{url}?lang={language}", {}
        yield url, {"HTTP_ACCEPT_LANGUAGE": language}


def every_read(attempt_id: int | None):
    urls = [QUIZZES_URL, quiz_url(SLUG), PROGRESS_URL]
    if attempt_id is not None:
        urls.append(attempt_url(attempt_id))
    for url in urls:
        yield from language_variants(url)


def test_fixture_quiz_has_markers_in_every_language(quiz):
    for question in quiz.questions.all():
        for language in LANGUAGES:
            assert getattr(question, f"explanation_{COLUMN_SUFFIX[language]}") == marker(question.position, language)
        assert question.choices.filter(is_correct=True).count() == 1


def test_nothing_leaks_before_any_answer(client, quiz):
    for url, headers in every_read(None):
        assert_no_leak(client.get(url, **headers))

    for url, headers in language_variants(start_url(SLUG)):
        response = client.post(url, **headers)
        assert response.status_code in (200, 201)
        assert_no_leak(response)
    attempt_id = response.json()["id"]

    for url, headers in every_read(attempt_id):
        response = client.get(url, **headers)
        assert response.status_code == 200
        assert_no_leak(response)


def test_detail_shows_the_choices_but_not_which_is_right(client, quiz):
    body = client.get(quiz_url(SLUG)).json()

    for question in body["questions"]:
        assert len(question["choices"]) == 3
        for choice in question["choices"]:
            assert set(choice) == {"id", "position", "text", "text_language", "text_machine"}


def test_refusals_leak_nothing(client, quiz):
    attempt_id = start(client, SLUG)
    q1, q2 = quiz.questions.order_by("position")[:2]
    other_choice = q2.choices.get(is_correct=True)

    for payload in (
        {"question": q1.pk, "choice": other_choice.pk},
        {"question": q1.pk, "choice": 2**63 - 1},
        {"question": 2**63 - 1, "choice": other_choice.pk},
        {"question": q1.pk},
        {"question": "x", "choice": "y"},
    ):
        response = client.post(answers_url(attempt_id), payload, format="json")
        assert response.status_code == 400
        assert_no_leak(response)


def test_finishing_unanswered_leaks_nothing(client, quiz):
    attempt_id = start(client, SLUG)

    assert_no_leak(client.post(finish_url(attempt_id)))
    for url, headers in every_read(attempt_id):
        assert_no_leak(client.get(url, **headers))


@pytest.mark.parametrize("right_answer", [True, False], ids=["right", "wrong"])
def test_after_answering_question_1_only_its_feedback_appears(client, quiz, right_answer):
    attempt_id = start(client, SLUG)
    q1 = quiz.questions.get(position=1)
    right_choice = q1.choices.get(is_correct=True)
    chosen = right_choice if right_answer else q1.choices.filter(is_correct=False).first()

    response = answer(client, attempt_id, chosen, HTTP_ACCEPT_LANGUAGE="sn")

    assert response.status_code == 201
    feedback = response.json()
    assert feedback["correct"] is right_answer
    assert feedback["correct_choice"] == right_choice.pk
    assert feedback["explanation"] == marker(1, "sn")
    assert_no_leak(response, allowed_positions={1})
    with pytest.raises(AssertionError):  # the checker does see feedback
        assert_no_leak(response)

    for language in LANGUAGES:
        response = client.get(attempt_url(attempt_id), {"lang": language})
        assert_no_leak(response, allowed_positions={1})
        answers = response.json()["answers"]
        assert [a["question"] for a in answers] == [q1.pk]
        assert answers[0]["explanation"] == marker(1, language)
        assert answers[0]["explanation_language"] == language
        assert answers[0]["correct_choice"] == right_choice.pk
        # Once in the answers, once in the feedback of its question.
        assert response.content.count(b'"correct_choice"') == 2
        (shown,) = [item for item in response.json()["questions"] if item["feedback"] is not None]
        assert shown["id"] == q1.pk and shown["feedback"] == answers[0]

    # The quiz, list and progress still say nothing about any question.
    for url, headers in every_read(None):
        assert_no_leak(client.get(url, **headers))


def test_already_answered_refusal_leaks_nothing_new(client, quiz):
    attempt_id = start(client, SLUG)
    q1 = quiz.questions.get(position=1)
    answer(client, attempt_id, q1.choices.filter(is_correct=False).first())

    response = answer(client, attempt_id, q1.choices.get(is_correct=True))

    assert_error(response, 409, "already_answered")
    assert_no_leak(response)


def test_another_students_answers_do_not_leak(client, learner, quiz):
    other = UserFactory(username="leak-other")
    EnrollmentFactory(user=other, course=quiz.course)
    other_client = token_client(other)
    other_attempt = start(other_client, SLUG)
    for position in range(1, QUESTIONS + 1):
        answer(other_client, other_attempt, quiz.questions.get(position=position).choices.get(is_correct=True))
    other_client.post(finish_url(other_attempt))

    attempt_id = start(client, SLUG)

    for url, headers in every_read(attempt_id):
        assert_no_leak(client.get(url, **headers))
    response = client.get(attempt_url(other_attempt))
    assert response.status_code == 404
    assert_no_leak(response)


# The review options (feedback_timing x show_right_answer) on every response that can carry feedback.

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
CLOSES_AT = NOW + timedelta(days=1)


def assert_feedback(feedback: dict, quiz, *, shown: bool, right_shown: bool, language: str = "en") -> None:
    """Question 1's feedback (answered wrong) shows what the review shows, and only that."""
    right_choice = quiz.questions.get(position=1).choices.get(is_correct=True)
    assert feedback["feedback_shown"] is shown
    if shown:
        assert (feedback["correct"], feedback["regraded"]) == (False, False)
        assert (feedback["explanation"], feedback["explanation_language"]) == (marker(1, language), language)
    else:
        assert [feedback[name] for name in ("correct", "regraded", "explanation", "explanation_language")] == [None] * 4
    assert feedback["correct_choice"] == (right_choice.pk if right_shown else None)


def assert_shows(response, quiz, *, shown: bool, right_shown: bool, language: str = "en") -> None:
    """An answer's or an attempt's response: its feedback as the review shows it, no other."""
    assert response.status_code in (200, 201), response.content[:300]
    body = response.json()
    feedbacks = [body] if "answers" not in body else body["answers"]
    if "questions" in body:
        feedbacks += [item["feedback"] for item in body["questions"] if item["feedback"] is not None]
    assert feedbacks
    for feedback in feedbacks:
        assert_feedback(feedback, quiz, shown=shown, right_shown=right_shown, language=language)
    # Withheld, its keys are there (null): no other question's, nor this one's explanation.
    assert_no_leak(response, allowed_positions={1})
    if not shown:
        assert MARKER.encode() not in response.content


@pytest.mark.parametrize("show_right_answer", [True, False], ids=["right-answer", "no-right-answer"])
@pytest.mark.parametrize("timing", list(FeedbackTiming.values))
def test_every_response_honours_the_review_options(client, quiz, timing, show_right_answer):
    Quiz.objects.filter(pk=quiz.pk).update(
        feedback_timing=timing, show_right_answer=show_right_answer, closes_at=CLOSES_AT
    )
    q1 = quiz.questions.get(position=1)
    chosen = q1.choices.filter(is_correct=False).first()

    def every_response(*, shown: bool, before_finish: bool) -> None:
        right_shown = shown and show_right_answer
        if before_finish:
            assert_shows(answer(client, attempt_id, chosen, **key("a1")), quiz, shown=shown, right_shown=right_shown)
            assert_shows(answer(client, attempt_id, chosen), quiz, shown=shown, right_shown=right_shown)  # a retry
        replay = answer(client, attempt_id, chosen, **key("a1"))
        assert (replay.status_code, replay["Idempotent-Replayed"]) == (201, "true")
        assert_shows(replay, quiz, shown=shown, right_shown=right_shown)
        replay = client.post(start_url(SLUG), format="json", **key("s1"))
        assert (replay.status_code, replay["Idempotent-Replayed"]) == (201, "true")
        assert_shows(replay, quiz, shown=shown, right_shown=right_shown)
        for language in LANGUAGES:
            response = client.get(attempt_url(attempt_id), {"lang": language})
            assert_shows(response, quiz, shown=shown, right_shown=right_shown, language=language)
            assert response.json()["feedback_shown"] is shown
            assert (response.json()["feedback_timing"], response.json()["show_right_answer"]) == (
                timing,
                show_right_answer,
            )
        refused = answer(client, attempt_id, q1.choices.get(is_correct=True))
        assert_error(refused, 409, "already_answered" if before_finish else "attempt_finished")
        assert_no_leak(refused)
        for url, headers in every_read(None):  # the quiz, the list, the progress: nothing
            assert_no_leak(client.get(url, **headers))

    with time_machine.travel(NOW, tick=False) as clock:
        attempt_id = client.post(start_url(SLUG), format="json", **key("s1")).json()["id"]
        every_response(shown=timing == FeedbackTiming.IMMEDIATELY, before_finish=True)

        client.post(finish_url(attempt_id))
        every_response(shown=timing in (FeedbackTiming.IMMEDIATELY, FeedbackTiming.AFTER_ATTEMPT), before_finish=False)

        clock.move_to(CLOSES_AT)
        every_response(shown=timing != FeedbackTiming.NEVER, before_finish=False)


def test_a_replay_shows_no_more_than_the_review_shows_now(client, quiz):
    attempt_id = start(client, SLUG, **key("s1"))
    first = answer(client, attempt_id, quiz.questions.get(position=1).choices.get(is_correct=True), **key("a1"))
    assert first.json()["explanation"] == marker(1, "en")

    Quiz.objects.filter(pk=quiz.pk).update(feedback_timing=FeedbackTiming.NEVER)  # the teacher changes their mind

    for response in (
        answer(client, attempt_id, quiz.questions.get(position=1).choices.get(is_correct=True), **key("a1")),
        client.post(start_url(SLUG), format="json", **key("s1")),
    ):
        assert response["Idempotent-Replayed"] == "true"
        assert MARKER.encode() not in response.content
        body = response.json()
        for feedback in body.get("answers", [body]):
            assert (feedback["correct"], feedback["correct_choice"], feedback["feedback_shown"]) == (None, None, False)


def key(value: str) -> dict:
    return {"HTTP_IDEMPOTENCY_KEY": value}
