"""Student pages: login, dashboard, quiz page, one question at a time, result.

Pages in other languages are checked by structure, statuses, ids, classes,
``lang``/``dir`` attributes and the fixture content; UI messages are compared
with the code's constants rendered under that language, so the tests hold
while and after the catalogues are translated.
"""

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.translation import get_language_info, gettext, override

from quizzes.attempts.services import NO_ATTEMPTS_LEFT, attempt_finish
from quizzes.content.cache import quiz_content
from quizzes.content.shown import localized, shown_in_english
from quizzes.enrollment.services import SELF_ENROLLMENT_CLOSED, enrollment_create
from quizzes.models import Answer, Attempt, Enrollment, PoolDraw
from quizzes.web.jinja_env import in_english_mark, questions_in_english
from quizzes.web.views import ENROLLED
from tests.factories import (
    DEFAULT_PASSWORD,
    AttemptFactory,
    ChoiceFactory,
    CourseFactory,
    QuestionFactory,
    QuizFactory,
    UserFactory,
)

LANGUAGES = ["en", "ur", "sn", "id"]
DIRECTION = {"en": "ltr", "ur": "rtl", "sn": "ltr", "id": "ltr"}
GC = "gradient-checkpointing"
AR = "activation-recomputation-tradeoffs"
# gradient-checkpointing questions with no Urdu translation (shown in English).
URDU_FALLBACK_QUESTIONS = {3, 4, 6, 7, 8}


def url(language: str, name: str, **kwargs) -> str:
    with override(language):
        return reverse(name if ":" in name or name in {"login", "logout"} else f"quizzes:{name}", kwargs=kwargs)


def translated(message, language: str) -> str:
    with override(language):
        return " ".join(str(message).split())


def words(text: str) -> str:
    return " ".join(text.split())


def assert_page_language(page, language: str) -> None:
    html = page.one("html")
    assert html["lang"] == language
    assert html["dir"] == DIRECTION[language]


def start(client: Client, quiz, language: str = "en") -> Attempt:
    response = client.post(url(language, "attempt_start", slug=quiz.slug))
    assert response.status_code == 302, response.status_code
    return Attempt.objects.get(pk=int(response["Location"].rstrip("/").split("/")[-1]))


def right(quiz, position: int):
    return quiz.questions.get(position=position).choices.get(is_correct=True)


def wrong(quiz, position: int):
    return quiz.questions.get(position=position).choices.filter(is_correct=False).order_by("position").first()


def submit(client: Client, attempt: Attempt, choice, language: str = "en", position: int | None = None):
    position = position or choice.question.position
    return client.post(
        url(language, "attempt_question", pk=attempt.pk, position=position),
        {"question": choice.question_id, "choice": choice.pk},
    )


# Login and the login wall --------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_login_page_in_every_language(client, parse_html, language):
    response = client.get(f"/{language}/accounts/login/")
    assert response.status_code == 200
    page = parse_html(response)
    assert_page_language(page, language)
    form = page.one("form", action=f"/{language}/accounts/login/")
    assert form["method"] == "post"
    for name in ("username", "password"):
        field = form.one("input", name=name)
        label = form.one("label", for_=field["id"])
        assert label.text
    assert form.find("input", name="csrfmiddlewaretoken") is not None
    with override(language):
        assert page.one("h1").text == words(gettext("Log in"))


def test_urdu_pages_are_right_to_left(client, parse_html, db):
    page = parse_html(client.get("/ur/accounts/login/"))
    assert page.one("html")["dir"] == "rtl"


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_anonymous_dashboard_redirects_to_login_with_next(client, language):
    response = client.get(f"/{language}/")
    assert response.status_code == 302
    assert response["Location"] == f"/{language}/accounts/login/?next=/{language}/"


def test_anonymous_question_page_redirects_to_login(client, student, gc_quiz):
    attempt = AttemptFactory(user=student, quiz=gc_quiz, number=1)
    target = url("en", "attempt_question", pk=attempt.pk, position=1)
    response = client.get(target)
    assert response.status_code == 302
    assert response["Location"] == f"/en/accounts/login/?next={target}"


def test_login_with_the_form(client, student):
    login_page = client.get("/ur/accounts/login/?next=/ur/")
    assert login_page.status_code == 200
    response = client.post(
        "/ur/accounts/login/", {"username": "student-1", "password": DEFAULT_PASSWORD, "next": "/ur/"}
    )
    assert response.status_code == 302
    assert response["Location"] == "/ur/"
    assert client.get("/ur/").status_code == 200


def test_login_with_a_wrong_password_shows_an_alert(client, student, parse_html):
    response = client.post("/en/accounts/login/", {"username": "student-1", "password": "wrong"})
    assert response.status_code == 200
    assert parse_html(response).one("div", class_="alert", role="alert").text
    assert "_auth_user_id" not in client.session


