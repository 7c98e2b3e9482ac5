"""The staff reports and teachers' settings: a practice attempt counts nowhere (the gradebook's
grades and attempts, its CSV, the item statistics and their translation flags), and a student's
override of a quiz is noted in their gradebook cell and in the CSV, by what it changes."""

import csv
import io
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from quizzes.accounts.roles import CONTENT_EDITORS
from quizzes.attempts.regrade import question_regrade_plan
from quizzes.models import Attempt, CourseGroup, QuizOverride
from quizzes.reports.gradebook import gradebook_cells
from quizzes.reports.gradebook_overrides import gradebook_overrides
from quizzes.reports.statistics import quiz_statistics, quizzes_with_attempt_counts
from tests.factories import AttemptFactory, CourseFactory, EnrollmentFactory, QuizFactory, UserFactory, answer_row
from tests.reports.test_gradebook import count_queries, grid, url
from tests.reports.test_item_statistics import make_question, seed_attempts

pytestmark = pytest.mark.django_db


def attempt(user, quiz, number, score, *, practice=False, state=Attempt.State.FINISHED):
    done = state == Attempt.State.FINISHED
    return AttemptFactory(
        user=user,
        quiz=quiz,
        number=number,
        state=state,
        finished_at=timezone.now() if done else None,
        score=score if done else None,
        max_score=8,
        is_practice=practice,
        layout=False,
    )


@pytest.fixture
def staff_client(db):
    user = UserFactory(username="editor-gb", is_staff=True)
    user.groups.add(Group.objects.get(name=CONTENT_EDITORS))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def book(db):
    """quiz-1 (pass mark 50): alice 3/8 then a practice 8/8 -> 37 %, 1 attempt, not passed;
    bob only a practice in progress -> not attempted. quiz-2: carol 6/8 and a practice 2/8.
    Overrides: alice's own at quiz-1 (45 minutes); the group "Extra time" (bob) at quiz-2 (5 attempts)."""
    course = CourseFactory(slug="practice-course", title_en="Practice course")
    quiz1 = QuizFactory(course=course, slug="quiz-1", position=1, title_en="Quiz one", pass_mark=50)
    quiz2 = QuizFactory(course=course, slug="quiz-2", position=2, title_en="Quiz two", pass_mark=50)
    users = {
        name: UserFactory(username=name, first_name=name.title(), last_name="X") for name in ("alice", "bob", "carol")
    }
    for user in users.values():
        EnrollmentFactory(user=user, course=course)
    attempt(users["alice"], quiz1, 1, 3)
    attempt(users["alice"], quiz1, 1, 8, practice=True)
    attempt(users["bob"], quiz1, 1, None, practice=True, state=Attempt.State.IN_PROGRESS)
    attempt(users["carol"], quiz2, 1, 6)
    attempt(users["carol"], quiz2, 1, 2, practice=True)
    QuizOverride.objects.create(quiz=quiz1, user=users["alice"], time_limit=timedelta(minutes=45))
    group = CourseGroup.objects.create(course=course, name="Extra time")
    group.members.set([users["bob"]])
    QuizOverride.objects.create(quiz=quiz2, group=group, max_attempts=5)
    return {"course": course, "quizzes": [quiz1, quiz2], "users": users, "group": group}


def export_rows(client, language="en", **query) -> list[list[str]]:
    response = client.get(url("gradebook_export", "practice-course", language=language, **query))
    assert response.status_code == 200
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))


# Practice counts nowhere -----------------------------------------------------------------------


def test_practice_attempts_are_not_in_the_cells(book):
    users, quizzes = book["users"], book["quizzes"]
    cells = gradebook_cells(student_ids=[user.pk for user in users.values()], quizzes=quizzes)

    alice = cells[(users["alice"].pk, quizzes[0].pk)]
    assert (alice.attempts, alice.finished, alice.best_percent, alice.passed) == (1, 1, 37, False)
    assert (users["bob"].pk, quizzes[0].pk) not in cells  # a practice in progress is no attempt
    carol = cells[(users["carol"].pk, quizzes[1].pk)]
    assert (carol.attempts, carol.best_percent, carol.passed) == (1, 75, True)
    real = Attempt.objects.get(user=users["alice"], quiz=quizzes[0], is_practice=False)
    assert alice.latest_attempt_id == real.pk  # the one attempt the cell links to


