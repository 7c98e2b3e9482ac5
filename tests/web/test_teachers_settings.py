"""The teacher's settings on the student pages: a quiz's dates, its time limit and the time
left, the finish of an overdue attempt, the student's overrides, and the review options (what
the feedback and the result show of each answer, with nothing of the key where they withhold
it). The server's clock decides: each test runs at a fixed time, moved only by the test."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.utils.functional import Promise
from django.utils.translation import gettext, override

from common.dates import local_datetime, local_time
from quizzes.attempts.services import DEADLINE_PASSED, QUIZ_CLOSED, QUIZ_NOT_OPEN
from quizzes.models import Answer, Attempt, CourseGroup, FeedbackTiming, QuizOverride
from quizzes.web.timing import ANSWER_WITHHELD, RESULT_WITHHELD, TIME_RAN_OUT

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
DIRECTION = {"en": "ltr", "ur": "rtl"}


@pytest.fixture
def clock():
    with time_machine.travel(NOW, tick=False) as traveller:
        yield traveller


def text(message, language: str) -> str:
    """``message`` (lazy or a msgid) in ``language``, whitespace collapsed as a page's text."""
    with override(language):
        return " ".join((str(message) if isinstance(message, Promise) else gettext(message)).split())


def snapshot():
    return list(Attempt.objects.order_by("pk").values()), list(Answer.objects.order_by("pk").values())


def quiz_url(language, quiz):
    return f"/{language}/quizzes/{quiz.slug}/"


def start(client, quiz, language="en"):
    return client.post(f"/{language}/quizzes/{quiz.slug}/start/")


def question_url(attempt, position=1, language="en"):
    return f"/{language}/attempts/{attempt.pk}/questions/{position}/"


def result_url(attempt, language="en"):
    return f"/{language}/attempts/{attempt.pk}/result/"


def started(client, quiz) -> Attempt:
    response = start(client, quiz)
    assert response.status_code == 302, response.content
    return Attempt.objects.get(user__username="student-1", quiz=quiz, state=Attempt.State.IN_PROGRESS)


def choices(quiz, position):
    question = quiz.questions.get(position=position)
    right = question.choices.get(is_correct=True)
    wrong = question.choices.filter(is_correct=False).order_by("position").first()
    return question, right, wrong


def answer(client, attempt, quiz, position, choice, language="en"):
    question = quiz.questions.get(position=position)
    return client.post(question_url(attempt, position, language), {"question": question.pk, "choice": choice.pk})


def quiz_set(quiz, **values):
    for name, value in values.items():
        setattr(quiz, name, value)
    quiz.save()


def start_form(page, quiz, language):
    return page.find("form", action=f"/{language}/quizzes/{quiz.slug}/start/")


# Open and close dates ----------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "ur"])
def test_before_it_opens_the_quiz_says_when_and_refuses_a_start(clock, student_client, gc_quiz, parse_html, language):
    opens_at = NOW + timedelta(days=2, hours=3)
    quiz_set(gc_quiz, opens_at=opens_at)
    with override(language):
        refusal = text(QUIZ_NOT_OPEN % {"date": local_datetime(opens_at)}, language)
        opens_on = text("Opens on %(date)s.", language) % {"date": local_datetime(opens_at)}

    page = parse_html(student_client.get(quiz_url(language, gc_quiz)))
    assert start_form(page, gc_quiz, language) is None
    assert page.one("p", class_="not-startable").text == refusal
    assert opens_on in [p.text for p in page.find_all("p", class_="quiz-date")]

    before = snapshot()
    response = start(student_client, gc_quiz, language)
    assert response.status_code == 403
    page = parse_html(response)
    assert (page.one("html")["lang"], page.one("html")["dir"]) == (language, DIRECTION[language])
    assert page.one("div", class_="alert", role="alert").text == refusal
    assert snapshot() == before


@pytest.mark.parametrize("language", ["en", "ur"])
def test_after_it_closes_the_quiz_says_when_and_refuses_a_start(clock, student_client, gc_quiz, parse_html, language):
    closes_at = NOW - timedelta(hours=1)
    quiz_set(gc_quiz, closes_at=closes_at)
    with override(language):
        refusal = text(QUIZ_CLOSED % {"date": local_datetime(closes_at)}, language)

    page = parse_html(student_client.get(quiz_url(language, gc_quiz)))
    assert start_form(page, gc_quiz, language) is None
    assert page.one("p", class_="not-startable").text == refusal

    before = snapshot()
    response = start(student_client, gc_quiz, language)
    assert response.status_code == 403
    assert parse_html(response).one("div", class_="alert", role="alert").text == refusal
    assert snapshot() == before