# Dashboard --------------------------------------------------------------------------


class TestDashboard:
    @pytest.mark.parametrize("language", LANGUAGES)
    def test_lists_the_course_and_its_quizzes(self, student_client, course, content, parse_html, language):
        response = student_client.get(f"/{language}/")
        assert response.status_code == 200
        page = parse_html(response)
        assert_page_language(page, language)
        section = page.one("section", class_="course")
        assert section.one("h2", id=f"course-{course.pk}").text == localized(course, "title", language).text
        progress = section.one("progress", id=f"progress-{course.pk}")
        assert progress["max"] == "2"
        assert progress["value"] == "0"
        assert section.one("label", for_=f"progress-{course.pk}")
        links = [item.one("a") for item in section.find_all("li", class_="quiz-item")]
        assert [link["href"] for link in links] == [f"/{language}/quizzes/{GC}/", f"/{language}/quizzes/{AR}/"]
        assert [link.text for link in links] == [
            localized(content[GC], "title", language).text,
            localized(content[AR], "title", language).text,
        ]
        assert section.find("p", class_="resume") is None

    @pytest.mark.parametrize("language", LANGUAGES)
    def test_quizzes_partly_in_english_are_marked(self, student_client, content, parse_html, language):
        """In Urdu, Gradient Checkpointing has five questions with no Urdu text; the Activation
        quiz has no Urdu at all. Each is marked with how many of its questions appear in English."""
        page = parse_html(student_client.get(f"/{language}/"))
        marks = {
            item.one("a")["href"].split("/")[-2]: item.find("p", class_="in-english-mark")
            for item in page.find_all("li", class_="quiz-item")
        }
        expected = {GC: 0, AR: 0}
        for slug in expected:
            quiz = content[slug]
            expected[slug] = sum(shown_in_english(question, language) for question in quiz_content(quiz.pk).questions)
        if language == "ur":
            assert expected[GC] == len(URDU_FALLBACK_QUESTIONS)
            assert expected[AR] == content[AR].questions.count()
        for slug, count in expected.items():
            if count == 0:
                assert marks[slug] is None, (language, slug)
                continue
            total = quiz_content(content[slug].pk).questions
            with override(language):
                assert in_english_mark(count, len(total)) in marks[slug].text

    def test_the_mark_follows_a_translation(self, student_client, content, parse_html):
        """A question translated since the last visit counts no more (a new content version)."""
        page = parse_html(student_client.get("/ur/"))
        first = page.find_all("li", class_="quiz-item")[0].one("p", class_="in-english-mark").text
        question = content[GC].questions.get(position=min(URDU_FALLBACK_QUESTIONS))
        question.text_ur, question.explanation_ur = "سوال", "وضاحت"
        question.save()
        for choice in question.choices.all():
            choice.text_ur = "جواب"
            choice.save()
        page = parse_html(student_client.get("/ur/"))
        then = page.find_all("li", class_="quiz-item")[0].one("p", class_="in-english-mark").text
        with override("ur"):
            total = len(quiz_content(content[GC].pk).questions)
            assert in_english_mark(len(URDU_FALLBACK_QUESTIONS), total) in first
            assert in_english_mark(len(URDU_FALLBACK_QUESTIONS) - 1, total) in then

    def test_one_progress_bar_per_course(self, student, student_client, parse_html):
        other = CourseFactory(slug="zz-other")
        QuizFactory(course=other)
        enrollment_create(user=student, course=other)
        page = parse_html(student_client.get("/en/"))
        assert len(page.find_all("section", class_="course")) == 2
        assert len(page.find_all("progress")) == 2
        assert page.one("progress", id=f"progress-{other.pk}")["max"] == "1"

    def test_continue_link_when_an_attempt_is_in_progress(self, student_client, gc_quiz, parse_html):
        attempt = start(student_client, gc_quiz)
        page = parse_html(student_client.get("/en/"))
        resume = page.one("p", class_="resume")
        link = resume.one("a")
        assert link["href"] == f"/en/attempts/{attempt.pk}/"
        assert "Gradient Checkpointing Quiz" in link.text

    def test_progress_counts_passed_quizzes(self, student, student_client, gc_quiz, course, parse_html):
        AttemptFactory(user=student, quiz=gc_quiz, number=1, finished=True, score=8, max_score=8, pass_mark=70)
        page = parse_html(student_client.get("/ur/"))
        progress = page.one("progress", id=f"progress-{course.pk}")
        assert (progress["max"], progress["value"]) == ("2", "1")

    def test_grade_is_the_best_finished_attempt(self, student, student_client, gc_quiz, parse_html):
        for number, score in enumerate((5, 7, 2), start=1):
            AttemptFactory(user=student, quiz=gc_quiz, number=number, finished=True, score=score, max_score=8)
        AttemptFactory(user=student, quiz=gc_quiz, number=4)  # in progress: no grade yet
        page = parse_html(student_client.get("/sn/"))
        item = page.find_all("li", class_="quiz-item")[0]
        assert item.one("a")["href"] == f"/sn/quizzes/{GC}/"
        facts = item.find_all("dd")
        assert facts[0].text == "4"  # attempts used
        assert facts[1].text == "87%"  # 7/8, rounded down

    def test_not_enrolled_student_sees_joinable_courses(self, outsider, course, parse_html):
        client = Client()
        client.force_login(outsider)
        page = parse_html(client.get("/en/"))
        assert page.find("section", class_="course") is None
        form = page.one("form", action=f"/en/courses/{course.slug}/enroll/")
        assert form["method"] == "post"
        assert form.find("button", type="submit") is not None

    def test_enrolled_student_is_not_offered_the_course_again(self, student_client, course, parse_html):
        page = parse_html(student_client.get("/en/"))
        assert page.find("form", action=f"/en/courses/{course.slug}/enroll/") is None