def test_the_page_shows_no_practice(book, staff_client, parse_html):
    tree = parse_html(staff_client.get(url("gradebook", "practice-course")))
    rows = grid(tree)

    assert "37%" in rows["alice"][1] and "1 attempt" in rows["alice"][1] and "✗ not passed" in rows["alice"][1]
    assert "100%" not in rows["alice"][1]
    assert "not attempted" in rows["bob"][1] and "in progress" not in rows["bob"][1]
    passed = [th.one("span", class_="quiz-passed").text for th in tree.find_all("th", class_="quiz-column")]
    assert passed == ["0 passed", "1 passed"]


def test_the_attempt_count_links_to_the_counted_attempts(book, staff_client, parse_html):
    carol, quiz2 = book["users"]["carol"], book["quizzes"][1]
    attempt(carol, quiz2, 2, 7)  # two counted attempts: the link is to the list
    tree = parse_html(staff_client.get(url("gradebook", "practice-course")))

    link = next(a for a in tree.find_all("a", class_="attempt-count") if a.text == "2 attempts")
    listed = staff_client.get(link["href"])

    assert link["href"] == (
        f"{reverse('admin:quizzes_attempt_changelist')}?user__id__exact={carol.pk}"
        f"&quiz__id__exact={quiz2.pk}&is_practice__exact=0"
    )
    assert listed.status_code == 200 and listed.context["cl"].result_count == 2


def test_the_csv_counts_no_practice(book, staff_client):
    rows = export_rows(staff_client)

    by_user = {row[0]: row for row in rows[1:]}
    assert by_user["alice"][3:6] == ["37", "1", "no"]
    assert by_user["bob"][3:6] == ["", "0", ""]
    assert by_user["carol"][7:10] == ["75", "1", "yes"]


def test_item_statistics_leave_practice_answers_out(db):
    # en 40/40 and ur 40/40: nothing to flag. 40 Urdu practice attempts, all wrong, would make
    # Urdu 40/80 (50 points below English, significant) if they were counted.
    quiz = QuizFactory(slug="practice-stats")
    question, choices = make_question(quiz, 1, correct=1)
    finished = Attempt.State.FINISHED
    seed_attempts(
        quiz,
        [
            (40, "en", finished, {question: choices[1]}, 1),
            (40, "ur", finished, {question: choices[1]}, 1),
            (40, "ur", finished, {question: choices[2]}, 0),
        ],
        max_score=1,
    )
    practice = list(Attempt.objects.filter(quiz=quiz).order_by("-pk").values_list("pk", flat=True)[:40])
    Attempt.objects.filter(pk__in=practice).update(is_practice=True)

    report = quiz_statistics(quiz=quiz, language="en")

    (stats,) = report.questions
    assert (report.finished_attempts, report.mean_score_percent) == (80, 100.0)
    assert (stats.answers, stats.correct, stats.facility) == (80, 80, 100.0)
    assert {language.language: language.answers for language in stats.languages} == {"en": 40, "ur": 40}
    assert stats.flagged_languages == []
    assert {choice.position: choice.count for choice in stats.choices} == {1: 80, 2: 0, 3: 0, 4: 0}
    counts = quizzes_with_attempt_counts().get(pk=quiz.pk)
    assert (counts.finished_attempts, counts.in_progress_attempts) == (80, 0)


def test_the_regrade_plan_says_which_changed_attempt_is_a_practice(db):
    quiz = QuizFactory(slug="practice-regrade")
    question, choices = make_question(quiz, 1, correct=1, choices=2)
    student = UserFactory(username="dana")
    for practice in (False, True):
        done = attempt(student, quiz, 1, 0, practice=practice)
        answer_row(attempt=done, question=question, choice=choices[2], is_correct=False).save()

    (version,) = question_regrade_plan(question=question, new_correct=choices[2]).versions

    assert sorted((change.number, change.is_practice, change.new_score) for change in version.scores) == [
        (1, False, 1),
        (1, True, 1),
    ]


# Overrides are marked --------------------------------------------------------------------------