def test_an_open_quiz_says_when_it_closes(clock, student_client, gc_quiz, parse_html):
    closes_at = NOW + timedelta(days=1)
    quiz_set(gc_quiz, opens_at=NOW - timedelta(days=1), closes_at=closes_at)
    page = parse_html(student_client.get(quiz_url("en", gc_quiz)))
    assert [p.text for p in page.find_all("p", class_="quiz-date")] == [f"Closes on {local_datetime(closes_at)}."]
    assert start_form(page, gc_quiz, "en") is not None


def test_a_student_with_a_later_close_can_still_start(clock, student, student_client, gc_quiz, parse_html):
    quiz_set(gc_quiz, closes_at=NOW - timedelta(hours=1))
    later = NOW + timedelta(hours=2)
    QuizOverride.objects.create(quiz=gc_quiz, user=student, closes_at=later)
    page = parse_html(student_client.get(quiz_url("en", gc_quiz)))
    assert start_form(page, gc_quiz, "en") is not None
    assert [p.text for p in page.find_all("p", class_="quiz-date")] == [f"Closes on {local_datetime(later)}."]
    assert started(student_client, gc_quiz).deadline == later


def test_a_groups_longer_time_limit_and_more_attempts_apply(clock, student, student_client, gc_quiz, parse_html):
    quiz_set(gc_quiz, time_limit=timedelta(minutes=20), max_attempts=1)
    group = CourseGroup.objects.create(course=gc_quiz.course, name="Extra time")
    group.members.add(student)
    QuizOverride.objects.create(quiz=gc_quiz, group=group, time_limit=timedelta(minutes=30), max_attempts=3)
    page = parse_html(student_client.get(quiz_url("en", gc_quiz)))
    assert page.one("p", class_="time-limit").text == "Time limit: 30 minutes"
    facts = {div.one("dt").text: div.one("dd").text for div in page.one("dl", class_="facts").find_all("div")}
    assert facts["Attempts left"] == "3"
    assert started(student_client, gc_quiz).deadline == NOW + timedelta(minutes=30)


# Time limit, time left and overdue attempts -------------------------------------------------


@pytest.mark.parametrize(("minutes", "said"), [(45, "Time limit: 45 minutes"), (1, "Time limit: 1 minute")])
def test_the_quiz_page_says_the_time_limit(clock, student_client, gc_quiz, parse_html, minutes, said):
    quiz_set(gc_quiz, time_limit=timedelta(minutes=minutes))
    assert parse_html(student_client.get(quiz_url("en", gc_quiz))).one("p", class_="time-limit").text == said


@pytest.mark.parametrize("language", ["en", "ur"])
def test_the_question_page_shows_the_time_left(clock, student_client, gc_quiz, parse_html, language):
    quiz_set(gc_quiz, time_limit=timedelta(minutes=45))
    attempt = started(student_client, gc_quiz)
    deadline = NOW + timedelta(minutes=45)
    assert attempt.deadline == deadline
    clock.shift(timedelta(minutes=5))

    page = parse_html(student_client.get(question_url(attempt, language=language)))
    box = page.one("div", class_="time-left")
    assert datetime.fromisoformat(box["data-countdown-deadline"]) == deadline
    assert datetime.fromisoformat(box["data-countdown-now"]) == NOW + timedelta(minutes=5)
    with override(language):
        assert box.one("p", class_="time-left-static").text == text("Time left: until %(time)s", language) % {
            "time": local_time(deadline)
        }
    assert box.one("span", role="timer")["dir"] == "ltr"
    assert box.one("p", class_="countdown-announcer")["aria-live"] == "polite"
    assert "hidden" in box.one("p", class_="time-left-live").attrs
    (script,) = [script for script in page.find_all("script") if script["src"].endswith("quizzes/countdown.js")]
    assert "defer" in script.attrs


def test_no_countdown_without_a_time_limit(clock, student_client, gc_quiz, parse_html):
    attempt = started(student_client, gc_quiz)
    page = parse_html(student_client.get(question_url(attempt)))
    assert page.find("div", class_="time-left") is None
    assert not [script for script in page.find_all("script") if script["src"].endswith("quizzes/countdown.js")]


