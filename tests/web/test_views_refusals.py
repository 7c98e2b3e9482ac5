"""Every refused request: its status, a clear message in the page's language,
and nothing changed in the database."""

import pytest
from django.test import Client
from django.utils.translation import gettext, override

from quizzes.attempts.services import (
    ALREADY_ANSWERED,
    ATTEMPT_FINISHED,
    CHOICE_NOT_IN_QUESTION,
    OTHER_QUESTION,
    QUESTION_NOT_IN_QUIZ,
)
from quizzes.models import Answer, Attempt, Enrollment
from quizzes.web.views import CHOOSE_AN_ANSWER, MALFORMED_ANSWER
from tests.factories import AttemptFactory, answer_row

LANGUAGES = ["en", "ur", "sn", "id"]
DIRECTION = {"en": "ltr", "ur": "rtl", "sn": "ltr", "id": "ltr"}
GC = "gradient-checkpointing"
AR = "activation-recomputation-tradeoffs"


def translated(message, language: str) -> str:
    with override(language):
        return " ".join(str(message).split())


def snapshot():
    """Every attempt and answer, with all their values."""
    return (
        list(Attempt.objects.order_by("pk").values()),
        list(Answer.objects.order_by("pk").values()),
        list(Enrollment.objects.order_by("pk").values()),
    )


def assert_page_language(page, language: str) -> None:
    html = page.one("html")
    assert (html["lang"], html["dir"]) == (language, DIRECTION[language])


def assert_alert(page, message, language: str) -> None:
    assert page.one("div", class_="alert", role="alert").text == translated(message, language)


def right(quiz, position: int):
    return quiz.questions.get(position=position).choices.get(is_correct=True)


def wrong(quiz, position: int):
    return quiz.questions.get(position=position).choices.filter(is_correct=False).order_by("position").first()


def question_url(language: str, attempt: Attempt, position: int = 1) -> str:
    return f"/{language}/attempts/{attempt.pk}/questions/{position}/"


@pytest.fixture
def attempt(student, gc_quiz) -> Attempt:
    """The student's attempt in progress, question 1 answered right."""
    attempt = AttemptFactory(user=student, quiz=gc_quiz, number=1, max_score=8, pass_mark=70)
    answer_row(
        attempt=attempt, question=gc_quiz.questions.get(position=1), choice=right(gc_quiz, 1), is_correct=True
    ).save()
    return attempt


# Forged or broken answers ------------------------------------------------------------


