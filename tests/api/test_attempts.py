"""Attempts: start or resume, read, answer, finish; someone else's attempt is 404."""

import pytest

from quizzes.models import Answer, Attempt
from tests.api import (
    answer,
    answers_url,
    assert_error,
    attempt_url,
    finish_url,
    question,
    right,
    start,
    start_url,
    wrong,
)
from tests.factories import ChoiceFactory, CourseFactory, QuestionFactory, QuizFactory

GC = "gradient-checkpointing"
ARC = "activation-recomputation-tradeoffs"

ATTEMPT_FIELDS = {
    "questions",
    "id",
    "quiz",
    "number",
    "state",
    "started_at",
    "finished_at",
    "score",
    "max_score",
    "percent",
    "passed",
    "pass_mark",
    "answers",
    "is_practice",
    "deadline",
    "time_left",
    "feedback_timing",
    "show_right_answer",
    "feedback_shown",
}
FEEDBACK_FIELDS = {
    "question",
    "choice",
    "correct",
    "correct_choice",
    "regraded",
    "explanation",
    "explanation_language",
    "explanation_machine",
    "feedback_shown",
    "language",
    "answered_at",
}


def snapshot():
    """Every attempt and answer, as values: a refused write must leave this unchanged."""
    return list(Attempt.objects.order_by("pk").values()), list(Answer.objects.order_by("pk").values())


@pytest.fixture
def attempt_id(student_api, gc_quiz) -> int:
    return start(student_api, GC)


@pytest.fixture
def limited_quiz(course):
    """A one-question quiz of the student's course that allows a single attempt."""
    quiz = QuizFactory(course=course, slug="once", position=9, max_attempts=1)
    q = QuestionFactory(quiz=quiz, position=1)
    ChoiceFactory(question=q, position=1, is_correct=True)
    ChoiceFactory(question=q, position=2)
    return quiz


# Start -------------------------------------------------------------------------------


def test_start_creates_an_attempt(student_api, student, gc_quiz):
    response = student_api.post(start_url(GC))

    assert response.status_code == 201
    body = response.json()
    assert set(body) == ATTEMPT_FIELDS
    attempt = Attempt.objects.get(user=student, quiz=gc_quiz)
    assert body == body | {
        "id": attempt.pk,
        "quiz": GC,
        "number": 1,
        "state": "in_progress",
        "finished_at": None,
        "score": None,
        "max_score": 8,
        "percent": None,
        "passed": None,
        "pass_mark": 70,
        "answers": [],
    }


def test_start_again_resumes_the_same_attempt(student_api, student, gc_quiz):
    first = student_api.post(start_url(GC))
    answer(student_api, first.json()["id"], right(gc_quiz, 1))

    second = student_api.post(start_url(GC))

    assert second.status_code == 200
    assert second.json()["id"] == first.json()["id"]
    assert [a["question"] for a in second.json()["answers"]] == [question(gc_quiz, 1).pk]
    assert Attempt.objects.filter(user=student, quiz=gc_quiz).count() == 1


def test_start_after_finishing_creates_the_next_attempt(student_api, attempt_id):
    student_api.post(finish_url(attempt_id))

    response = student_api.post(start_url(GC))

    assert response.status_code == 201
    assert response.json()["id"] != attempt_id
    assert response.json()["number"] == 2


def test_start_ignores_a_body(student_api, student, gc_quiz, other_student):
    response = student_api.post(start_url(GC), {"user": other_student.pk, "number": 7}, format="json")

    assert response.status_code == 201
    assert response.json()["number"] == 1
    assert Attempt.objects.get().user == student


def test_max_attempts_enforced(student_api, student, limited_quiz):
    first = start(student_api, "once")
    assert student_api.post(start_url("once")).status_code == 200  # resuming is not a new attempt
    student_api.post(finish_url(first))
    before = snapshot()

    response = student_api.post(start_url("once"))

    assert_error(response, 409, "no_attempts_left")
    assert snapshot() == before


def test_max_attempts_counts_only_own_attempts(student_api, other_api, limited_quiz):
    other = start(other_api, "once")
    other_api.post(finish_url(other))

    assert student_api.post(start_url("once")).status_code == 201


def test_start_not_enrolled_is_403(outsider_api, content):
    before = snapshot()

    assert_error(outsider_api.post(start_url(GC)), 403, "not_enrolled")
    assert snapshot() == before


def test_start_in_another_course_is_403(student_api, content):
    quiz = QuizFactory(course=CourseFactory(slug="elsewhere"), slug="elsewhere-quiz")
    QuestionFactory(quiz=quiz, position=1)

    assert_error(student_api.post(start_url("elsewhere-quiz")), 403, "not_enrolled")
    assert not Attempt.objects.exists()