# Quiz page and starting ------------------------------------------------------------


class TestQuizPage:
    @pytest.mark.parametrize("language", LANGUAGES)
    def test_says_how_many_questions_appear_in_english(self, student_client, gc_quiz, parse_html, language):
        page = parse_html(student_client.get(f"/{language}/quizzes/{GC}/"))
        warning = page.find("p", class_="in-english")
        count = sum(shown_in_english(question, language) for question in quiz_content(gc_quiz.pk).questions)
        if language == "ur":
            assert count == len(URDU_FALLBACK_QUESTIONS)
        if count == 0:
            assert warning is None
            return
        with override(language):
            name = get_language_info(language)["name_translated"]
            assert warning.text == questions_in_english(count, 8, name)

    def test_the_question_count_is_what_an_attempt_asks(self, student_client, gc_quiz, parse_html):
        for question in gc_quiz.questions.order_by("position")[:5]:
            question.pool = "memory"
            question.save()
        PoolDraw.objects.create(quiz=gc_quiz, pool="memory", count=2)  # 3 outside the pool + 2 drawn
        page = parse_html(student_client.get(f"/en/quizzes/{GC}/"))
        assert page.one("dl", class_="facts").find_all("dd")[0].text == "5"
        gc_quiz.questions_per_attempt = 4
        gc_quiz.save()
        page = parse_html(student_client.get(f"/en/quizzes/{GC}/"))
        assert page.one("dl", class_="facts").find_all("dd")[0].text == "4"

    @pytest.mark.parametrize("language", LANGUAGES)
    def test_quiz_page(self, student_client, gc_quiz, parse_html, language):
        response = student_client.get(f"/{language}/quizzes/{GC}/")
        assert response.status_code == 200
        page = parse_html(response)
        assert_page_language(page, language)
        assert page.one("h1").text == localized(gc_quiz, "title", language).text
        facts = page.one("dl", class_="facts").find_all("dd")
        assert facts[0].text == "8"
        assert facts[1].text == "70%"
        form = page.one("form", action=f"/{language}/quizzes/{GC}/start/")
        assert form["method"] == "post"
        assert form.find("input", name="csrfmiddlewaretoken") is not None

    def test_start_redirects_to_the_attempt_then_to_the_first_question(self, student_client, student, gc_quiz):
        response = student_client.post(f"/en/quizzes/{GC}/start/")
        attempt = Attempt.objects.get(user=student, quiz=gc_quiz)
        assert attempt.number == 1
        assert response.status_code == 302
        assert response["Location"] == f"/en/attempts/{attempt.pk}/"
        response = student_client.get(response["Location"])
        assert response.status_code == 302
        assert response["Location"] == f"/en/attempts/{attempt.pk}/questions/1/"

    def test_start_twice_resumes(self, student_client, student, gc_quiz):
        first = start(student_client, gc_quiz)
        second = start(student_client, gc_quiz)
        assert first.pk == second.pk
        assert Attempt.objects.filter(user=student).count() == 1

    def test_quiz_page_offers_to_continue(self, student_client, gc_quiz, parse_html):
        attempt = start(student_client, gc_quiz)
        page = parse_html(student_client.get(f"/en/quizzes/{GC}/"))
        assert page.find("form", action=f"/en/quizzes/{GC}/start/") is None
        assert page.find("a", href=f"/en/attempts/{attempt.pk}/") is not None

    def test_quiz_page_lists_past_attempts_with_review_links(self, student, student_client, gc_quiz, parse_html):
        done = AttemptFactory(user=student, quiz=gc_quiz, number=1, finished=True, score=6, max_score=8)
        page = parse_html(student_client.get(f"/en/quizzes/{GC}/"))
        table = page.one("table")
        assert table.find("a", href=f"/en/attempts/{done.pk}/result/") is not None
        assert "6/8 (75%)" in table.text

    def test_grade_is_the_best_finished_attempt(self, student, student_client, gc_quiz, parse_html):
        for number, score in enumerate((5, 7, 2), start=1):
            AttemptFactory(user=student, quiz=gc_quiz, number=number, finished=True, score=score, max_score=8)
        page = parse_html(student_client.get(f"/id/quizzes/{GC}/"))
        grade = page.one("dl", class_="facts").find_all("dd")[3]
        assert grade.text.startswith("87%")
        assert grade.find("span", class_="pass") is not None

    def test_failing_grade_is_marked(self, student, student_client, gc_quiz, parse_html):
        AttemptFactory(user=student, quiz=gc_quiz, number=1, finished=True, score=5, max_score=8)
        grade = parse_html(student_client.get(f"/en/quizzes/{GC}/")).one("dl", class_="facts").find_all("dd")[3]
        assert grade.text.startswith("62%")
        assert grade.find("span", class_="fail") is not None

    def test_unpublished_quiz_is_not_found(self, student_client, gc_quiz):
        gc_quiz.is_published = False
        gc_quiz.save()
        assert student_client.get(f"/en/quizzes/{GC}/").status_code == 404
        assert student_client.post(f"/en/quizzes/{GC}/start/").status_code == 404
        assert not Attempt.objects.exists()


