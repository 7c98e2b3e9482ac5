"""Races: many calls released together by a barrier, through the services and through HTTP.

Every write of the attempt state machine locks the row it depends on
(select_for_update) and is backed by a database constraint; these tests
check that 50 simultaneous calls leave exactly the rows one call would, and
that every caller is told the same story.
"""

import pytest
import requests
from django.db import connections
from django.test.utils import CaptureQueriesContext

from quizzes.attempts.services import AttemptError, attempt_answer_submit, attempt_finish, attempt_start
from quizzes.models import Answer, Attempt, Course
from tests import figures
from tests.concurrency import HTTP_TIMEOUT, RACERS, requires_postgresql, run_together, unexpected
from tests.factories import EnrollmentFactory, UserFactory

pytestmark = requires_postgresql

transactional = pytest.mark.django_db(transaction=True)


def race_ran(requests_in_race: int) -> None:
    figures.add("races run")
    figures.add("concurrent requests", requests_in_race)


def questions_of(quiz) -> list:
    return list(quiz.questions.order_by("position").prefetch_related("choices"))


def choices_of(question) -> list:
    return sorted(question.choices.all(), key=lambda choice: choice.position)


# Through the services, one thread (and one database connection) per call ------------------------


@transactional
def test_fifty_different_choices_for_one_question_record_one_answer(student, gc_quiz):
    attempt, _ = attempt_start(user=student, quiz=gc_quiz)
    question = questions_of(gc_quiz)[0]
    choices = choices_of(question)
    assert len(choices) == 4

    def submit(index):
        return attempt_answer_submit(
            user=student, attempt_id=attempt.pk, question_id=question.pk, choice_id=choices[index % 4].pk, language="en"
        )

    outcomes = run_together(RACERS, submit)

    assert not unexpected(outcomes, tuple, AttemptError)
    stored = Answer.objects.get(attempt=attempt)  # exactly one row
    winners = [index for index, outcome in enumerate(outcomes) if isinstance(outcome, tuple) and outcome[1]]
    assert len(winners) == 1
    assert choices[winners[0] % 4].pk == stored.choice_id
    for index, outcome in enumerate(outcomes):
        if choices[index % 4].pk == stored.choice_id:
            # The winner's choice again: the recorded answer, as for a double click.
            assert isinstance(outcome, tuple), (index, outcome)
            assert outcome[0].pk == stored.pk
        else:
            assert isinstance(outcome, AttemptError), (index, outcome)
            assert (outcome.code, outcome.status) == ("already_answered", 409)
            assert outcome.answer.pk == stored.pk
    same_choice = sum(1 for index in range(RACERS) if choices[index % 4].pk == stored.choice_id)
    assert sum(1 for outcome in outcomes if isinstance(outcome, tuple) and not outcome[1]) == same_choice - 1
    assert sum(1 for outcome in outcomes if isinstance(outcome, AttemptError)) == RACERS - same_choice
    assert stored.is_correct == next(choice.is_correct for choice in choices if choice.pk == stored.choice_id)
    race_ran(RACERS)


@transactional
def test_fifty_starts_by_one_student_make_one_attempt(student, gc_quiz):
    outcomes = run_together(RACERS, lambda index: attempt_start(user=student, quiz=gc_quiz))

    assert not unexpected(outcomes, tuple)
    attempt = Attempt.objects.get(user=student, quiz=gc_quiz)  # exactly one
    assert attempt.state == Attempt.State.IN_PROGRESS
    assert attempt.number == 1
    assert {returned.pk for returned, _created in outcomes} == {attempt.pk}
    assert sum(1 for _attempt, created in outcomes if created) == 1
    race_ran(RACERS)