def test_overrides_are_noted_by_what_they_change(book):
    users, (quiz1, quiz2) = book["users"], book["quizzes"]

    overrides = gradebook_overrides([quiz1, quiz2])

    alice = overrides.note(users["alice"].pk, quiz1.pk)
    assert (alice.changes, alice.own, alice.groups) == ((("time_limit", timedelta(minutes=45)),), True, ())
    bob = overrides.note(users["bob"].pk, quiz2.pk)
    assert (bob.changes, bob.own, bob.groups) == ((("max_attempts", 5),), False, ("Extra time",))
    assert overrides.note(users["carol"].pk, quiz2.pk) is None
    assert overrides.note(users["alice"].pk, quiz2.pk) is None
    with translation.override("en"):
        assert alice.text == "time limit 0:45:00"
        assert bob.text == "5 attempts (group Extra time)"


def test_a_students_own_override_comes_before_their_groups(book):
    users, quiz2 = book["users"], book["quizzes"][1]
    book["group"].members.add(users["carol"])
    QuizOverride.objects.create(quiz=quiz2, user=users["carol"], max_attempts=2, closes_at=timezone.now())

    note = gradebook_overrides([quiz2]).note(users["carol"].pk, quiz2.pk)

    assert dict(note.changes)["max_attempts"] == 2  # as quiz_rules applies them
    assert note.own and note.groups == ("Extra time",)


def test_the_page_marks_a_student_with_an_override(book, staff_client, parse_html):
    tree = parse_html(staff_client.get(url("gradebook", "practice-course")))
    rows = grid(tree)

    assert "override time limit 0:45:00" in rows["alice"][1]
    assert "group override 5 attempts (group Extra time)" in rows["bob"][2]
    assert "override" not in rows["carol"][1] + rows["carol"][2]
    # Marked whether or not they attempted the quiz.
    assert "not attempted" in rows["bob"][2]


def test_the_csv_has_an_override_column_for_each_quiz_with_overrides(book, staff_client):
    rows = export_rows(staff_client)

    assert rows[0] == [
        "username",
        "full name",
        "email",
        "Quiz one: best %",
        "Quiz one: attempts",
        "Quiz one: passed",
        "Quiz one: override",
        "Quiz two: best %",
        "Quiz two: attempts",
        "Quiz two: passed",
        "Quiz two: override",
    ]
    by_user = {row[0]: row for row in rows[1:]}
    assert by_user["alice"][6] == "time limit 0:45:00" and by_user["alice"][10] == ""
    assert by_user["bob"][10] == "5 attempts (group Extra time)"
    assert by_user["carol"][6] == by_user["carol"][10] == ""


def test_a_quiz_without_overrides_has_no_override_column(book, staff_client):
    QuizOverride.objects.filter(quiz=book["quizzes"][1]).delete()

    header = export_rows(staff_client)[0]

    assert "Quiz one: override" in header and "Quiz two: override" not in header


def test_the_csv_writes_the_override_in_the_request_language_and_time_zone(book, staff_client, settings):
    settings.TIME_ZONE = "Asia/Karachi"
    users, quiz1 = book["users"], book["quizzes"][0]
    QuizOverride.objects.filter(user=users["alice"]).update(closes_at=timezone.now() + timedelta(days=3))

    rows = export_rows(staff_client, language="ur")

    note = gradebook_overrides([quiz1]).note(users["alice"].pk, quiz1.pk)
    with translation.override("ur"), timezone.override("Asia/Karachi"):
        expected = note.text
    assert {row[0]: row for row in rows[1:]}["alice"][6] == expected
    assert "PKT" in expected


@pytest.mark.parametrize("name", ["gradebook", "gradebook_export"])
def test_overrides_cost_a_fixed_number_of_queries(book, staff_client, name):
    course, group = book["course"], book["group"]
    path = url(name, "practice-course")
    small = count_queries(staff_client, path)

    for index in range(30):
        user = UserFactory(username=f"more-{index:02d}")
        EnrollmentFactory(user=user, course=course)
        group.members.add(user)
        QuizOverride.objects.create(quiz=book["quizzes"][0], user=user, max_attempts=index + 1)
        attempt(user, book["quizzes"][0], 1, index % 9)
        attempt(user, book["quizzes"][0], 1, 8, practice=True)
    large = count_queries(staff_client, path)

    assert large == small