@pytest.mark.parametrize("slug", ["no-such-quiz", "draft"])
def test_start_unknown_or_unpublished_is_404(student_api, course, slug):
    QuizFactory(course=course, slug="draft", is_published=False)

    assert_error(student_api.post(start_url(slug)), 404, "not_found")
    assert not Attempt.objects.exists()


def test_start_is_post_only(student_api, gc_quiz):
    assert_error(student_api.get(start_url(GC)), 405, "method_not_allowed")
    assert not Attempt.objects.exists()


# Attempt detail ----------------------------------------------------------------------


def test_attempt_detail_has_feedback_only_for_answered_questions(student_api, gc_quiz, attempt_id):
    answer(student_api, attempt_id, wrong(gc_quiz, 3))
    answer(student_api, attempt_id, right(gc_quiz, 1))

    response = student_api.get(attempt_url(attempt_id))

    assert response.status_code == 200
    body = response.json()
    assert set(body) == ATTEMPT_FIELDS
    assert body["state"] == "in_progress"
    answers = body["answers"]
    assert [a["question"] for a in answers] == [question(gc_quiz, 1).pk, question(gc_quiz, 3).pk]
    for got in answers:
        assert set(got) == FEEDBACK_FIELDS
    first, third = answers
    assert first["choice"] == right(gc_quiz, 1).pk
    assert first["correct"] is True
    assert first["correct_choice"] == right(gc_quiz, 1).pk
    assert first["explanation"] == question(gc_quiz, 1).explanation_en
    assert third["choice"] == wrong(gc_quiz, 3).pk
    assert third["correct"] is False
    assert third["correct_choice"] == right(gc_quiz, 3).pk
    assert third["explanation"] == question(gc_quiz, 3).explanation_en


def test_attempt_detail_explanations_in_the_request_language(student_api, gc_quiz, attempt_id):
    answer(student_api, attempt_id, right(gc_quiz, 1))
    answer(student_api, attempt_id, right(gc_quiz, 3))

    answers = student_api.get(attempt_url(attempt_id), {"lang": "ur"}).json()["answers"]

    assert answers[0]["explanation"] == question(gc_quiz, 1).explanation_ur
    assert answers[0]["explanation_language"] == "ur"
    assert answers[1]["explanation"] == question(gc_quiz, 3).explanation_en
    assert answers[1]["explanation_language"] == "en"
    assert {a["language"] for a in answers} == {"en"}  # the language they were answered in


def test_attempt_detail_after_finishing(student_api, gc_quiz, attempt_id):
    for position in range(1, 7):
        answer(student_api, attempt_id, right(gc_quiz, position))
    student_api.post(finish_url(attempt_id))

    body = student_api.get(attempt_url(attempt_id)).json()

    assert body["state"] == "finished"
    assert body["finished_at"] is not None
    assert (body["score"], body["max_score"], body["percent"], body["passed"]) == (6, 8, 75, True)


# Someone else's attempt, and ids no attempt has -----------------------------------------


@pytest.fixture
def others_attempt(other_api, gc_quiz) -> int:
    attempt_id = start(other_api, GC)
    answer(other_api, attempt_id, right(gc_quiz, 1))
    return attempt_id


def request_on(client, action: str, attempt_id, quiz):
    if action == "detail":
        return client.get(attempt_url(attempt_id))
    if action == "answer":
        return answer(client, attempt_id, right(quiz, 2))
    return client.post(finish_url(attempt_id))


ACTIONS = ["detail", "answer", "finish"]


@pytest.mark.parametrize("action", ACTIONS)
def test_someone_elses_attempt_is_404(student_api, gc_quiz, others_attempt, action):
    before = snapshot()

    response = request_on(student_api, action, others_attempt, gc_quiz)

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert "detail" in response.json()
    assert snapshot() == before


@pytest.mark.parametrize("action", ACTIONS)
def test_someone_elses_attempt_is_404_even_for_the_same_quiz_in_progress(
    student_api, gc_quiz, attempt_id, others_attempt, action
):
    """Having an attempt of one's own at that quiz changes nothing."""
    before = snapshot()

    assert request_on(student_api, action, others_attempt, gc_quiz).status_code == 404
    assert snapshot() == before


@pytest.mark.parametrize("action", ACTIONS)
def test_someone_elses_attempt_is_404_for_an_outsider(outsider_api, gc_quiz, others_attempt, action):
    assert request_on(outsider_api, action, others_attempt, gc_quiz).status_code == 404