class TestRetakes:
    @pytest.mark.parametrize("language", ["en", "ur"])
    def test_one_attempt_only(self, student, student_client, gc_quiz, parse_html, language):
        gc_quiz.max_attempts = 1
        gc_quiz.save()
        attempt = start(student_client, gc_quiz, language)
        student_client.post(url(language, "attempt_finish", pk=attempt.pk))
        assert Attempt.objects.get(pk=attempt.pk).is_finished

        page = parse_html(student_client.get(f"/{language}/quizzes/{GC}/"))
        assert page.find("form", action=f"/{language}/quizzes/{GC}/start/") is None
        assert page.one("p", class_="notice").text == translated(NO_ATTEMPTS_LEFT, language)
        assert page.one("dl", class_="facts").find_all("dd")[2].text == "0"

        response = student_client.post(f"/{language}/quizzes/{GC}/start/")
        assert response.status_code == 409
        refusal = parse_html(response)
        assert_page_language(refusal, language)
        assert refusal.one("div", role="alert").text == translated(NO_ATTEMPTS_LEFT, language)
        assert list(Attempt.objects.filter(user=student).values_list("number", flat=True)) == [1]

    def test_unlimited_attempts_offer_a_new_one(self, student, student_client, gc_quiz, parse_html):
        attempt = start(student_client, gc_quiz)
        student_client.post(url("en", "attempt_finish", pk=attempt.pk))
        page = parse_html(student_client.get(f"/en/quizzes/{GC}/"))
        assert page.find("form", action=f"/en/quizzes/{GC}/start/") is not None
        second = start(student_client, gc_quiz)
        assert second.number == 2


# Taking a quiz ---------------------------------------------------------------------


@pytest.fixture
def attempt(student_client, gc_quiz) -> Attempt:
    return start(student_client, gc_quiz)