@pytest.mark.parametrize("page_name", ["resume", "question", "result", "quiz"])
def test_a_visit_after_the_deadline_finishes_the_attempt(
    clock, student_client, gc_quiz, parse_html, settings, page_name
):
    settings.ATTEMPT_DEADLINE_GRACE = timedelta(seconds=15)
    quiz_set(gc_quiz, time_limit=timedelta(minutes=10))
    attempt = started(student_client, gc_quiz)
    _question, right, _wrong = choices(gc_quiz, 1)
    answer(student_client, attempt, gc_quiz, 1, right)
    url = {
        "resume": f"/en/attempts/{attempt.pk}/",
        "question": question_url(attempt, 2),
        "result": result_url(attempt),
        "quiz": quiz_url("en", gc_quiz),
    }[page_name]

    clock.shift(timedelta(minutes=10, seconds=15))  # at the end of the grace: still open
    assert student_client.get(url).status_code in (200, 302)
    attempt.refresh_from_db()
    assert not attempt.is_finished

    clock.shift(timedelta(seconds=1))
    response = student_client.get(url)
    assert response.status_code == 302
    assert response["Location"] == result_url(attempt)
    attempt.refresh_from_db()
    assert (attempt.is_finished, attempt.score, attempt.finished_at) == (
        True,
        1,
        NOW + timedelta(minutes=10, seconds=16),
    )
    page = parse_html(student_client.get(response["Location"]))
    expected = TIME_RAN_OUT % {"time": local_datetime(NOW + timedelta(minutes=10))}
    assert [p.text for p in page.find_all("p", class_="message")] == [str(expected)]


@pytest.mark.parametrize("language", ["en", "ur"])
def test_a_late_answer_is_refused_and_writes_nothing(clock, student_client, gc_quiz, parse_html, settings, language):
    settings.ATTEMPT_DEADLINE_GRACE = timedelta(seconds=15)
    quiz_set(gc_quiz, time_limit=timedelta(minutes=10))
    attempt = started(student_client, gc_quiz)
    clock.shift(timedelta(minutes=10, seconds=16))
    _question, right, _wrong = choices(gc_quiz, 1)
    answers_before = list(Answer.objects.values())

    response = answer(student_client, attempt, gc_quiz, 1, right, language)
    assert response.status_code == 409
    page = parse_html(response)
    with override(language):
        expected = text(DEADLINE_PASSED % {"time": local_datetime(attempt.deadline)}, language)
    assert page.one("div", class_="alert", role="alert").text == expected
    assert page.find("a", href=result_url(attempt, language)) is not None
    assert list(Answer.objects.values()) == answers_before
    attempt.refresh_from_db()
    assert attempt.is_finished and attempt.score == 0


# Review options -----------------------------------------------------------------------------

TIMINGS = [timing.value for timing in FeedbackTiming]


def assert_feedback(scope, node, quiz, position, *, correctness: bool, right_answer: bool, language="en"):
    """What ``node`` (an answered question's section or its card in a result) shows of the
    answer's feedback; where the review withholds something, nothing in ``scope`` (the page's
    review: every answer's feedback on it) shows it."""
    question, _right, _wrong = choices(quiz, position)
    explanation = " ".join(getattr(question, f"explanation_{language}").split())
    items = node.find_all("li", class_="choice")
    (chosen,) = [item for item in items if "chosen" in item.classes]
    assert chosen.one("span", class_="tag").text == text("your answer", language)
    tags = [tag.text for item in scope.find_all("li", class_="choice") for tag in item.find_all("span", class_="tag")]
    if right_answer:
        assert len([item for item in items if "right" in item.classes]) == 1
        assert text("right answer", language) in [tag.text for tag in node.find_all("span", class_="tag")]
    else:
        assert scope.find("li", class_="right") is None
        assert text("right answer", language) not in tags
        assert text("The right answer is:", language) not in scope.text
    if correctness:
        assert explanation in node.text
        assert node.find("p", class_="verdict") is not None
    else:
        assert explanation not in scope.text
        assert scope.find("p", class_="explanation") is None
        assert node.find("p", class_="verdict") is None
        assert "✓" not in scope.text and "✗" not in scope.text
        # The right choice's item looks like any other choice not chosen.
        others = [item for item in items if item is not chosen]
        assert len({repr(item) + item.one("span", class_="mark").text for item in others}) == 1