@pytest.mark.parametrize("action", ACTIONS)
def test_someone_elses_attempt_404_has_code_not_found(student_api, gc_quiz, others_attempt, action):
    assert_error(request_on(student_api, action, others_attempt, gc_quiz), 404, "not_found")


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("pk", ["99999999999999999999999", "9223372036854775808", "1" + "0" * 40])
def test_huge_attempt_id_is_404_json(student_api, gc_quiz, action, pk):
    response = request_on(student_api, action, pk, gc_quiz)

    assert_error(response, 404, "not_found")


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("pk", ["999999999999999999", "0", "000", "424242"])
def test_unknown_attempt_id_is_404(student_api, gc_quiz, action, pk):
    response = request_on(student_api, action, pk, gc_quiz)

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"


@pytest.mark.parametrize("action", ACTIONS)
def test_unknown_attempt_id_404_has_code_not_found(student_api, gc_quiz, action):
    assert_error(request_on(student_api, action, "999999999999999999", gc_quiz), 404, "not_found")


@pytest.mark.parametrize("pk", ["-1", "abc", "1.5", "1e3"])
def test_non_numeric_attempt_id_is_404_json(student_api, content, pk):
    assert_error(student_api.get(attempt_url(pk)), 404, "not_found")


@pytest.mark.parametrize(("method", "url"), [("get", answers_url), ("get", finish_url), ("delete", attempt_url)])
def test_wrong_method_is_405(student_api, attempt_id, method, url):
    before = snapshot()

    assert_error(getattr(student_api, method)(url(attempt_id)), 405, "method_not_allowed")
    assert snapshot() == before


# Answers -------------------------------------------------------------------------------


def test_answer_right_choice(student_api, student, gc_quiz, attempt_id):
    choice = right(gc_quiz, 1)

    response = answer(student_api, attempt_id, choice)

    assert response.status_code == 201
    body = response.json()
    assert set(body) == FEEDBACK_FIELDS
    assert body == body | {
        "question": choice.question_id,
        "choice": choice.pk,
        "correct": True,
        "correct_choice": choice.pk,
        "explanation": question(gc_quiz, 1).explanation_en,
        "explanation_language": "en",
        "explanation_machine": False,
        "language": "en",
    }
    stored = Answer.objects.get()
    assert (stored.attempt_id, stored.question_id, stored.choice_id) == (attempt_id, choice.question_id, choice.pk)
    assert stored.is_correct is True
    assert stored.language == "en"


def test_answer_wrong_choice(student_api, gc_quiz, attempt_id):
    choice = wrong(gc_quiz, 2)

    body = answer(student_api, attempt_id, choice).json()

    assert body["correct"] is False
    assert body["choice"] == choice.pk
    assert body["correct_choice"] == right(gc_quiz, 2).pk
    assert Answer.objects.get().is_correct is False


@pytest.mark.parametrize(("how", "language"), [("query", "ur"), ("header", "ur"), ("query", "sn"), ("header", "id")])
def test_answer_in_the_request_language(student_api, gc_quiz, attempt_id, how, language):
    choice = right(gc_quiz, 1)
    if how == "query":
        response = student_api.post(
            f"{answers_url(attempt_id)}?lang={language}",
            {"question": choice.question_id, "choice": choice.pk},
            format="json",
        )
    else:
        response = answer(student_api, attempt_id, choice, HTTP_ACCEPT_LANGUAGE=language)

    body = response.json()
    assert body["language"] == language
    assert Answer.objects.get().language == language
    explanation = getattr(question(gc_quiz, 1), "explanation_ind" if language == "id" else f"explanation_{language}")
    if explanation:
        assert (body["explanation"], body["explanation_language"]) == (explanation, language)
    else:  # gradient-checkpointing has no Indonesian
        assert (body["explanation"], body["explanation_language"]) == (question(gc_quiz, 1).explanation_en, "en")


def test_answer_untranslated_explanation_reports_english(student_api, gc_quiz, attempt_id):
    body = answer(student_api, attempt_id, right(gc_quiz, 3), HTTP_ACCEPT_LANGUAGE="ur").json()

    assert body["language"] == "ur"
    assert body["explanation"] == question(gc_quiz, 3).explanation_en
    assert body["explanation_language"] == "en"


def test_same_choice_again_returns_the_recorded_answer(student_api, gc_quiz, attempt_id):
    choice = wrong(gc_quiz, 1)
    first = answer(student_api, attempt_id, choice)

    second = answer(student_api, attempt_id, choice)

    assert second.status_code == 200
    assert second.json() == first.json()
    assert Answer.objects.count() == 1