@transactional
def test_fifty_finishes_of_one_attempt_make_one_transition(student, gc_quiz):
    attempt, _ = attempt_start(user=student, quiz=gc_quiz)
    questions = questions_of(gc_quiz)
    for position, question in enumerate(questions[:5], start=1):
        choice = next(choice for choice in choices_of(question) if choice.is_correct == (position <= 3))
        attempt_answer_submit(
            user=student, attempt_id=attempt.pk, question_id=question.pk, choice_id=choice.pk, language="en"
        )

    def finish(index):
        with CaptureQueriesContext(connections["default"]) as queries:
            result = attempt_finish(attempt=attempt)
        updates = [query for query in queries.captured_queries if query["sql"].startswith('UPDATE "quizzes_attempt"')]
        return result, len(updates)

    outcomes = run_together(RACERS, finish)

    assert not unexpected(outcomes, tuple)
    attempt.refresh_from_db()
    assert attempt.state == Attempt.State.FINISHED
    assert attempt.score == 3
    assert sum(updates for _result, updates in outcomes) == 1  # one transition, whoever made it
    assert {(result.state, result.finished_at, result.score) for result, _ in outcomes} == {
        (Attempt.State.FINISHED, attempt.finished_at, 3)
    }
    race_ran(RACERS)


@transactional
def test_answers_racing_the_finish_are_either_graded_or_refused(student, gc_quiz):
    """40 answers (5 per question, all right) and 10 finishes of one attempt, all at once."""
    attempt, _ = attempt_start(user=student, quiz=gc_quiz)
    questions = questions_of(gc_quiz)
    right = {question.pk: next(c for c in choices_of(question) if c.is_correct).pk for question in questions}
    finishers = 10

    def call(index):
        if index < finishers:
            return attempt_finish(attempt=attempt)
        question = questions[index % len(questions)]
        try:
            return attempt_answer_submit(
                user=student,
                attempt_id=attempt.pk,
                question_id=question.pk,
                choice_id=right[question.pk],
                language="en",
            )
        except AttemptError as error:
            return question.pk, error

    outcomes = run_together(RACERS, call)

    assert not unexpected(outcomes, Attempt, tuple)
    attempt.refresh_from_db()
    stored = list(attempt.answers.all())
    assert {result.pk for result in outcomes[:finishers]} == {attempt.pk}
    assert {(result.finished_at, result.score) for result in outcomes[:finishers]} == {
        (attempt.finished_at, attempt.score)
    }
    # The score counts exactly the answers stored before the finish; none came after it.
    assert attempt.score == len(stored) == sum(answer.is_correct for answer in stored)
    assert all(answer.answered_at <= attempt.finished_at for answer in stored)
    acknowledged = {outcome[0].question_id for outcome in outcomes[finishers:] if isinstance(outcome[0], Answer)}
    assert acknowledged == {answer.question_id for answer in stored}
    refused = [outcome[1] for outcome in outcomes[finishers:] if isinstance(outcome[1], AttemptError)]
    assert {(error.code, error.status) for error in refused} <= {("attempt_finished", 409)}
    assert len(refused) + sum(1 for outcome in outcomes[finishers:] if isinstance(outcome[0], Answer)) == (
        RACERS - finishers
    )
    race_ran(RACERS)


STUDENTS = 20


def correct_pattern(student_number: int, position: int) -> bool:
    """Student n answers their first n % 9 questions right and the rest wrong: scores 0 to 8."""
    return position <= student_number % 9


