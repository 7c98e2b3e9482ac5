"""Practice on the web: "Practise the questions I missed" on a result page, the practice attempt
it starts (just those questions, labelled, counted nowhere), and its refusals."""

import pytest
from django.urls import reverse
from django.utils.translation import override

from quizzes.attempts.services import (
    NOTHING_MISSED,
    PRACTICE_NOT_YET,
    PRACTICE_UNFINISHED,
    attempt_answer_submit,
    attempt_finish,
    attempt_start,
)
from quizzes.models import Attempt, AttemptQuestion, FeedbackTiming

GC = "gradient-checkpointing"
PRACTISE = "Practise the questions I missed"
PRACTICE_NOTE = "This practice does not count towards your grade."


def url(name: str, language: str = "en", **kwargs) -> str:
    with override(language):
        return reverse(f"quizzes:{name}", kwargs=kwargs)


def words(text) -> str:
    return " ".join(str(text).split())


def answer(user, attempt, question, *, right: bool) -> None:
    choice = question.choices.filter(is_correct=right).first()
    attempt_answer_submit(user=user, attempt_id=attempt.pk, question_id=question.pk, choice_id=choice.pk, language="en")


def finished_attempt(user, quiz, *, wrong=(), unanswered=()) -> Attempt:
    """A finished attempt of ``user`` at ``quiz``: every question answered right but those at the
    positions ``wrong`` (answered wrong) and ``unanswered``."""
    attempt, _created = attempt_start(user=user, quiz=quiz)
    for question in quiz.questions.filter(is_archived=False).prefetch_related("choices"):
        if question.position not in unanswered:
            answer(user, attempt, question, right=question.position not in wrong)
    return attempt_finish(attempt=attempt)


def missed_ids(quiz, positions) -> set[int]:
    return set(quiz.questions.filter(position__in=positions).values_list("pk", flat=True))


def set_timing(quiz, timing, **fields) -> None:
    quiz.feedback_timing = timing
    for name, value in fields.items():
        setattr(quiz, name, value)
    quiz.save()


def practise_button(page):
    return [button for button in page.find_all("button") if words(button.text) == PRACTISE]


@pytest.fixture
def quiz(gc_quiz):
    return gc_quiz


class TestTheButton:
    def test_shown_when_the_review_shows_what_was_missed(self, student, student_client, quiz, parse_html):
        attempt = finished_attempt(student, quiz, wrong={1}, unanswered={2})
        page = parse_html(student_client.get(url("attempt_result", pk=attempt.pk)))
        (button,) = practise_button(page)
        form = next(node for node in button.ancestors() if node.tag == "form")
        assert form["method"] == "post"
        assert form["action"] == url("attempt_practice", pk=attempt.pk)

    def test_not_shown_when_nothing_was_missed(self, student, student_client, quiz, parse_html):
        attempt = finished_attempt(student, quiz)
        assert practise_button(parse_html(student_client.get(url("attempt_result", pk=attempt.pk)))) == []

    @pytest.mark.parametrize("timing", [FeedbackTiming.NEVER, FeedbackTiming.AFTER_CLOSE])
    def test_not_shown_while_the_review_hides_correctness(self, student, student_client, quiz, parse_html, timing):
        set_timing(quiz, timing)  # after_close: the quiz has no close date, so it never shows
        attempt = finished_attempt(student, quiz, wrong={1})
        page = parse_html(student_client.get(url("attempt_result", pk=attempt.pk)))
        assert practise_button(page) == []

    def test_shown_after_the_attempt_once_finished(self, student, student_client, quiz, parse_html):
        set_timing(quiz, FeedbackTiming.AFTER_ATTEMPT)
        attempt = finished_attempt(student, quiz, wrong={3})
        assert len(practise_button(parse_html(student_client.get(url("attempt_result", pk=attempt.pk))))) == 1