@pytest.mark.parametrize("show_right_answer", [True, False])
@pytest.mark.parametrize("feedback_timing", TIMINGS)
def test_the_question_page_and_the_result_follow_the_review_options(
    clock, student_client, gc_quiz, parse_html, feedback_timing, show_right_answer
):
    quiz_set(
        gc_quiz,
        feedback_timing=feedback_timing,
        show_right_answer=show_right_answer,
        closes_at=NOW + timedelta(hours=1),
    )
    attempt = started(student_client, gc_quiz)
    _question, _right, wrong = choices(gc_quiz, 1)
    assert answer(student_client, attempt, gc_quiz, 1, wrong).status_code == 302

    during = feedback_timing == FeedbackTiming.IMMEDIATELY
    page = parse_html(student_client.get(question_url(attempt, 1)))
    section = page.one("main")
    assert_feedback(section, section, gc_quiz, 1, correctness=during, right_answer=during and show_right_answer)
    withheld = page.find("p", class_="withheld")
    assert (withheld.text if withheld else None) == (None if during else str(ANSWER_WITHHELD[feedback_timing]))

    student_client.post(f"/en/attempts/{attempt.pk}/finish/")
    after = feedback_timing in (FeedbackTiming.IMMEDIATELY, FeedbackTiming.AFTER_ATTEMPT)
    page = parse_html(student_client.get(result_url(attempt)))
    assert page.one("p", id="score").text.startswith("0 of ")  # the score is shown whatever the timing
    review = page.one("ol", class_="review")
    card = review.find_all("li", class_="card")[0]
    assert_feedback(review, card, gc_quiz, 1, correctness=after, right_answer=after and show_right_answer)
    notice = page.find("p", class_="withheld")
    assert (notice.text if notice else None) == (None if after else str(RESULT_WITHHELD[feedback_timing]))

    clock.shift(timedelta(hours=1))  # the quiz closes
    closed = after or feedback_timing == FeedbackTiming.AFTER_CLOSE
    review = parse_html(student_client.get(result_url(attempt))).one("ol", class_="review")
    card = review.find_all("li", class_="card")[0]
    assert_feedback(review, card, gc_quiz, 1, correctness=closed, right_answer=closed and show_right_answer)


@pytest.mark.parametrize("language", ["en", "ur"])
def test_the_cached_question_body_is_never_shown_under_another_review(
    clock, student_client, gc_quiz, parse_html, language
):
    attempt = started(student_client, gc_quiz)
    _question, _right, wrong = choices(gc_quiz, 1)
    answer(student_client, attempt, gc_quiz, 1, wrong, language)
    url = question_url(attempt, 1, language)
    section = parse_html(student_client.get(url)).one("main")
    assert_feedback(section, section, gc_quiz, 1, correctness=True, right_answer=True, language=language)

    quiz_set(gc_quiz, show_right_answer=False)
    section = parse_html(student_client.get(url)).one("main")
    assert_feedback(section, section, gc_quiz, 1, correctness=True, right_answer=False, language=language)

    for timing in (FeedbackTiming.AFTER_ATTEMPT, FeedbackTiming.NEVER):
        quiz_set(gc_quiz, feedback_timing=timing)
        section = parse_html(student_client.get(url)).one("main")
        assert_feedback(section, section, gc_quiz, 1, correctness=False, right_answer=False, language=language)
        assert section.one("p", class_="withheld").text == text(ANSWER_WITHHELD[timing], language)


@pytest.mark.parametrize("feedback_timing", TIMINGS)
def test_the_quiz_page_says_when_answers_are_shown(clock, student_client, gc_quiz, parse_html, feedback_timing):
    from quizzes.web.timing import FEEDBACK_TIMING, NO_RIGHT_ANSWERS

    quiz_set(gc_quiz, feedback_timing=feedback_timing, show_right_answer=False)
    said = parse_html(student_client.get(quiz_url("en", gc_quiz))).one("p", class_="help").text
    expected = str(FEEDBACK_TIMING[feedback_timing])
    if feedback_timing != FeedbackTiming.NEVER:
        expected += f" {NO_RIGHT_ANSWERS}"
    assert said == " ".join(expected.split())


def test_a_right_answer_is_marked_right_even_where_the_right_answer_is_not_shown(
    clock, student_client, gc_quiz, parse_html
):
    quiz_set(gc_quiz, show_right_answer=False)
    attempt = started(student_client, gc_quiz)
    _question, right, _wrong = choices(gc_quiz, 1)
    answer(student_client, attempt, gc_quiz, 1, right)
    main = parse_html(student_client.get(question_url(attempt, 1))).one("main")
    (marked,) = main.find_all("li", class_="right")
    assert "chosen" in marked.classes and marked.one("span", class_="mark").text == "✓"
    assert [tag.text for tag in marked.find_all("span", class_="tag")] == ["your answer"]
    assert main.one("p", class_="verdict").text == "✓ Correct!"
    assert main.find("ul", class_="unmarked") is None
