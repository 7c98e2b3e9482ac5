"""Teachers change a quiz while students take it (quizzes/attempts/deadlines.py): the quiz's
dates and time limit, a student's or a group's override, a group's members, each changed
through the admin's own forms as a teacher would, on a controlled clock. The deadline of an
attempt in progress follows the settings in force; the API, the question page and the answers
go by it; finished attempts and practices never change; the admin says how many moved."""

from datetime import datetime, timedelta

import pytest
from django.test import Client
from django.utils.translation import ngettext

from quizzes.admin.overrides import NO_DEADLINE_MOVED
from quizzes.attempts.deadlines import attempt_deadlines_recompute
from quizzes.attempts.services import attempt_finish, attempt_start, practice_start
from quizzes.models import Attempt, CourseGroup, QuizOverride
from tests.admin.test_admin_teachers_settings import add_override, dates, errors, quiz_page_data
from tests.admin_forms import admin_url, form_data
from tests.api.conftest import token_client
from tests.attempts.conftest import GRACE, NOW
from tests.factories import EnrollmentFactory, UserFactory

pytestmark = pytest.mark.django_db

MINUTE, HOUR, DAY = timedelta(minutes=1), timedelta(hours=1), timedelta(days=1)
LIMIT = 20 * MINUTE


@pytest.fixture
def quiz(gc_quiz):
    gc_quiz.time_limit = LIMIT
    gc_quiz.save(update_fields=["time_limit"])
    return gc_quiz


@pytest.fixture
def teacher_client(teacher) -> Client:
    client = Client()
    client.force_login(teacher)
    return client


def enrolled(name: str, quiz):
    user = UserFactory(username=name)
    EnrollmentFactory(user=user, course=quiz.course)
    return user


def started(student, quiz) -> Attempt:
    return attempt_start(user=student, quiz=quiz)[0]


def deadline_of(attempt) -> datetime | None:
    return Attempt.objects.get(pk=attempt.pk).deadline


def api_answer(student, attempt, quiz, position: int = 1):
    question = quiz.questions.get(position=position)
    choice = question.choices.get(is_correct=True)
    return token_client(student).post(
        f"/api/v1/attempts/{attempt.pk}/answers/", {"question": question.pk, "choice": choice.pk}, format="json"
    )


def api_deadline(student, attempt) -> tuple[str | None, int | None]:
    body = token_client(student).get(f"/api/v1/attempts/{attempt.pk}/").json()
    return body["deadline"], body["time_left"]


def page_deadline(student, attempt) -> str | None:
    client = Client()
    client.force_login(student)
    response = client.get(f"/en/attempts/{attempt.pk}/questions/1/")
    assert response.status_code == 200
    countdown = response.context["countdown"]
    return countdown["deadline"] if countdown else None


def iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds")


def moved_message(count: int) -> str:
    return ngettext(
        "%(count)d attempt in progress got a new deadline.", "%(count)d attempts in progress got a new deadline.", count
    ) % {"count": count}


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def save_quiz_page(client, quiz, **changes):
    url, data = quiz_page_data(client, quiz, **changes)
    response = client.post(url, data, follow=True)
    assert response.redirect_chain, errors(response)
    return response


# The quiz's time limit and dates ---------------------------------------------------------------


def test_a_longer_limit_extends_the_attempts_in_progress_and_no_other(clock, editor_client, student, quiz):
    attempt = started(student, quiz)
    other = enrolled("finished-early", quiz)
    done = attempt_finish(attempt=started(other, quiz))
    practice, _new = practice_start(user=other, attempt_id=done.pk)
    clock.move_to(NOW + 5 * MINUTE)

    response = save_quiz_page(editor_client, quiz, time_limit="00:30:00")

    assert moved_message(1) in messages_of(response)
    assert deadline_of(attempt) == NOW + 30 * MINUTE
    assert Attempt.objects.get(pk=done.pk).deadline == done.deadline and Attempt.objects.get(pk=done.pk).is_finished
    assert deadline_of(practice) is None
    assert api_deadline(student, attempt) == ("2026-12-01T09:30:00Z", 25 * 60)
    assert page_deadline(student, attempt) == iso(NOW + 30 * MINUTE)
    clock.move_to(NOW + 25 * MINUTE)  # past the old deadline and its grace
    assert api_answer(student, attempt, quiz).status_code == 201


def test_a_shorter_limit_leaves_an_attempt_overdue_and_its_next_answer_is_refused(clock, editor_client, student, quiz):
    attempt = started(student, quiz)
    assert api_answer(student, attempt, quiz, 1).status_code == 201
    clock.move_to(NOW + 12 * MINUTE)

    response = save_quiz_page(editor_client, quiz, time_limit="00:10:00")

    assert any(
        message.startswith(moved_message(1)) and "no more answers" in message for message in messages_of(response)
    )
    assert deadline_of(attempt) == NOW + 10 * MINUTE
    refused = api_answer(student, attempt, quiz, 2)
    assert refused.status_code == 409 and refused.json()["code"] == "deadline_passed"
    finished = Attempt.objects.get(pk=attempt.pk)
    assert finished.is_finished and finished.score == 1  # what it had