def test_same_choice_again_in_another_language_keeps_the_first_language(student_api, gc_quiz, attempt_id):
    choice = right(gc_quiz, 1)
    answer(student_api, attempt_id, choice)

    second = answer(student_api, attempt_id, choice, HTTP_ACCEPT_LANGUAGE="ur")

    assert second.status_code == 200
    assert second.json()["language"] == "en"
    assert Answer.objects.get().language == "en"


def test_other_choice_is_409_and_the_first_answer_stays(student_api, gc_quiz, attempt_id):
    answer(student_api, attempt_id, wrong(gc_quiz, 1))
    before = snapshot()

    response = answer(student_api, attempt_id, right(gc_quiz, 1))

    assert_error(response, 409, "already_answered")
    assert snapshot() == before
    assert Answer.objects.get().choice == wrong(gc_quiz, 1)


def test_choice_of_another_question_is_400(student_api, gc_quiz, attempt_id):
    before = snapshot()

    response = student_api.post(
        answers_url(attempt_id),
        {"question": question(gc_quiz, 1).pk, "choice": right(gc_quiz, 2).pk},
        format="json",
    )

    assert_error(response, 400, "choice_not_in_question")
    assert snapshot() == before


def test_question_of_another_quiz_is_400(student_api, content, attempt_id):
    arc_choice = right(content[ARC], 1)
    before = snapshot()

    response = answer(student_api, attempt_id, arc_choice)

    assert_error(response, 400, "question_not_in_quiz")
    assert snapshot() == before


@pytest.mark.parametrize("ids", [(424242, 1), (2**63 - 1, 2**63 - 1)])
def test_unknown_question_is_400(student_api, gc_quiz, attempt_id, ids):
    before = snapshot()

    response = student_api.post(answers_url(attempt_id), {"question": ids[0], "choice": ids[1]}, format="json")

    assert_error(response, 400, "question_not_in_quiz")
    assert snapshot() == before


def test_unknown_choice_is_400(student_api, gc_quiz, attempt_id):
    response = student_api.post(
        answers_url(attempt_id), {"question": question(gc_quiz, 1).pk, "choice": 2**63 - 1}, format="json"
    )

    assert_error(response, 400, "choice_not_in_question")
    assert not Answer.objects.exists()


def test_answer_to_a_finished_attempt_is_409(student_api, gc_quiz, attempt_id):
    answer(student_api, attempt_id, right(gc_quiz, 1))
    student_api.post(finish_url(attempt_id))
    before = snapshot()

    for choice in (right(gc_quiz, 2), right(gc_quiz, 1), wrong(gc_quiz, 1)):
        assert_error(answer(student_api, attempt_id, choice), 409, "attempt_finished")
    assert snapshot() == before


# Finish ----------------------------------------------------------------------------------


def test_finish_grades_the_attempt(student_api, gc_quiz, attempt_id):
    for position in range(1, 7):
        answer(student_api, attempt_id, right(gc_quiz, position))
    answer(student_api, attempt_id, wrong(gc_quiz, 7))  # question 8 unanswered: wrong

    response = student_api.post(finish_url(attempt_id))

    assert response.status_code == 200
    body = response.json()
    assert {key: body[key] for key in ("score", "max_score", "percent", "passed")} == {
        "score": 6,
        "max_score": 8,
        "percent": 75,
        "passed": True,
    }
    attempt = Attempt.objects.get(pk=attempt_id)
    assert attempt.state == Attempt.State.FINISHED
    assert attempt.score == 6


def test_finish_below_the_pass_mark(student_api, gc_quiz, attempt_id):
    for position in range(1, 6):
        answer(student_api, attempt_id, right(gc_quiz, position))

    body = student_api.post(finish_url(attempt_id)).json()

    assert (body["score"], body["percent"], body["passed"]) == (5, 62, False)


def test_finish_without_answers(student_api, attempt_id):
    body = student_api.post(finish_url(attempt_id)).json()

    assert (body["score"], body["max_score"], body["percent"], body["passed"]) == (0, 8, 0, False)


def test_finish_again_returns_the_same_result(student_api, gc_quiz, attempt_id):
    answer(student_api, attempt_id, right(gc_quiz, 1))
    first = student_api.post(finish_url(attempt_id))
    before = snapshot()

    second = student_api.post(finish_url(attempt_id))

    assert second.status_code == 200
    assert second.json() == first.json()
    assert snapshot() == before


def test_finish_ignores_a_body(student_api, attempt_id):
    response = student_api.post(finish_url(attempt_id), {"score": 8, "passed": True}, format="json")

    assert response.json()["score"] == 0
    assert Attempt.objects.get(pk=attempt_id).score == 0