class TestForgedAnswers:
    @pytest.mark.parametrize("language", LANGUAGES)
    def test_choice_of_another_question(self, student_client, attempt, gc_quiz, parse_html, language):
        question = gc_quiz.questions.get(position=2)
        before = snapshot()
        response = student_client.post(
            question_url(language, attempt, 2), {"question": question.pk, "choice": right(gc_quiz, 3).pk}
        )
        assert response.status_code == 400
        page = parse_html(response)
        assert_page_language(page, language)
        assert_alert(page, CHOICE_NOT_IN_QUESTION, language)
        assert page.one("form", class_="question")  # the question can still be answered
        assert snapshot() == before

    @pytest.mark.parametrize("language", LANGUAGES)
    def test_question_of_another_quiz(self, student_client, attempt, content, parse_html, language):
        foreign = right(content[AR], 2)
        before = snapshot()
        response = student_client.post(
            question_url(language, attempt, 2), {"question": foreign.question_id, "choice": foreign.pk}
        )
        assert response.status_code == 400
        page = parse_html(response)
        assert_page_language(page, language)
        assert_alert(page, QUESTION_NOT_IN_QUIZ, language)
        assert snapshot() == before

    @pytest.mark.parametrize("language", LANGUAGES)
    def test_missing_choice(self, student_client, attempt, gc_quiz, parse_html, language):
        question = gc_quiz.questions.get(position=2)
        before = snapshot()
        response = student_client.post(question_url(language, attempt, 2), {"question": question.pk})
        assert response.status_code == 400
        page = parse_html(response)
        assert_page_language(page, language)
        assert_alert(page, CHOOSE_AN_ANSWER, language)
        assert len(page.one("fieldset").find_all("input", type="radio")) == 4
        assert snapshot() == before

    def test_empty_post(self, student_client, attempt, parse_html):
        before = snapshot()
        response = student_client.post(question_url("en", attempt, 2), {})
        assert response.status_code == 400
        assert_alert(parse_html(response), CHOOSE_AN_ANSWER, "en")
        assert snapshot() == before

    @pytest.mark.parametrize(
        ("question", "choice"),
        [
            ("abc", "1"),
            ("{q}", "abc"),
            ("{q}", "1.5"),
            ("{q}", "-1"),
            ("{q}", " 1"),
            ("{q}", "1e3"),
            ("{q}", "0x10"),
            ("", "{c}"),
            ("{q}", "9" * 30),
            ("9" * 30, "{c}"),
            ("{q}", "1" * 1000),
        ],
    )
    @pytest.mark.parametrize("language", ["en", "ur"])
    def test_malformed_ids(self, student_client, attempt, gc_quiz, parse_html, question, choice, language):
        target = gc_quiz.questions.get(position=2)
        data = {
            "question": question.format(q=target.pk, c=right(gc_quiz, 2).pk),
            "choice": choice.format(q=target.pk, c=right(gc_quiz, 2).pk),
        }
        before = snapshot()
        response = student_client.post(question_url(language, attempt, 2), data)
        assert response.status_code == 400
        page = parse_html(response)
        assert_page_language(page, language)
        assert_alert(page, MALFORMED_ANSWER, language)
        assert snapshot() == before

    @pytest.mark.parametrize(("question", "choice"), [("9" * 17, "1"), ("1", "9" * 17), ("9" * 9, "9" * 9)])
    def test_large_ids_that_fit_are_unknown_not_errors(self, student_client, attempt, question, choice):
        before = snapshot()
        response = student_client.post(question_url("en", attempt, 2), {"question": question, "choice": choice})
        assert response.status_code == 400
        assert snapshot() == before

    @pytest.mark.parametrize("field", ["choice", "question"])
    def test_unicode_digit_lookalikes_are_malformed(self, student_client, attempt, gc_quiz, field):
        data = {"question": str(gc_quiz.questions.get(position=2).pk), "choice": str(right(gc_quiz, 2).pk)}
        data[field] = "²"
        before = snapshot()
        response = student_client.post(question_url("en", attempt, 2), data)
        assert response.status_code == 400
        assert snapshot() == before

    @pytest.mark.parametrize("language", ["en", "ur"])
    def test_an_answer_for_another_question_of_the_quiz_is_refused(
        self, student_client, attempt, gc_quiz, parse_html, language
    ):
        # The page shows question 1; the form claims question 2 (a stale tab or a forgery).
        before = snapshot()
        data = {"question": gc_quiz.questions.get(position=2).pk, "choice": right(gc_quiz, 2).pk}

        response = student_client.post(question_url(language, attempt, 1), data)

        assert response.status_code == 400
        page = parse_html(response)
        assert_page_language(page, language)
        assert_alert(page, OTHER_QUESTION, language)
        assert snapshot() == before

    def test_several_choices_posted_keeps_one_answer(self, student_client, attempt, gc_quiz):
        # A forged form with two radio values: the last value is read, one answer is written.
        question = gc_quiz.questions.get(position=2)
        response = student_client.post(
            question_url("en", attempt, 2),
            {"question": question.pk, "choice": [wrong(gc_quiz, 2).pk, right(gc_quiz, 2).pk]},
        )
        assert response.status_code == 302
        (answer,) = Answer.objects.filter(attempt=attempt, question=question)
        assert answer.choice_id == right(gc_quiz, 2).pk


class TestSecondAnswer:
    @pytest.mark.parametrize("language", LANGUAGES)
    def test_a_different_second_answer_is_refused(self, student_client, attempt, gc_quiz, parse_html, language):
        question = gc_quiz.questions.get(position=1)
        before = snapshot()
        response = student_client.post(
            question_url(language, attempt, 1), {"question": question.pk, "choice": wrong(gc_quiz, 1).pk}
        )
        assert response.status_code == 409
        page = parse_html(response)
        assert_page_language(page, language)
        assert_alert(page, ALREADY_ANSWERED, language)
        # the recorded answer's feedback is still shown, and no form to answer again
        feedback = page.one(id="feedback")
        assert feedback["role"] == "status"
        assert "correct" in feedback.classes
        chosen = page.one("li", class_="chosen")
        assert "right" in chosen.classes
        assert page.find("form", class_="question") is None
        assert snapshot() == before

    def test_the_same_answer_again_is_accepted_once(self, student_client, attempt, gc_quiz):
        question = gc_quiz.questions.get(position=1)
        before = snapshot()
        response = student_client.post(
            question_url("ur", attempt, 1), {"question": question.pk, "choice": right(gc_quiz, 1).pk}
        )
        assert response.status_code == 302
        assert response["Location"] == f"{question_url('ur', attempt, 1)}#feedback"
        assert snapshot() == before  # the first answer (in English) stays the record