@transactional
def test_twenty_students_answering_a_whole_quiz_at_once(content, gc_quiz):
    course = Course.objects.get(slug="memory-efficient-training")
    students = [UserFactory(username=f"crowd-{number:02d}") for number in range(STUDENTS)]
    for user in students:
        EnrollmentFactory(user=user, course=course)
    questions = questions_of(gc_quiz)
    assert len(questions) == 8

    def pick(student_number, question):
        choices = choices_of(question)
        if correct_pattern(student_number, question.position):
            return next(choice for choice in choices if choice.is_correct)
        wrong = [choice for choice in choices if not choice.is_correct]
        return wrong[(student_number + question.position) % len(wrong)]

    def take_quiz(number):
        attempt, created = attempt_start(user=students[number], quiz=gc_quiz)
        acknowledged = {}
        for question in questions:
            choice = pick(number, question)
            answer, answer_created = attempt_answer_submit(
                user=students[number],
                attempt_id=attempt.pk,
                question_id=question.pk,
                choice_id=choice.pk,
                language="en",
            )
            # A double click: the same choice again returns the recorded answer.
            again, again_created = attempt_answer_submit(
                user=students[number],
                attempt_id=attempt.pk,
                question_id=question.pk,
                choice_id=choice.pk,
                language="en",
            )
            assert answer_created and not again_created and again.pk == answer.pk
            acknowledged[question.pk] = answer.choice_id
        return attempt.pk, created, acknowledged, attempt_finish(attempt=attempt)

    outcomes = run_together(STUDENTS, take_quiz)

    assert not unexpected(outcomes, tuple)
    for number, (attempt_id, created, acknowledged, result) in enumerate(outcomes):
        attempt = Attempt.objects.get(pk=attempt_id)
        assert created and attempt.user == students[number]
        stored = dict(attempt.answers.values_list("question_id", "choice_id"))
        assert stored == acknowledged == {question.pk: pick(number, question).pk for question in questions}
        expected_score = sum(correct_pattern(number, question.position) for question in questions)
        assert attempt.state == Attempt.State.FINISHED
        assert attempt.score == result.score == expected_score
        assert attempt.answers.filter(is_correct=True).count() == expected_score
    assert Attempt.objects.count() == STUDENTS
    assert Answer.objects.count() == STUDENTS * len(questions)
    race_ran(STUDENTS * len(questions) * 2 + STUDENTS * 2)


@transactional
def test_max_attempts_holds_under_fifty_concurrent_start_finish_loops(student, gc_quiz):
    gc_quiz.max_attempts = 3
    gc_quiz.save(update_fields=["max_attempts"])

    def loop(index):
        # Each start returns an attempt the thread has not seen (it finished the last one), so
        # with at most 3 attempts the 4th start of every thread must be refused.
        starts = []
        for _ in range(4):
            try:
                attempt, created = attempt_start(user=student, quiz=gc_quiz)
            except AttemptError as error:
                return starts, error.code
            starts.append((attempt.pk, attempt.number, created))
            attempt_finish(attempt=attempt)
        return starts, None

    outcomes = run_together(RACERS, loop)

    assert not unexpected(outcomes, tuple)
    attempts = list(Attempt.objects.filter(user=student, quiz=gc_quiz).order_by("number"))
    assert [attempt.number for attempt in attempts] == [1, 2, 3]
    assert all(attempt.state == Attempt.State.FINISHED for attempt in attempts)
    assert {code for _starts, code in outcomes} == {"no_attempts_left"}
    started = [start for starts, _code in outcomes for start in starts]
    assert sorted(number for _pk, number, created in started if created) == [1, 2, 3]
    assert {pk for pk, _number, _created in started} == {attempt.pk for attempt in attempts}
    race_ran(sum(len(starts) * 2 + 1 for starts, _code in outcomes))


# Through HTTP, against the live gunicorn (production settings, 4 workers) ----------------------


def http_race(count: int, url: str, token: str, bodies) -> list:
    """POST ``bodies(i)`` to ``url`` from ``count`` threads at once; each outcome a response or an error."""

    def post(index):
        with requests.Session() as session:
            return session.post(
                url, json=bodies(index), headers={"Authorization": f"Token {token}"}, timeout=HTTP_TIMEOUT
            )

    return run_together(count, post, uses_db=False)


def assert_no_server_errors(outcomes: list, live_api, log_offset: int) -> None:
    assert not unexpected(outcomes, requests.Response), unexpected(outcomes, requests.Response)[:3]
    server_errors = [response.status_code for response in outcomes if response.status_code >= 500]
    assert not server_errors
    assert "Traceback" not in live_api.log_since(log_offset)


