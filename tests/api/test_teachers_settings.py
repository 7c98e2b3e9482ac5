"""The teachers' settings through the API (issue 21): a quiz's dates, an attempt's deadline and
time left, the overrides of a student and of their groups, and the practice of missed questions.
The server's clock decides: each test sets it (time-machine)."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.conf import settings
from django.utils import timezone

from quizzes.models import Answer, Attempt, CourseGroup, FeedbackTiming, IdempotencyKey, Quiz, QuizOverride
from tests.api import (
    PROGRESS_URL,
    QUIZZES_URL,
    answer,
    assert_error,
    attempt_url,
    finish_url,
    question,
    quiz_url,
    right,
    start_url,
    wrong,
)
from tests.api.conftest import token_client
from tests.factories import ChoiceFactory, CourseFactory, EnrollmentFactory, QuestionFactory, QuizFactory, UserFactory

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
SLUG = "timed-quiz"
QUESTIONS = 3


def practice_url(pk) -> str:
    return f"/api/v1/attempts/{pk}/practice/"


def iso(value: datetime) -> str:
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


@pytest.fixture
def clock():
    with time_machine.travel(NOW, tick=False) as traveller:
        yield traveller


@pytest.fixture
def quiz(db) -> Quiz:
    quiz = QuizFactory(course=CourseFactory(slug="timed-course"), slug=SLUG, pass_mark=50)
    for position in range(1, QUESTIONS + 1):
        item = QuestionFactory(quiz=quiz, position=position)
        ChoiceFactory(question=item, position=1, is_correct=True)
        ChoiceFactory(question=item, position=2)
    return quiz


@pytest.fixture
def learner(quiz):
    user = UserFactory(username="timed-learner")
    EnrollmentFactory(user=user, course=quiz.course)
    return user


@pytest.fixture
def api(clock, learner):
    return token_client(learner)


def settings_set(quiz: Quiz, **values) -> None:
    Quiz.objects.filter(pk=quiz.pk).update(**values)


def group_of(quiz: Quiz, name: str, *members) -> CourseGroup:
    group = CourseGroup.objects.create(course=quiz.course, name=name)
    group.members.add(*members)
    return group


def written() -> tuple:
    return (
        list(Attempt.objects.order_by("pk").values()),
        list(Answer.objects.order_by("pk").values()),
        IdempotencyKey.objects.count(),
    )


def started(api, slug: str = SLUG, status: int = 201, **extra) -> dict:
    response = api.post(start_url(slug), format="json", **extra)
    assert response.status_code == status, response.content[:300]
    return response.json()


class TestDates:
    @pytest.mark.parametrize(
        "dates, code",
        [
            ({"opens_at": NOW + timedelta(hours=1)}, "quiz_not_open"),
            ({"closes_at": NOW - timedelta(seconds=1)}, "quiz_closed"),
            ({"opens_at": NOW - timedelta(days=2), "closes_at": NOW}, "quiz_closed"),  # closes at NOW: closed
        ],
        ids=["before-open", "after-close", "at-close"],
    )
    def test_no_attempt_starts_outside_the_dates(self, api, quiz, dates, code):
        settings_set(quiz, **dates)
        before = written()

        for extra in ({}, {"HTTP_IDEMPOTENCY_KEY": "start-1"}):
            body = assert_error(api.post(start_url(SLUG), format="json", **extra), 403, code)
            assert body["detail"]

        assert written() == before
        detail = api.get(quiz_url(SLUG)).json()
        assert detail["is_open"] is False
        assert (detail["opens_at"], detail["closes_at"]) == tuple(
            iso(dates[name]) if name in dates else None for name in ("opens_at", "closes_at")
        )

    def test_the_refusal_is_in_the_students_language(self, api, quiz):
        settings_set(quiz, opens_at=NOW + timedelta(days=1))

        english = assert_error(api.post(start_url(SLUG), format="json"), 403, "quiz_not_open")["detail"]
        urdu = assert_error(api.post(f"{start_url(SLUG)}?lang=ur", format="json"), 403, "quiz_not_open")["detail"]

        assert english != urdu and "2026" in english

    def test_an_open_quiz_says_so(self, api, quiz):
        settings_set(quiz, opens_at=NOW, closes_at=NOW + timedelta(days=1), max_attempts=2)

        detail = api.get(quiz_url(SLUG)).json()

        assert detail["is_open"] is True
        assert (detail["opens_at"], detail["closes_at"]) == (iso(NOW), iso(NOW + timedelta(days=1)))
        assert (detail["max_attempts"], detail["attempts_left"], detail["time_limit"]) == (2, 2, None)
        assert (detail["feedback_timing"], detail["show_right_answer"]) == ("immediately", True)
        started(api)
        assert api.get(quiz_url(SLUG)).json()["attempts_left"] == 1
        assert api.get(QUIZZES_URL).json()["results"][0]["max_attempts"] == 2


class TestDeadline:
    def test_deadline_and_time_left_by_the_servers_clock(self, api, quiz, clock):
        settings_set(quiz, time_limit=timedelta(minutes=10))

        attempt = started(api)

        assert attempt["deadline"] == iso(NOW + timedelta(minutes=10))
        assert attempt["time_left"] == 600 and attempt["is_practice"] is False
        assert api.get(quiz_url(SLUG)).json()["time_limit"] == 600
        clock.shift(timedelta(minutes=4, seconds=30))
        assert api.get(attempt_url(attempt["id"])).json()["time_left"] == 330
        resumed = started(api, status=200)
        assert (resumed["id"], resumed["time_left"]) == (attempt["id"], 330)

    def test_the_close_date_cuts_the_time_limit(self, api, quiz):
        settings_set(quiz, time_limit=timedelta(hours=1), closes_at=NOW + timedelta(minutes=5))

        attempt = started(api)

        assert (attempt["deadline"], attempt["time_left"]) == (iso(NOW + timedelta(minutes=5)), 300)

    def test_no_limit_no_deadline(self, api, quiz):
        attempt = started(api)

        assert (attempt["deadline"], attempt["time_left"]) == (None, None)

    @pytest.mark.parametrize("with_key", [False, True], ids=["plain", "idempotency-key"])
    def test_a_late_answer_is_refused_and_the_attempt_finished(self, api, quiz, clock, with_key):
        settings_set(quiz, time_limit=timedelta(minutes=10))
        attempt = started(api)
        assert answer(api, attempt["id"], right(quiz, 1)).status_code == 201
        clock.shift(timedelta(minutes=10) + settings.ATTEMPT_DEADLINE_GRACE + timedelta(seconds=1))
        extra = {"HTTP_IDEMPOTENCY_KEY": "late-1"} if with_key else {}

        body = assert_error(answer(api, attempt["id"], right(quiz, 2), **extra), 409, "deadline_passed")

        assert body["detail"]
        assert list(Answer.objects.values_list("question_id", flat=True)) == [question(quiz, 1).pk]
        finished = Attempt.objects.get(pk=attempt["id"])
        assert (finished.state, finished.score) == (Attempt.State.FINISHED, 1)
        assert not IdempotencyKey.objects.filter(key="late-1").exists()
        shown = api.get(attempt_url(attempt["id"])).json()
        assert (shown["state"], shown["time_left"], shown["score"]) == ("finished", None, 1)

    def test_an_answer_within_the_grace_is_taken(self, api, quiz, clock):
        settings_set(quiz, time_limit=timedelta(minutes=10))
        attempt = started(api)
        clock.shift(timedelta(minutes=10) + settings.ATTEMPT_DEADLINE_GRACE - timedelta(seconds=1))

        response = answer(api, attempt["id"], right(quiz, 1))

        assert response.status_code == 201 and response.json()["correct"] is True
        assert Attempt.objects.get(pk=attempt["id"]).state == Attempt.State.IN_PROGRESS

    def test_reading_an_overdue_attempt_finishes_it(self, api, quiz, clock):
        settings_set(quiz, time_limit=timedelta(minutes=10))
        attempt = started(api)
        answer(api, attempt["id"], right(quiz, 1))
        clock.shift(timedelta(minutes=11))

        shown = api.get(attempt_url(attempt["id"])).json()

        assert (shown["state"], shown["score"], shown["finished_at"]) == ("finished", 1, iso(timezone.now()))
        assert Attempt.objects.get(pk=attempt["id"]).state == Attempt.State.FINISHED

    def test_finishing_an_overdue_attempt(self, api, quiz, clock):
        settings_set(quiz, time_limit=timedelta(minutes=10))
        attempt = started(api)
        clock.shift(timedelta(hours=1))

        response = api.post(finish_url(attempt["id"]), format="json")

        assert response.status_code == 200
        assert response.json() | {"is_practice": False, "score": 0} == response.json()

    def test_an_overdue_attempt_gives_way_to_a_new_one(self, api, quiz, clock):
        settings_set(quiz, time_limit=timedelta(minutes=10))
        first = started(api)
        clock.shift(timedelta(minutes=30))

        second = started(api)

        assert second["id"] != first["id"] and second["number"] == 2
        assert Attempt.objects.get(pk=first["id"]).state == Attempt.State.FINISHED


class TestOverrides:
    def test_the_students_own_override_wins_over_their_groups(self, api, quiz, learner):
        settings_set(quiz, time_limit=timedelta(minutes=10), max_attempts=1)
        group = group_of(quiz, "extra time", learner)
        QuizOverride.objects.create(quiz=quiz, group=group, time_limit=timedelta(minutes=30), max_attempts=4)
        QuizOverride.objects.create(quiz=quiz, user=learner, time_limit=timedelta(minutes=20))

        detail = api.get(quiz_url(SLUG)).json()
        attempt = started(api)

        assert (detail["time_limit"], detail["max_attempts"], detail["attempts_left"]) == (1200, 4, 4)
        assert (attempt["deadline"], attempt["time_left"]) == (iso(NOW + timedelta(minutes=20)), 1200)

    def test_the_most_generous_of_their_groups(self, api, quiz, learner):
        settings_set(quiz, time_limit=timedelta(minutes=10), closes_at=NOW + timedelta(days=1))
        late = NOW + timedelta(days=3)
        for name, limit, closes_at in [("a", 30, NOW + timedelta(days=2)), ("b", 45, late), ("c", 15, None)]:
            group = group_of(quiz, name, learner)
            limit = timedelta(minutes=limit)
            QuizOverride.objects.create(quiz=quiz, group=group, time_limit=limit, closes_at=closes_at)
        QuizOverride.objects.create(quiz=quiz, group=group_of(quiz, "not theirs"), time_limit=timedelta(hours=5))

        detail = api.get(quiz_url(SLUG)).json()

        assert (detail["time_limit"], detail["closes_at"]) == (45 * 60, iso(late))
        assert started(api)["deadline"] == iso(NOW + timedelta(minutes=45))

    def test_dates_of_an_override_let_a_student_in_or_keep_them_out(self, api, quiz, learner):
        settings_set(quiz, opens_at=NOW + timedelta(days=1))
        override = QuizOverride.objects.create(quiz=quiz, user=learner, opens_at=NOW - timedelta(hours=1))

        assert api.get(quiz_url(SLUG)).json()["is_open"] is True
        attempt = started(api)
        api.post(finish_url(attempt["id"]), format="json")

        override.opens_at, override.closes_at = None, NOW - timedelta(minutes=1)
        override.save()
        settings_set(quiz, opens_at=None)
        assert api.get(quiz_url(SLUG)).json()["is_open"] is False
        assert_error(api.post(start_url(SLUG), format="json"), 403, "quiz_closed")

    def test_another_students_override_is_not_applied(self, api, quiz):
        settings_set(quiz, time_limit=timedelta(minutes=10))
        other = UserFactory(username="timed-other")
        EnrollmentFactory(user=other, course=quiz.course)
        QuizOverride.objects.create(quiz=quiz, user=other, time_limit=timedelta(hours=2))

        assert api.get(quiz_url(SLUG)).json()["time_limit"] == 600
        assert started(api)["time_left"] == 600

    def test_more_attempts_by_override(self, api, quiz, learner):
        settings_set(quiz, max_attempts=1)
        first = started(api)
        api.post(finish_url(first["id"]), format="json")
        assert_error(api.post(start_url(SLUG), format="json"), 409, "no_attempts_left")

        QuizOverride.objects.create(quiz=quiz, user=learner, max_attempts=2)

        assert api.get(quiz_url(SLUG)).json()["attempts_left"] == 1
        assert started(api)["number"] == 2


def missed_one_of_each(api, quiz) -> int:
    """A finished attempt: question 1 right, 2 wrong, 3 unanswered."""
    attempt = started(api)
    answer(api, attempt["id"], right(quiz, 1))
    answer(api, attempt["id"], wrong(quiz, 2))
    assert api.post(finish_url(attempt["id"]), format="json").status_code == 200
    return attempt["id"]


class TestPractice:
    def test_a_practice_of_exactly_the_missed_questions(self, api, quiz):
        settings_set(quiz, time_limit=timedelta(minutes=10), feedback_timing=FeedbackTiming.AFTER_ATTEMPT)
        source = missed_one_of_each(api, quiz)
        progress = api.get(PROGRESS_URL).json()

        response = api.post(practice_url(source), format="json")

        assert response.status_code == 201
        practice = response.json()
        assert [item["id"] for item in practice["questions"]] == [question(quiz, 2).pk, question(quiz, 3).pk]
        assert (practice["is_practice"], practice["deadline"], practice["time_left"]) == (True, None, None)
        assert (practice["feedback_timing"], practice["max_score"], practice["number"]) == ("immediately", 2, 1)
        resumed = api.post(practice_url(source), format="json")
        assert (resumed.status_code, resumed.json()["id"]) == (200, practice["id"])
        feedback = answer(api, practice["id"], right(quiz, 2)).json()
        assert (feedback["correct"], feedback["correct_choice"], feedback["feedback_shown"]) == (
            True,
            right(quiz, 2).pk,
            True,
        )
        result = api.post(finish_url(practice["id"]), format="json").json()
        assert (result["is_practice"], result["score"]) == (True, 1)
        assert api.get(PROGRESS_URL).json() == progress
        quiz_progress = api.get(quiz_url(SLUG)).json()
        assert (quiz_progress["attempts_used"], quiz_progress["in_progress_attempt"]) == (1, None)

    def test_a_practice_replayed_by_its_key(self, api, quiz):
        source = missed_one_of_each(api, quiz)
        key = {"HTTP_IDEMPOTENCY_KEY": "practice-1"}

        first = api.post(practice_url(source), format="json", **key)
        replay = api.post(practice_url(source), format="json", **key)

        assert (first.status_code, replay.status_code, replay["Idempotent-Replayed"]) == (201, 201, "true")
        assert replay.json() == first.json()
        assert Attempt.objects.filter(is_practice=True).count() == 1

    def test_not_before_the_attempt_is_finished(self, api, quiz):
        attempt = started(api)
        before = written()

        assert_error(api.post(practice_url(attempt["id"]), format="json"), 409, "attempt_not_finished")
        assert written() == before

    @pytest.mark.parametrize("timing", [FeedbackTiming.NEVER, FeedbackTiming.AFTER_CLOSE])
    def test_not_while_the_review_hides_the_answers(self, api, quiz, timing):
        settings_set(quiz, feedback_timing=timing, closes_at=NOW + timedelta(days=1))
        source = missed_one_of_each(api, quiz)
        before = written()

        assert_error(api.post(practice_url(source), format="json"), 409, "review_not_available")
        assert written() == before

    def test_nothing_to_practise_when_all_was_right(self, api, quiz):
        attempt = started(api)
        for position in range(1, QUESTIONS + 1):
            answer(api, attempt["id"], right(quiz, position))
        api.post(finish_url(attempt["id"]), format="json")
        before = written()

        assert_error(api.post(practice_url(attempt["id"]), format="json"), 409, "nothing_to_practise")
        assert written() == before

    def test_not_someone_elses_attempt(self, api, quiz, clock):
        other = UserFactory(username="timed-other")
        EnrollmentFactory(user=other, course=quiz.course)
        theirs = missed_one_of_each(token_client(other), quiz)
        before = written()

        assert_error(api.post(practice_url(theirs), format="json"), 404)
        assert_error(api.post(practice_url(2**40), format="json"), 404)
        assert written() == before

    def test_not_once_unenrolled(self, api, quiz, learner):
        source = missed_one_of_each(api, quiz)
        learner.enrollments.all().delete()
        before = written()

        assert_error(api.post(practice_url(source), format="json"), 403, "not_enrolled")
        assert written() == before
