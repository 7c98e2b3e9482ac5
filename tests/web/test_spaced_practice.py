"""Spaced practice on the dashboard: an attempt's missed questions come back 1, 3 and 7 days
after it was finished, by the day in the student's own time zone, in their language."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext, override

from quizzes.attempts.practice_selectors import practice_due
from quizzes.models import Answer, Attempt, FeedbackTiming, UserPreferences
from quizzes.web.jinja_env import date as date_filter
from quizzes.web.jinja_env import questions_missed
from tests.factories import AttemptFactory, answer_row

GC = "gradient-checkpointing"
AR = "activation-recomputation-tradeoffs"
# When every attempt here is finished: 20:00 UTC, 01:00 the next day in Karachi (UTC+5).
FINISHED = datetime(2026, 11, 20, 20, 0, tzinfo=UTC)


def dashboard_url(language: str = "en") -> str:
    with override(language):
        return reverse("quizzes:dashboard")


def words(text) -> str:
    return " ".join(str(text).split())


def finished(user, quiz, *, at=FINISHED, wrong=(1, 2), practice=False):
    """A finished graded attempt at ``at``: the questions at ``wrong`` answered wrong, the others
    right."""
    number = user.attempts.filter(quiz=quiz).count() + 1
    attempt = AttemptFactory(user=user, quiz=quiz, finished=True, finished_at=at, is_practice=practice, number=number)
    questions = list(quiz.questions.filter(is_archived=False).prefetch_related("choices"))
    for question in questions:
        right = question.position not in wrong
        choice = next(c for c in question.choices.all() if c.is_correct == right)
        answer_row(attempt=attempt, question=question, choice=choice, is_correct=right).save()
    # Graded as a finish grades it: the score counts the answers right, of the layout's questions.
    score = sum(question.position not in wrong for question in questions)
    Attempt.objects.filter(pk=attempt.pk).update(score=score, max_score=len(questions))
    attempt.refresh_from_db()
    return attempt


def at_noon_utc(day_after: int):
    return time_machine.travel(FINISHED.replace(hour=12) + timedelta(days=day_after), tick=False)


def due_on(user, day_after: int, zone: str = "UTC") -> list:
    with at_noon_utc(day_after), timezone.override(zone):
        return practice_due(user=user, today=timezone.localdate())


def practise_again(parse_html, response):
    return parse_html(response).find("section", aria_labelledby="practise-again")


class TestWhenDue:
    @pytest.mark.parametrize("day_after", [1, 3, 7])
    def test_due_on_days_1_3_and_7(self, student, gc_quiz, day_after):
        attempt = finished(student, gc_quiz)
        (due,) = due_on(student, day_after)
        assert due.pk == attempt.pk and due.missed_count == 2 and due.quiz.slug == GC

    @pytest.mark.parametrize("day_after", [0, 2, 4, 6, 8])
    def test_not_due_on_other_days(self, student, gc_quiz, day_after):
        finished(student, gc_quiz)
        assert due_on(student, day_after) == []

    def test_the_day_follows_the_time_zone(self, student, gc_quiz):
        """Finished at 20:00 UTC on the 20th: the 21st in Karachi. At noon UTC on the 22nd it is the
        22nd in both: day 2 in UTC (not due), day 1 in Karachi (due)."""
        finished(student, gc_quiz)
        assert due_on(student, 2, "UTC") == []
        assert len(due_on(student, 2, "Asia/Karachi")) == 1
        assert len(due_on(student, 3, "UTC")) == 1
        assert due_on(student, 3, "Asia/Karachi") == []

    def test_nothing_missed_is_not_due(self, student, gc_quiz):
        finished(student, gc_quiz, wrong=())
        assert due_on(student, 1) == []

    def test_unanswered_questions_count_as_missed(self, student, gc_quiz):
        attempt = finished(student, gc_quiz, wrong=())
        Answer.objects.filter(attempt=attempt, question__position__in=[5, 6, 7]).delete()
        # Graded as its finish would have graded it with those questions unanswered.
        right = Answer.objects.filter(attempt=attempt, is_correct=True).count()
        Attempt.objects.filter(pk=attempt.pk).update(score=right)
        (due,) = due_on(student, 1)
        assert due.missed_count == 3

    def test_practice_attempts_are_not_due(self, student, gc_quiz):
        finished(student, gc_quiz, practice=True)
        assert due_on(student, 1) == []

    def test_the_newest_of_each_quiz(self, student, gc_quiz, content):
        finished(student, gc_quiz, at=FINISHED - timedelta(hours=5))
        newest = finished(student, gc_quiz, at=FINISHED, wrong=(1,))
        finished(student, gc_quiz, at=FINISHED - timedelta(days=2))  # due on day 1 too, as day 3
        other = finished(student, content[AR], at=FINISHED - timedelta(hours=1))
        assert [(a.pk, a.missed_count) for a in due_on(student, 1)] == [(newest.pk, 1), (other.pk, 2)]

    def test_not_while_the_review_hides_correctness(self, student, gc_quiz):
        gc_quiz.feedback_timing = FeedbackTiming.AFTER_CLOSE
        gc_quiz.closes_at = FINISHED + timedelta(days=2, hours=1)
        gc_quiz.save()
        finished(student, gc_quiz)
        assert due_on(student, 1) == []  # not closed yet
        assert len(due_on(student, 3)) == 1  # closed: the feedback is shown

    def test_not_after_unenrolling(self, student, gc_quiz):
        finished(student, gc_quiz)
        student.enrollments.all().delete()
        assert due_on(student, 1) == []


class TestDashboard:
    def test_the_section_and_its_button(self, student, student_client, gc_quiz, parse_html):
        attempt = finished(student, gc_quiz)
        with at_noon_utc(1):
            response = student_client.get(dashboard_url())
        section = practise_again(parse_html, response)
        assert words(section.one("h2").text) == "Practise again"
        item = section.one("li")
        assert words(item.one("h3").text) == gc_quiz.title_en
        with timezone.override("UTC"):
            expected = questions_missed(2, date_filter(attempt.finished_at, "DATE_FORMAT"))
        assert words(item.one("p").text) == words(expected) == "2 questions you missed on Nov. 20, 2026"
        form = item.one("form")
        assert form["method"] == "post"
        assert form["action"] == reverse("quizzes:attempt_practice", kwargs={"pk": attempt.pk})

    def test_no_section_when_nothing_is_due(self, student, student_client, gc_quiz, parse_html):
        finished(student, gc_quiz)
        with at_noon_utc(2):
            response = student_client.get(dashboard_url())
        assert practise_again(parse_html, response) is None

    def test_one_question_in_the_singular(self, student, student_client, gc_quiz, parse_html):
        finished(student, gc_quiz, wrong=(3,))
        with at_noon_utc(7):
            response = student_client.get(dashboard_url())
        assert words(practise_again(parse_html, response).one("p").text).startswith("1 question you missed on ")

    def test_the_users_time_zone_decides(self, student, client, gc_quiz, parse_html):
        UserPreferences.objects.create(user=student, time_zone="Asia/Karachi")
        client.force_login(student)  # the login copies the zone into the session
        finished(student, gc_quiz)
        with at_noon_utc(2):
            response = client.get(dashboard_url())
        text = words(practise_again(parse_html, response).one("p").text)
        assert text == "2 questions you missed on Nov. 21, 2026"  # the 21st in Karachi

    def test_in_urdu(self, student, student_client, gc_quiz, parse_html):
        attempt = finished(student, gc_quiz)
        with at_noon_utc(3):
            response = student_client.get(dashboard_url("ur"))
        page = parse_html(response)
        assert page.one("html")["lang"] == "ur"
        section = page.one("section", aria_labelledby="practise-again")
        with translation.override("ur"), timezone.override("UTC"):
            heading = gettext("Practise again")
            line = questions_missed(2, date_filter(attempt.finished_at, "DATE_FORMAT"))
            button = gettext("Practise the questions I missed")
        assert words(section.one("h2").text) == words(heading)
        title = section.one("h3")
        assert words(title.text) == gc_quiz.title_ur and title.get("lang") in (None, "ur")
        assert words(section.one("p").text) == words(line)
        assert words(section.one("button").text) == words(button)

    def test_the_practice_starts_from_the_dashboard(self, student, student_client, gc_quiz):
        attempt = finished(student, gc_quiz)
        with at_noon_utc(1):
            response = student_client.post(reverse("quizzes:attempt_practice", kwargs={"pk": attempt.pk}))
        assert response.status_code == 302
        assert student.attempts.filter(is_practice=True, quiz=gc_quiz).count() == 1