class TestFinishedAttempt:
    @pytest.fixture
    def finished(self, attempt):
        Attempt.objects.filter(pk=attempt.pk).update(
            state=Attempt.State.FINISHED, score=1, finished_at=attempt.started_at
        )
        attempt.refresh_from_db()
        return attempt

    @pytest.mark.parametrize("language", LANGUAGES)
    def test_answer_to_a_finished_attempt(self, student_client, finished, gc_quiz, parse_html, language):
        question = gc_quiz.questions.get(position=2)
        before = snapshot()
        response = student_client.post(
            question_url(language, finished, 2), {"question": question.pk, "choice": right(gc_quiz, 2).pk}
        )
        assert response.status_code == 409
        page = parse_html(response)
        assert_page_language(page, language)
        assert_alert(page, ATTEMPT_FINISHED, language)
        assert snapshot() == before

    def test_finished_attempt_question_page_leads_to_the_result(self, student_client, finished):
        response = student_client.get(question_url("sn", finished, 2))
        assert response.status_code == 302
        assert response["Location"] == f"/sn/attempts/{finished.pk}/result/"

    def test_finishing_again_changes_nothing(self, student_client, finished):
        before = snapshot()
        response = student_client.post(f"/en/attempts/{finished.pk}/finish/")
        assert response.status_code == 302
        assert snapshot() == before


# Someone else's attempt ---------------------------------------------------------------------


class TestSomeoneElsesAttempt:
    @pytest.fixture
    def intruder(self, other_student) -> Client:
        client = Client()
        client.force_login(other_student)
        return client

    @pytest.mark.parametrize(
        ("method", "path"),
        [
            ("get", "/{lang}/attempts/{pk}/"),
            ("get", "/{lang}/attempts/{pk}/questions/1/"),
            ("get", "/{lang}/attempts/{pk}/questions/2/"),
            ("post", "/{lang}/attempts/{pk}/questions/2/"),
            ("post", "/{lang}/attempts/{pk}/finish/"),
            ("get", "/{lang}/attempts/{pk}/result/"),
        ],
    )
    @pytest.mark.parametrize("language", ["en", "ur", "sn"])
    def test_is_not_found(self, intruder, attempt, gc_quiz, parse_html, method, path, language):
        data = {"question": gc_quiz.questions.get(position=2).pk, "choice": right(gc_quiz, 2).pk}
        before = snapshot()
        url = path.format(lang=language, pk=attempt.pk)
        response = intruder.post(url, data) if method == "post" else intruder.get(url)
        assert response.status_code == 404
        page = parse_html(response)
        assert_page_language(page, language)
        assert "404.html" in [template.name for template in response.templates]
        with override(language):
            assert page.one("h1").text == gettext("Page not found")
        # nothing of the attempt leaks into the page
        assert gc_quiz.questions.get(position=1).text_en not in response.content.decode()
        assert snapshot() == before

    def test_finished_attempt_result_is_not_found(self, intruder, attempt):
        Attempt.objects.filter(pk=attempt.pk).update(
            state=Attempt.State.FINISHED, score=1, finished_at=attempt.started_at
        )
        assert intruder.get(f"/en/attempts/{attempt.pk}/result/").status_code == 404

    def test_finishing_someone_elses_attempt_leaves_it_in_progress(self, intruder, attempt):
        intruder.post(f"/en/attempts/{attempt.pk}/finish/")
        attempt.refresh_from_db()
        assert attempt.state == Attempt.State.IN_PROGRESS
        assert attempt.score is None


# Unknown pages --------------------------------------------------------------------------------


class TestNotFound:
    @pytest.mark.parametrize(
        "path",
        [
            "/{lang}/quizzes/no-such-quiz/",
            "/{lang}/quizzes/no-such-quiz/start/",
            "/{lang}/attempts/999999/",
            "/{lang}/attempts/999999/questions/1/",
            "/{lang}/attempts/999999/result/",
            "/{lang}/attempts/{pk}/questions/99/",
            "/{lang}/attempts/{pk}/questions/0/",
            "/{lang}/attempts/99999999999999999999999999999/",
            "/{lang}/attempts/99999999999999999999999999999/questions/1/",
            "/{lang}/attempts/{pk}/questions/99999999999999999999999999999/",
            "/{lang}/attempts/9223372036854775808/",
            "/{lang}/courses/no-such-course/enroll/",
        ],
    )
    @pytest.mark.parametrize("language", LANGUAGES)
    def test_in_the_current_language(self, student_client, attempt, parse_html, path, language):
        url = path.format(lang=language, pk=attempt.pk)
        method = student_client.post if url.endswith(("/start/", "/enroll/")) else student_client.get
        before = snapshot()
        response = method(url)
        assert response.status_code == 404
        page = parse_html(response)
        assert_page_language(page, language)
        with override(language):
            assert page.one("h1").text == gettext("Page not found")
        assert snapshot() == before

    def test_shona_404(self, student_client):
        response = student_client.get("/sn/quizzes/no-such-quiz/")
        assert response.status_code == 404
        assert '<html lang="sn" dir="ltr">' in response.content.decode()

    def test_unpublished_quiz_is_not_found(self, student_client, gc_quiz):
        gc_quiz.is_published = False
        gc_quiz.save()
        before = snapshot()
        assert student_client.get(f"/ur/quizzes/{GC}/").status_code == 404
        assert student_client.post(f"/ur/quizzes/{GC}/start/").status_code == 404
        assert snapshot() == before