class TestPractice:
    def test_starts_with_exactly_the_missed_questions(self, student, student_client, quiz):
        attempt = finished_attempt(student, quiz, wrong={1, 4}, unanswered={6})
        response = student_client.post(url("attempt_practice", pk=attempt.pk))
        practice = Attempt.objects.get(user=student, is_practice=True)
        assert response.status_code == 302
        assert response["Location"] == url("attempt", pk=practice.pk)
        asked = set(AttemptQuestion.objects.filter(attempt=practice).values_list("question_id", flat=True))
        assert asked == missed_ids(quiz, {1, 4, 6})
        assert practice.deadline is None and practice.number == 1

    def test_a_second_post_resumes_the_practice_in_progress(self, student, student_client, quiz):
        attempt = finished_attempt(student, quiz, wrong={1})
        first = student_client.post(url("attempt_practice", pk=attempt.pk))
        second = student_client.post(url("attempt_practice", pk=attempt.pk))
        assert first["Location"] == second["Location"]
        assert Attempt.objects.filter(user=student, is_practice=True).count() == 1

    def test_labelled_on_its_question_and_result_pages(self, student, student_client, quiz, parse_html):
        attempt = finished_attempt(student, quiz, wrong={2})
        student_client.post(url("attempt_practice", pk=attempt.pk))
        practice = Attempt.objects.get(user=student, is_practice=True)
        question_page = parse_html(student_client.get(url("attempt_question", pk=practice.pk, position=1)))
        assert PRACTICE_NOTE in words(question_page.one("p", class_="practice").text)
        answer(student, practice, quiz.questions.get(position=2), right=True)
        attempt_finish(attempt=practice)
        result_page = parse_html(student_client.get(url("attempt_result", pk=practice.pk)))
        assert PRACTICE_NOTE in words(result_page.one("p", class_="practice").text)
        graded_page = parse_html(student_client.get(url("attempt_result", pk=attempt.pk)))
        assert graded_page.find("p", class_="practice") is None

    def test_not_counted_on_the_dashboard_or_the_quiz_page(self, student, student_client, quiz, parse_html):
        attempt = finished_attempt(student, quiz, wrong={1, 2, 3, 4, 5})  # 3 of 8: not passed
        student_client.post(url("attempt_practice", pk=attempt.pk))
        practice = Attempt.objects.get(user=student, is_practice=True)
        for position in (1, 2, 3, 4, 5):
            answer(student, practice, quiz.questions.get(position=position), right=True)
        attempt_finish(attempt=practice)

        dashboard = student_client.get(url("dashboard"))
        (shown,) = [q for c in dashboard.context["courses"] for q in c.progress_quizzes if q.slug == GC]
        assert (shown.attempts_used, shown.best_percent, shown.passed) == (1, 37, False)

        response = student_client.get(url("quiz", slug=GC))
        assert [a.pk for a in response.context["attempts"]] == [attempt.pk]
        assert [a.pk for a in response.context["practice_attempts"]] == [practice.pk]
        page = parse_html(response)
        assert page.one("section", aria_labelledby="practice-attempts").find("a")["href"] == url(
            "attempt_result", pk=practice.pk
        )
        past = page.one("section", aria_labelledby="past-attempts")
        assert url("attempt_result", pk=practice.pk) not in {a.get("href") for a in past.find_all("a")}

    def test_a_practice_in_progress_is_not_the_attempt_to_continue(self, student, student_client, quiz, parse_html):
        attempt = finished_attempt(student, quiz, wrong={1})
        student_client.post(url("attempt_practice", pk=attempt.pk))
        response = student_client.get(url("quiz", slug=GC))
        assert response.context["in_progress"] is None
        practice = Attempt.objects.get(user=student, is_practice=True)
        links = {a.get("href") for a in parse_html(response).one("section", aria_labelledby="practice-attempts").iter()}
        assert url("attempt", pk=practice.pk) in links


class TestRefusals:
    def assert_refused(self, client, attempt, message, parse_html, *, status=409, language="en"):
        before = list(Attempt.objects.order_by("pk").values_list("pk", "state"))
        response = client.post(url("attempt_practice", language, pk=attempt.pk))
        assert response.status_code == status
        with override(language):
            expected = words(message)
        assert words(parse_html(response).one("div", class_="alert").text) == expected
        assert list(Attempt.objects.order_by("pk").values_list("pk", "state")) == before
        assert not Attempt.objects.filter(is_practice=True).exists()

    def test_an_attempt_never_finished(self, student, student_client, quiz, parse_html):
        attempt, _created = attempt_start(user=student, quiz=quiz)
        answer(student, attempt, quiz.questions.get(position=1), right=False)
        self.assert_refused(student_client, attempt, PRACTICE_UNFINISHED, parse_html)

    def test_nothing_missed(self, student, student_client, quiz, parse_html):
        attempt = finished_attempt(student, quiz)
        self.assert_refused(student_client, attempt, NOTHING_MISSED, parse_html)

    @pytest.mark.parametrize("language", ["en", "ur"])
    def test_review_not_available(self, student, student_client, quiz, parse_html, language):
        set_timing(quiz, FeedbackTiming.NEVER)
        attempt = finished_attempt(student, quiz, wrong={1})
        self.assert_refused(student_client, attempt, PRACTICE_NOT_YET, parse_html, language=language)

    def test_someone_elses_attempt_is_not_found(self, student, other_student, client, quiz):
        attempt = finished_attempt(other_student, quiz, wrong={1})
        client.force_login(student)
        assert client.post(url("attempt_practice", pk=attempt.pk)).status_code == 404
        assert not Attempt.objects.filter(is_practice=True).exists()

    def test_only_post(self, student, student_client, quiz):
        attempt = finished_attempt(student, quiz, wrong={1})
        assert student_client.get(url("attempt_practice", pk=attempt.pk)).status_code == 405

    def test_anonymous_goes_to_log_in(self, student, client, quiz):
        attempt = finished_attempt(student, quiz, wrong={1})
        response = client.post(url("attempt_practice", pk=attempt.pk))
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