def test_closing_early_stops_answers_at_the_new_close(clock, editor_client, student, quiz):
    attempt = started(student, quiz)
    clock.move_to(NOW + 5 * MINUTE)

    save_quiz_page(editor_client, quiz, **dates(closes_at=NOW + 8 * MINUTE))

    assert deadline_of(attempt) == NOW + 8 * MINUTE
    assert api_deadline(student, attempt)[1] == 3 * 60
    clock.move_to(NOW + 8 * MINUTE + GRACE)  # the grace still takes it
    assert api_answer(student, attempt, quiz, 1).status_code == 201
    clock.move_to(NOW + 9 * MINUTE)
    assert api_answer(student, attempt, quiz, 2).json()["code"] == "deadline_passed"


def test_a_close_moved_later_helps_whoever_it_held(clock, editor_client, student, quiz):
    quiz.closes_at = NOW + 10 * MINUTE
    quiz.save(update_fields=["closes_at"])
    attempt = started(student, quiz)
    assert deadline_of(attempt) == NOW + 10 * MINUTE

    save_quiz_page(editor_client, quiz, **dates(closes_at=NOW + DAY))

    assert deadline_of(attempt) == NOW + LIMIT  # now the limit is the earlier
    clock.move_to(NOW + 15 * MINUTE)
    assert api_answer(student, attempt, quiz).status_code == 201


def test_a_close_moved_before_an_attempts_start_finishes_it_without_an_error(clock, editor_client, student, quiz):
    clock.move_to(NOW + HOUR)
    attempt = started(student, quiz)
    clock.move_to(NOW + HOUR + 2 * MINUTE)

    response = save_quiz_page(editor_client, quiz, **dates(closes_at=NOW))

    assert response.status_code == 200
    assert deadline_of(attempt) == NOW + HOUR  # never before its start: no time at all
    client = Client()
    client.force_login(student)
    page = client.get(f"/en/attempts/{attempt.pk}/questions/1/")
    assert page.status_code == 302 and page.url.endswith(f"/attempts/{attempt.pk}/result/")
    assert Attempt.objects.get(pk=attempt.pk).is_finished


def test_saving_the_quiz_without_touching_its_dates_moves_nothing(clock, editor_client, student, quiz):
    attempt = started(student, quiz)

    response = save_quiz_page(editor_client, quiz, pass_mark="70")

    assert not any("deadline" in message for message in messages_of(response))
    assert deadline_of(attempt) == NOW + LIMIT


# Overrides ------------------------------------------------------------------------------------


def override_page(client, override=None, **changes):
    url = admin_url("quizzes_quizoverride_change", override.pk) if override else admin_url("quizzes_quizoverride_add")
    data = form_data(client.get(url).text, "quizoverride_form")
    data.update(changes)
    data["_save"] = "Save"
    return url, data


def test_a_students_override_added_changed_and_deleted_in_its_list(clock, teacher_client, student, quiz):
    attempt = started(student, quiz)
    bystander = started(enrolled("bystander", quiz), quiz)
    clock.move_to(NOW + 18 * MINUTE)  # the phone died; the teacher gives 20 more minutes

    url, data = override_page(teacher_client, quiz=str(quiz.pk), user=student.username, time_limit="00:40:00")
    added = teacher_client.post(url, {**data, **dates(opens_at=None, closes_at=None)}, follow=True)

    assert moved_message(1) in messages_of(added)
    assert deadline_of(attempt) == NOW + 40 * MINUTE and deadline_of(bystander) == NOW + LIMIT
    clock.move_to(NOW + 25 * MINUTE)
    assert api_answer(student, attempt, quiz).status_code == 201

    override = QuizOverride.objects.get()
    url, data = override_page(teacher_client, override, time_limit="00:30:00")
    teacher_client.post(url, data, follow=True)
    assert deadline_of(attempt) == NOW + 30 * MINUTE

    deleted = teacher_client.post(admin_url("quizzes_quizoverride_delete", override.pk), {"post": "yes"}, follow=True)
    assert moved_message(1) in " ".join(messages_of(deleted))
    assert deadline_of(attempt) == NOW + LIMIT  # passed: its next answer is refused
    assert api_answer(student, attempt, quiz, 2).json()["code"] == "deadline_passed"