# CSRF ---------------------------------------------------------------------------------------


class TestCsrf:
    @pytest.fixture
    def strict_client(self, student) -> Client:
        client = Client(enforce_csrf_checks=True)
        client.force_login(student)
        return client

    @pytest.mark.parametrize("language", LANGUAGES)
    def test_start_without_token(self, strict_client, gc_quiz, parse_html, language):
        before = snapshot()
        response = strict_client.post(f"/{language}/quizzes/{GC}/start/")
        assert response.status_code == 403
        assert "403_csrf.html" in [template.name for template in response.templates]
        page = parse_html(response)
        assert_page_language(page, language)
        with override(language):
            assert page.one("h1").text == gettext("This form has expired")
        assert page.one("div", role="alert").text
        assert snapshot() == before

    def test_answer_without_token(self, strict_client, attempt, gc_quiz, parse_html):
        before = snapshot()
        response = strict_client.post(
            question_url("ur", attempt, 2),
            {"question": gc_quiz.questions.get(position=2).pk, "choice": right(gc_quiz, 2).pk},
        )
        assert response.status_code == 403
        assert "403_csrf.html" in [template.name for template in response.templates]
        assert_page_language(parse_html(response), "ur")
        assert snapshot() == before

    def test_finish_without_token(self, strict_client, attempt):
        before = snapshot()
        response = strict_client.post(f"/sn/attempts/{attempt.pk}/finish/")
        assert response.status_code == 403
        assert snapshot() == before

    def test_enroll_without_token(self, outsider, course):
        client = Client(enforce_csrf_checks=True)
        client.force_login(outsider)
        response = client.post(f"/id/courses/{course.slug}/enroll/")
        assert response.status_code == 403
        assert "403_csrf.html" in [template.name for template in response.templates]
        assert not Enrollment.objects.filter(user=outsider).exists()

    def test_with_the_token_from_the_page_it_works(self, strict_client, gc_quiz, parse_html):
        page = parse_html(strict_client.get(f"/en/quizzes/{GC}/"))
        token = page.one("form", action=f"/en/quizzes/{GC}/start/").one("input", name="csrfmiddlewaretoken")["value"]
        response = strict_client.post(f"/en/quizzes/{GC}/start/", {"csrfmiddlewaretoken": token})
        assert response.status_code == 302
        assert Attempt.objects.count() == 1


# Wrong methods -------------------------------------------------------------------------------


class TestMethods:
    @pytest.mark.parametrize(
        "path",
        ["/en/quizzes/{slug}/start/", "/en/attempts/{pk}/finish/", "/en/courses/{course}/enroll/"],
    )
    def test_get_on_post_only_endpoints(self, student_client, attempt, course, path):
        before = snapshot()
        response = student_client.get(path.format(slug=GC, pk=attempt.pk, course=course.slug))
        assert response.status_code == 405
        assert "POST" in response["Allow"]
        assert snapshot() == before

    @pytest.mark.parametrize(
        "path",
        ["/en/", "/en/quizzes/{slug}/", "/en/attempts/{pk}/", "/en/attempts/{pk}/result/"],
    )
    def test_post_on_read_only_pages(self, student_client, attempt, path):
        before = snapshot()
        response = student_client.post(path.format(slug=GC, pk=attempt.pk))
        assert response.status_code == 405
        assert snapshot() == before

    @pytest.mark.parametrize("method", ["put", "patch", "delete"])
    def test_other_methods_on_a_question(self, student_client, attempt, method):
        before = snapshot()
        response = getattr(student_client, method)(question_url("en", attempt, 2))
        assert response.status_code == 405
        assert snapshot() == before