class TestQuestionPage:
    @pytest.mark.parametrize("language", LANGUAGES)
    def test_question_form(self, student_client, attempt, gc_quiz, parse_html, language):
        response = student_client.get(f"/{language}/attempts/{attempt.pk}/questions/1/")
        assert response.status_code == 200
        page = parse_html(response)
        assert_page_language(page, language)
        question = gc_quiz.questions.get(position=1)
        form = page.one("form", class_="question")
        assert form["method"] == "post"
        assert form["action"] == f"/{language}/attempts/{attempt.pk}/questions/1/"
        assert form.one("input", type="hidden", name="question")["value"] == str(question.pk)
        fieldset = form.one("fieldset")
        assert fieldset.one("legend").text == localized(question, "text", language).text
        radios = fieldset.find_all("input", type="radio")
        choices = list(question.choices.order_by("position"))
        assert [radio["value"] for radio in radios] == [str(choice.pk) for choice in choices]
        for radio, choice in zip(radios, choices, strict=True):
            assert radio["name"] == "choice"
            label = fieldset.one("label", for_=radio["id"])
            assert label.text == localized(choice, "text", language).text
        assert len({radio["id"] for radio in radios}) == 4
        progress = page.one("progress")
        assert (progress["max"], progress["value"]) == ("8", "0")
        assert page.one("label", for_=progress["id"]).text
        # No feedback before the answer: the one status line is offline.js's, empty.
        (status,) = page.find_all(role="status")
        assert (status.classes, status.text) == ({"offline-status"}, "")

    def test_question_number_of_total(self, student_client, attempt, parse_html):
        page = parse_html(student_client.get(f"/en/attempts/{attempt.pk}/questions/1/"))
        assert page.one("label", for_="quiz-progress").text == "Question 1 of 8"
        with override("ur"):
            expected = gettext("Question %(number)s of %(total)s") % {"number": 1, "total": 8}
        page = parse_html(student_client.get(f"/ur/attempts/{attempt.pk}/questions/1/"))
        assert page.one("label", for_="quiz-progress").text == words(expected)

    @pytest.mark.parametrize("language", LANGUAGES)
    def test_right_answer_feedback(self, student_client, attempt, gc_quiz, parse_html, language):
        choice = right(gc_quiz, 1)
        response = submit(student_client, attempt, choice, language)
        assert response.status_code == 302
        assert response["Location"] == f"/{language}/attempts/{attempt.pk}/questions/1/#feedback"

        page = parse_html(student_client.get(f"/{language}/attempts/{attempt.pk}/questions/1/"))
        feedback = page.one(id="feedback")
        assert feedback["role"] == "status"
        assert "correct" in feedback.classes and "incorrect" not in feedback.classes
        question = choice.question
        assert feedback.one("p", class_="explanation").text == words(localized(question, "explanation", language).text)
        assert page.find("form", class_="question") is None  # no second chance
        chosen = page.one("li", class_="chosen")
        assert "right" in chosen.classes
        assert localized(choice, "text", language).text in chosen.text
        assert page.one("progress")["value"] == "1"
        assert page.one("a", class_="button", href=f"/{language}/attempts/{attempt.pk}/questions/2/")

    @pytest.mark.parametrize("language", LANGUAGES)
    def test_wrong_answer_feedback_shows_the_right_choice(self, student_client, attempt, gc_quiz, parse_html, language):
        choice, correct = wrong(gc_quiz, 1), right(gc_quiz, 1)
        submit(student_client, attempt, choice, language)
        page = parse_html(student_client.get(f"/{language}/attempts/{attempt.pk}/questions/1/"))
        feedback = page.one("div", role="status")
        assert feedback["id"] == "feedback"
        assert "incorrect" in feedback.classes
        assert feedback.one("strong").text == localized(correct, "text", language).text
        assert feedback.one("p", class_="explanation").text == words(
            localized(choice.question, "explanation", language).text
        )
        chosen = page.one("li", class_="chosen")
        assert "right" not in chosen.classes
        assert localized(choice, "text", language).text in chosen.text
        assert localized(correct, "text", language).text in page.one("li", class_="right").text

    def test_answer_is_recorded(self, student_client, attempt, gc_quiz):
        submit(student_client, attempt, wrong(gc_quiz, 1))
        answer = Answer.objects.get(attempt=attempt)
        assert (answer.choice_id, answer.is_correct, answer.language) == (wrong(gc_quiz, 1).pk, False, "en")

    def test_resume_goes_to_the_first_unanswered(self, student_client, attempt, gc_quiz):
        submit(student_client, attempt, right(gc_quiz, 1))
        submit(student_client, attempt, wrong(gc_quiz, 2))
        response = student_client.get(f"/en/attempts/{attempt.pk}/")
        assert response["Location"] == f"/en/attempts/{attempt.pk}/questions/3/"

    def test_a_later_question_waits_for_the_earlier_ones(self, student_client, attempt, gc_quiz):
        submit(student_client, attempt, right(gc_quiz, 1))
        response = student_client.get(f"/en/attempts/{attempt.pk}/questions/6/")
        assert response.status_code == 302
        assert response["Location"] == f"/en/attempts/{attempt.pk}/questions/2/"

    def test_answered_questions_can_be_reviewed_while_in_progress(self, student_client, attempt, gc_quiz, parse_html):
        submit(student_client, attempt, right(gc_quiz, 1))
        submit(student_client, attempt, right(gc_quiz, 2))
        response = student_client.get(f"/en/attempts/{attempt.pk}/questions/1/")
        assert response.status_code == 200
        assert parse_html(response).one(id="feedback")

    def test_unknown_position_is_not_found(self, student_client, attempt):
        assert student_client.get(f"/en/attempts/{attempt.pk}/questions/9/").status_code == 404

    def test_full_run_to_the_result(self, student_client, student, attempt, gc_quiz, parse_html):
        plan = {1: True, 2: True, 3: False, 4: True, 5: True, 6: False, 7: True, 8: True}  # 6 of 8
        for position, correct in plan.items():
            choice = right(gc_quiz, position) if correct else wrong(gc_quiz, position)
            response = submit(student_client, attempt, choice)
            assert response["Location"].endswith(f"/questions/{position}/#feedback")
        # Every question answered: the resume link stays on the last one, which offers the finish.
        assert student_client.get(f"/en/attempts/{attempt.pk}/")["Location"].endswith("/questions/8/")
        page = parse_html(student_client.get(f"/en/attempts/{attempt.pk}/questions/8/"))
        finish = page.one("form", action=f"/en/attempts/{attempt.pk}/finish/")
        assert finish["method"] == "post"
        assert page.one("progress")["value"] == "8"

        response = student_client.post(f"/en/attempts/{attempt.pk}/finish/")
        assert response.status_code == 302
        assert response["Location"] == f"/en/attempts/{attempt.pk}/result/"
        attempt.refresh_from_db()
        assert (attempt.state, attempt.score, attempt.max_score) == (Attempt.State.FINISHED, 6, 8)

        response = student_client.get(response["Location"])
        assert response.status_code == 200
        page = parse_html(response)
        assert page.one(id="score").text == "6 of 8 correct (75%)"
        assert "passed" in page.one("section", class_="result").classes
        review = page.one("ol", class_="review").find_all("li", class_="card")
        assert len(review) == 8
        for item, (position, correct) in zip(review, plan.items(), strict=True):
            question = gc_quiz.questions.get(position=position)
            assert item.one("p", class_="question-text").text == question.text_en
            assert len(item.find_all("li", class_="choice")) == 4
            assert item.one("li", class_="chosen")
            assert right(gc_quiz, position).text_en in item.one("li", class_="right").text
            assert item.one("p", class_="explanation").text == words(question.explanation_en)
            assert (item.one("p", class_="verdict").text.startswith("✓")) is correct

        # After finishing, the question pages and the resume link lead to the result.
        assert student_client.get(f"/en/attempts/{attempt.pk}/")["Location"] == f"/en/attempts/{attempt.pk}/result/"
        assert (
            student_client.get(f"/en/attempts/{attempt.pk}/questions/2/")["Location"]
            == f"/en/attempts/{attempt.pk}/result/"
        )

    @pytest.mark.parametrize("language", ["ur", "sn", "id"])
    def test_result_page_in_other_languages(self, student_client, attempt, gc_quiz, parse_html, language):
        for position in (1, 2, 3):
            submit(student_client, attempt, right(gc_quiz, position), language)
        student_client.post(url(language, "attempt_finish", pk=attempt.pk))
        page = parse_html(student_client.get(f"/{language}/attempts/{attempt.pk}/result/"))
        assert_page_language(page, language)
        with override(language):
            expected = gettext("%(score)s of %(max)s correct (%(percent)s%%)") % {"score": 3, "max": 8, "percent": 37}
        assert page.one(id="score").text == words(expected)
        assert "failed" in page.one("section", class_="result").classes
        review = page.one("ol", class_="review").find_all("li", class_="card")
        assert len(review) == 8
        assert [item.find("li", class_="chosen") is not None for item in review] == [True] * 3 + [False] * 5
        for item, question in zip(review, gc_quiz.questions.order_by("position"), strict=True):
            assert item.one("p", class_="question-text").text == words(localized(question, "text", language).text)

    def test_result_of_an_attempt_in_progress_redirects(self, student_client, attempt):
        response = student_client.get(f"/en/attempts/{attempt.pk}/result/")
        assert response.status_code == 302
        assert response["Location"] == f"/en/attempts/{attempt.pk}/"

    def test_finishing_early_counts_unanswered_as_wrong(self, student_client, attempt, gc_quiz, parse_html):
        submit(student_client, attempt, right(gc_quiz, 1))
        student_client.post(f"/en/attempts/{attempt.pk}/finish/")
        page = parse_html(student_client.get(f"/en/attempts/{attempt.pk}/result/"))
        assert page.one(id="score").text == "1 of 8 correct (12%)"
        verdicts = [item.one("p", class_="verdict").text for item in page.find_all("li", class_="card")]
        assert verdicts[1:] == ["Not answered."] * 7

    def test_finishing_twice_keeps_the_result(self, student_client, attempt, gc_quiz):
        submit(student_client, attempt, right(gc_quiz, 1))
        student_client.post(f"/en/attempts/{attempt.pk}/finish/")
        first = Attempt.objects.get(pk=attempt.pk)
        response = student_client.post(f"/en/attempts/{attempt.pk}/finish/")
        assert response["Location"] == f"/en/attempts/{attempt.pk}/result/"
        again = Attempt.objects.get(pk=attempt.pk)
        assert (again.score, again.finished_at) == (first.score, first.finished_at)