def test_an_override_moved_to_another_student_moves_both(clock, teacher_client, student, quiz):
    other = enrolled("other", quiz)
    mine, theirs = started(student, quiz), started(other, quiz)
    override = QuizOverride.objects.create(quiz=quiz, user=student, time_limit=HOUR)
    attempt_deadlines_recompute(quiz_ids=[quiz.pk])
    assert deadline_of(mine) == NOW + HOUR

    url, data = override_page(teacher_client, override, user=other.username)
    response = teacher_client.post(url, data, follow=True)

    assert moved_message(2) in messages_of(response)
    assert (deadline_of(mine), deadline_of(theirs)) == (NOW + LIMIT, NOW + HOUR)


def test_overrides_deleted_from_the_list_give_back_the_quizs_deadline(clock, teacher_client, student, quiz):
    attempt = started(student, quiz)
    override = QuizOverride.objects.create(quiz=quiz, user=student, closes_at=NOW + 5 * MINUTE)
    attempt_deadlines_recompute(quiz_ids=[quiz.pk])
    assert deadline_of(attempt) == NOW + 5 * MINUTE

    data = {"action": "delete_selected", "_selected_action": [str(override.pk)], "post": "yes"}
    response = teacher_client.post(admin_url("quizzes_quizoverride_changelist"), data, follow=True)

    assert moved_message(1) in messages_of(response)
    assert deadline_of(attempt) == NOW + LIMIT


def test_a_groups_override_added_on_the_quiz_page_moves_its_members_only(clock, editor_client, student, quiz):
    member, outsider = started(student, quiz), started(enrolled("not-in-group", quiz), quiz)
    group = CourseGroup.objects.create(course=quiz.course, name="Extra time")
    group.members.add(student)
    url, data = quiz_page_data(editor_client, quiz)
    add_override(data, group=str(group.pk), time_limit="00:45:00")

    response = editor_client.post(url, data, follow=True)

    assert response.redirect_chain, errors(response)
    assert moved_message(1) in messages_of(response)
    assert (deadline_of(member), deadline_of(outsider)) == (NOW + 45 * MINUTE, NOW + LIMIT)


def test_a_groups_members_changed_move_who_joined_and_who_left(clock, teacher_client, student, quiz):
    joining = enrolled("joining", quiz)
    leaving, joiner = started(student, quiz), started(joining, quiz)
    group = CourseGroup.objects.create(course=quiz.course, name="Extra time")
    group.members.add(student)
    QuizOverride.objects.create(quiz=quiz, group=group, time_limit=HOUR)
    attempt_deadlines_recompute(quiz_ids=[quiz.pk])
    url = admin_url("quizzes_coursegroup_change", group.pk)
    data = {
        **form_data(teacher_client.get(url).text, "coursegroup_form"),
        "members": [str(joining.pk)],
        "_save": "Save",
    }

    response = teacher_client.post(url, data, follow=True)

    assert moved_message(2) in messages_of(response)
    assert (deadline_of(leaving), deadline_of(joiner)) == (NOW + LIMIT, NOW + HOUR)

    deleted = teacher_client.post(admin_url("quizzes_coursegroup_delete", group.pk), {"post": "yes"}, follow=True)
    assert moved_message(1) in " ".join(messages_of(deleted))
    assert deadline_of(joiner) == NOW + LIMIT and not QuizOverride.objects.exists()


def test_an_override_that_moves_no_attempt_says_so(clock, teacher_client, student, quiz):
    url, data = override_page(teacher_client, quiz=str(quiz.pk), user=student.username, time_limit="00:40:00")
    response = teacher_client.post(url, {**data, **dates(opens_at=None, closes_at=None)}, follow=True)
    assert str(NO_DEADLINE_MOVED) in messages_of(response)


def test_a_refused_override_changes_no_deadline(clock, teacher_client, student, quiz):
    attempt = started(student, quiz)
    url, data = override_page(teacher_client, quiz=str(quiz.pk), user=student.username, time_limit="-00:10:00")
    response = teacher_client.post(url, {**data, **dates(opens_at=None, closes_at=None)})
    assert response.status_code == 200 and "time_limit" in errors(response)
    assert deadline_of(attempt) == NOW + LIMIT and not QuizOverride.objects.exists()


def test_the_recompute_reads_the_overrides_in_a_bounded_number_of_queries(
    clock, student, quiz, django_assert_max_num_queries
):
    group = CourseGroup.objects.create(course=quiz.course, name="Extra time")
    for number in range(20):
        user = enrolled(f"class-{number}", quiz)
        started(user, quiz)
        group.members.add(user)
    QuizOverride.objects.create(quiz=quiz, group=group, time_limit=HOUR)
    with django_assert_max_num_queries(8):
        done = attempt_deadlines_recompute(quiz_ids=[quiz.pk])
    assert len(done.moved) == 20