def test_http_fifty_different_choices_for_one_question(live_api):
    ((_name, token),) = live_api.students(1)
    question = live_api.quizzes["gradient-checkpointing"][0]
    choices = [choice["id"] for choice in question["choices"]]
    with requests.Session() as session:
        started = session.post(
            live_api.api("quizzes/gradient-checkpointing/attempts/"),
            headers={"Authorization": f"Token {token}"},
            timeout=HTTP_TIMEOUT,
        )
    assert started.status_code == 201, started.text
    attempt_id = started.json()["id"]
    log_offset = live_api.log_size()

    outcomes = http_race(
        RACERS,
        live_api.api(f"attempts/{attempt_id}/answers/"),
        token,
        lambda index: {"question": question["id"], "choice": choices[index % 4]},
    )

    assert_no_server_errors(outcomes, live_api, log_offset)
    rows = live_api.query("SELECT question_id, choice_id FROM quizzes_answer WHERE attempt_id = %s", [attempt_id])
    assert len(rows) == 1 and rows[0][0] == question["id"]
    winner_choice = rows[0][1]
    statuses = [response.status_code for response in outcomes]
    assert statuses.count(201) == 1
    same_choice = sum(1 for index in range(RACERS) if choices[index % 4] == winner_choice)
    assert statuses.count(200) == same_choice - 1
    assert statuses.count(409) == RACERS - same_choice
    for index, response in enumerate(outcomes):
        body = response.json()
        if choices[index % 4] == winner_choice:
            assert response.status_code in (200, 201)
            assert (body["question"], body["choice"]) == (question["id"], winner_choice)
        else:
            assert (response.status_code, body["code"]) == (409, "already_answered")
    race_ran(RACERS)


def test_http_fifty_starts_make_one_attempt(live_api):
    ((name, token),) = live_api.students(1)
    log_offset = live_api.log_size()

    outcomes = http_race(RACERS, live_api.api("quizzes/gradient-checkpointing/attempts/"), token, lambda index: None)

    assert_no_server_errors(outcomes, live_api, log_offset)
    statuses = [response.status_code for response in outcomes]
    assert sorted(set(statuses)) == [200, 201] and statuses.count(201) == 1
    ids = {response.json()["id"] for response in outcomes}
    rows = live_api.query(
        "SELECT a.id, a.number, a.state FROM quizzes_attempt a JOIN auth_user u ON u.id = a.user_id "
        "WHERE u.username = %s",
        [name],
    )
    assert len(rows) == 1 and ids == {rows[0][0]} and rows[0][1:] == (1, "in_progress")
    race_ran(RACERS)


def test_http_fifty_finishes_give_one_result(live_api):
    ((_name, token),) = live_api.students(1)
    headers = {"Authorization": f"Token {token}"}
    questions = live_api.quizzes["gradient-checkpointing"]
    with requests.Session() as session:
        started = session.post(
            live_api.api("quizzes/gradient-checkpointing/attempts/"), headers=headers, timeout=HTTP_TIMEOUT
        )
        attempt_id = started.json()["id"]
        for question in questions[:4]:  # two right, two wrong
            choice = next(c["id"] for c in question["choices"] if c["correct"] == (question["position"] <= 2))
            answered = session.post(
                live_api.api(f"attempts/{attempt_id}/answers/"),
                json={"question": question["id"], "choice": choice},
                headers=headers,
                timeout=HTTP_TIMEOUT,
            )
            assert answered.status_code == 201, answered.text
    log_offset = live_api.log_size()

    outcomes = http_race(RACERS, live_api.api(f"attempts/{attempt_id}/finish/"), token, lambda index: None)

    assert_no_server_errors(outcomes, live_api, log_offset)
    assert {response.status_code for response in outcomes} == {200}
    results = {tuple(sorted(response.json().items())) for response in outcomes}
    assert len(results) == 1
    assert dict(next(iter(results)))["score"] == 2
    rows = live_api.query("SELECT state, score, finished_at FROM quizzes_attempt WHERE id = %s", [attempt_id])
    assert rows[0][:2] == ("finished", 2) and rows[0][2] is not None
    race_ran(RACERS)