# Languages ------------------------------------------------------------------------------


class TestLanguages:
    def test_urdu_attempt_marks_english_fallback_text(self, student_client, attempt, gc_quiz, parse_html):
        for position in range(1, 9):
            question = gc_quiz.questions.get(position=position)
            page = parse_html(student_client.get(f"/ur/attempts/{attempt.pk}/questions/{position}/"))
            assert_page_language(page, "ur")
            text = page.one("legend").one("h1", class_="question-text")
            rows = page.one("fieldset").find_all("div", class_="choice")
            if position in URDU_FALLBACK_QUESTIONS:
                assert (text.get("lang"), text.get("dir")) == ("en", "ltr")
                assert text.text == question.text_en
                # The whole row (radio and label) takes the English's direction.
                for row, choice in zip(rows, question.choices.order_by("position"), strict=True):
                    assert (row.get("lang"), row.get("dir")) == ("en", "ltr")
                    assert row.one("label").text == choice.text_en
            else:
                assert "lang" not in text.attrs and "dir" not in text.attrs
                assert text.text == question.text_ur
                assert all("lang" not in row.attrs for row in rows)
            submit(student_client, attempt, right(gc_quiz, position), "ur")
            feedback_page = parse_html(student_client.get(f"/ur/attempts/{attempt.pk}/questions/{position}/"))
            explanation = feedback_page.one("p", class_="explanation")
            heading = feedback_page.one("h1", id="question-text")
            if position in URDU_FALLBACK_QUESTIONS:
                assert (explanation.get("lang"), explanation.get("dir")) == ("en", "ltr")
                assert (heading.get("lang"), heading.get("dir")) == ("en", "ltr")
            else:
                assert "lang" not in explanation.attrs
                assert "lang" not in heading.attrs

    def test_urdu_result_marks_english_fallback_text(self, student_client, attempt, gc_quiz, parse_html):
        student_client.post(f"/ur/attempts/{attempt.pk}/finish/")
        page = parse_html(student_client.get(f"/ur/attempts/{attempt.pk}/result/"))
        items = page.one("ol", class_="review").find_all("li", class_="card")
        for position, item in enumerate(items, start=1):
            text = item.one("p", class_="question-text")
            if position in URDU_FALLBACK_QUESTIONS:
                assert (text.get("lang"), text.get("dir")) == ("en", "ltr")
            else:
                assert text.get("lang") is None

    def test_shona_quiz_title_is_english_marked_as_such(self, student_client, attempt, gc_quiz, parse_html):
        assert not gc_quiz.title_sn
        quiz_page = parse_html(student_client.get(f"/sn/quizzes/{GC}/"))
        assert_page_language(quiz_page, "sn")
        title = quiz_page.one("h1")
        assert (title.text, title.get("lang"), title.get("dir")) == ("Gradient Checkpointing Quiz", "en", "ltr")

        dashboard = parse_html(student_client.get("/sn/"))
        link = dashboard.one("a", href=f"/sn/quizzes/{GC}/")
        assert (link.text, link.get("lang"), link.get("dir")) == ("Gradient Checkpointing Quiz", "en", "ltr")

        question_page = parse_html(student_client.get(f"/sn/attempts/{attempt.pk}/questions/1/"))
        crumb = question_page.one("p", class_="crumbs").one("a")
        assert (crumb.text, crumb.get("lang"), crumb.get("dir")) == ("Gradient Checkpointing Quiz", "en", "ltr")
        # question 1 is translated into Shona: not marked
        assert question_page.one("h1", class_="question-text").get("lang") is None

    def test_translated_title_is_not_marked(self, student_client, gc_quiz, parse_html):
        title = parse_html(student_client.get(f"/ur/quizzes/{GC}/")).one("h1")
        assert title.text == gc_quiz.title_ur
        assert title.get("lang") is None

    def test_each_answer_records_the_language_of_the_url(self, student_client, attempt, gc_quiz):
        languages = ["ur", "sn", "id", "en", "ur", "id", "sn", "en"]
        for position, language in enumerate(languages, start=1):
            response = submit(student_client, attempt, right(gc_quiz, position), language)
            assert response["Location"].startswith(f"/{language}/")
        recorded = list(attempt.answers.order_by("question__position").values_list("language", flat=True))
        assert recorded == languages

    def test_language_switcher_points_to_the_same_question(self, student_client, attempt, parse_html):
        path = f"/attempts/{attempt.pk}/questions/1/"
        page = parse_html(student_client.get(f"/en{path}"))
        nav = page.one("nav", class_="languages")
        links = {link["hreflang"]: link for link in nav.find_all("a")}
        assert {code: link["href"] for code, link in links.items()} == {code: f"/{code}{path}" for code in LANGUAGES}
        assert links["en"].get("aria-current") == "true"
        assert all("aria-current" not in links[code].attrs for code in ("ur", "sn", "id"))
        assert (links["ur"]["lang"], links["ur"]["dir"]) == ("ur", "rtl")
        assert (links["sn"]["lang"], links["sn"]["dir"]) == ("sn", "ltr")
        # and each of them is that page in that language
        for code in LANGUAGES:
            response = student_client.get(links[code]["href"])
            assert response.status_code == 200
            assert_page_language(parse_html(response), code)


# Self-enrollment -----------------------------------------------------------------------


class TestSelfEnrollment:
    @pytest.mark.parametrize("language", ["en", "ur"])
    def test_not_enrolled_student_gets_an_enroll_form(self, outsider, course, parse_html, language):
        client = Client()
        client.force_login(outsider)
        response = client.get(f"/{language}/quizzes/{GC}/")
        assert response.status_code == 403
        assert "quizzes/not_enrolled.html" in [template.name for template in response.templates]
        page = parse_html(response)
        assert_page_language(page, language)
        form = page.one("form", action=f"/{language}/courses/{course.slug}/enroll/")
        assert form["method"] == "post"
        assert form.one("input", name="next")["value"] == f"/{language}/quizzes/{GC}/"

        response = client.post(form["action"], {"next": form.one("input", name="next")["value"]})
        assert response.status_code == 302
        assert response["Location"] == f"/{language}/quizzes/{GC}/"
        assert Enrollment.objects.filter(user=outsider, course=course).count() == 1

        response = client.get(response["Location"])
        assert response.status_code == 200
        page = parse_html(response)
        with override(language):
            message = ENROLLED % {"course": course.title}
        assert page.one("div", class_="messages").text == words(str(message))
        assert page.find("form", action=f"/{language}/quizzes/{GC}/start/") is not None

    def test_not_enrolled_start_is_refused(self, outsider, gc_quiz):
        client = Client()
        client.force_login(outsider)
        response = client.post(f"/en/quizzes/{GC}/start/")
        assert response.status_code == 403
        assert not Attempt.objects.exists()

    def test_enroll_without_next_goes_to_the_dashboard(self, outsider, course):
        client = Client()
        client.force_login(outsider)
        response = client.post(f"/en/courses/{course.slug}/enroll/")
        assert response["Location"] == "/en/"
        assert Enrollment.objects.filter(user=outsider).count() == 1

    def test_enroll_ignores_a_next_url_on_another_site(self, outsider, course):
        client = Client()
        client.force_login(outsider)
        response = client.post(f"/en/courses/{course.slug}/enroll/", {"next": "https://evil.example/"})
        assert response["Location"] == "/en/"

    @pytest.mark.parametrize("language", ["en", "sn"])
    def test_course_without_self_enrollment(self, outsider, parse_html, language, db):
        closed = CourseFactory(slug="closed", allow_self_enrollment=False)
        quiz = QuizFactory(course=closed, slug="closed-quiz")
        ChoiceFactory(question=QuestionFactory(quiz=quiz, position=1), position=1, is_correct=True)
        client = Client()
        client.force_login(outsider)

        page = parse_html(client.get(f"/{language}/quizzes/closed-quiz/"))
        assert page.find("form", action=f"/{language}/courses/closed/enroll/") is None

        response = client.post(f"/{language}/courses/closed/enroll/", {"next": f"/{language}/quizzes/closed-quiz/"})
        assert response.status_code == 403
        page = parse_html(response)
        assert_page_language(page, language)
        assert page.one("div", role="alert").text == translated(SELF_ENROLLMENT_CLOSED, language)
        assert not Enrollment.objects.exists()

    def test_unknown_course(self, outsider):
        client = Client()
        client.force_login(outsider)
        assert client.post("/en/courses/no-such-course/enroll/").status_code == 404
        assert not Enrollment.objects.exists()


def test_logout(student_client):
    response = student_client.post("/en/accounts/logout/")
    assert response.status_code == 302
    assert student_client.get("/en/").status_code == 302


def test_a_new_user_has_an_empty_dashboard(db, parse_html):
    client = Client()
    client.force_login(UserFactory())
    response = client.get("/en/")
    assert response.status_code == 200
    assert parse_html(response).find("section", class_="course") is None


def test_dashboard_status_after_finishing(student, student_client, gc_quiz, parse_html):
    attempt = start(student_client, gc_quiz)
    attempt_finish(attempt=attempt)
    item = parse_html(student_client.get("/en/")).find_all("li", class_="quiz-item")[0]
    assert item.find("span", class_="fail") is not None
    assert item.find_all("dd")[1].text == "0%"
