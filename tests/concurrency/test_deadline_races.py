"""Answers racing an attempt's deadline and its automatic finish (PostgreSQL).

An answer is taken until ``deadline + ATTEMPT_DEADLINE_GRACE`` (the answer's INSERT checks
``deadline >= now - grace`` after locking the attempt); past it the answer is refused with
``deadline_passed`` and the attempt is finished, as ``attempt_finish_if_overdue`` and
``manage.py finish_overdue_attempts`` finish it. Whoever takes the attempt's lock first wins:
every answer the service acknowledged is stored and counted in the score, none is stored late,
and the attempt is finished once.

The clock: each request reads the server's clock once, when it starts, and then waits for the
lock. time-machine moves the one clock of this process, in every thread at once, so it cannot
give fifty racing requests fifty different times. The first test gives each thread its own
clock instead (the services' ``timezone``, per thread): fixed times around the edge of the
grace, in any order of the locks. The second runs on the real clock: deadlines set a moment
ahead, students answering and retrying through the edge, and the command in a loop.
"""

import random
import threading
from datetime import timedelta
from io import StringIO
from itertools import count

import pytest
from django.core.management import call_command
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone as django_timezone

from quizzes.attempts import services
from quizzes.attempts.services import AttemptError, attempt_answer_submit, attempt_finish_if_overdue, attempt_start
from quizzes.models import Answer, Attempt, Course
from tests import figures
from tests.concurrency import RACERS, requires_postgresql, run_together, unexpected
from tests.factories import ChoiceFactory, EnrollmentFactory, QuestionFactory, QuizFactory, UserFactory

pytestmark = [requires_postgresql, pytest.mark.django_db(transaction=True)]

MS = timedelta(milliseconds=1)
FINISH_UPDATE = 'UPDATE "quizzes_attempt" SET'
WAIT = 10  # seconds: only reached when something is wrong


def finishes_in(queries) -> int:
    """The attempt's transitions to finished among the statements a thread ran."""
    return sum(1 for query in queries.captured_queries if query["sql"].startswith(FINISH_UPDATE))


class ThreadClocks:
    """``django.utils.timezone`` as the services see it, with a clock per thread: a thread that
    set ``at`` reads that time; any other thread, the real clock."""

    def __init__(self):
        self._local = threading.local()

    def set(self, at) -> None:
        self._local.at = at

    def now(self):
        return getattr(self._local, "at", None) or django_timezone.now()


@pytest.fixture
def clocks(monkeypatch):
    thread_clocks = ThreadClocks()
    monkeypatch.setattr(services, "timezone", thread_clocks)
    return thread_clocks


def long_quiz(course, questions: int):
    """A quiz of ``questions`` questions, each with a right and a wrong choice."""
    quiz = QuizFactory(course=course, slug="against-the-clock")
    for position in range(1, questions + 1):
        question = QuestionFactory(quiz=quiz, position=position)
        ChoiceFactory(question=question, position=1, is_correct=True)
        ChoiceFactory(question=question, position=2, is_correct=False)
    return quiz


def choices(question) -> tuple[int, int]:
    """(right, wrong) choice ids."""
    by_position = sorted(question.choices.all(), key=lambda choice: choice.position)
    return by_position[0].pk, by_position[1].pk


ANSWERERS = 40
EDGE = 30  # the answerer whose clock reads exactly deadline + grace


def test_answers_around_the_edge_of_the_grace_race_the_finish(clocks, settings, student, content):
    """40 answers (to 40 questions) whose clocks read from 30 ms before to 9 ms after the edge
    of the grace, and 10 finishes (5 in time, which must do nothing; 5 late), all at once."""
    grace = settings.ATTEMPT_DEADLINE_GRACE
    course = Course.objects.get(slug="memory-efficient-training")
    quiz = long_quiz(course, ANSWERERS)
    questions = list(quiz.questions.order_by("position").prefetch_related("choices"))
    attempt, _created = attempt_start(user=student, quiz=quiz)
    deadline = django_timezone.now() + timedelta(hours=1)
    Attempt.objects.filter(pk=attempt.pk).update(deadline=deadline)
    attempt.refresh_from_db()
    edge = deadline + grace
    # Every third answer wrong, so that the score counts right answers, not answers.
    picked = [choices(question)[index % 3 == 0] for index, question in enumerate(questions)]
    finishers = RACERS - ANSWERERS

    def at(index):
        if index < ANSWERERS:
            return edge + (index - EDGE) * MS
        return edge - MS if index < ANSWERERS + finishers // 2 else edge + (index - ANSWERERS) * MS

    # Each thread's part, shuffled: the threads that reach the barrier last run first.
    parts = list(range(RACERS))
    random.Random(RACERS).shuffle(parts)

    def call(thread):
        index = parts[thread]
        clocks.set(at(index))
        with CaptureQueriesContext(connections["default"]) as queries:
            try:
                if index < ANSWERERS:
                    outcome = attempt_answer_submit(
                        user=student,
                        attempt_id=attempt.pk,
                        question_id=questions[index].pk,
                        choice_id=picked[index],
                        language="en",
                    )
                else:
                    outcome = attempt_finish_if_overdue(attempt=attempt)
            except AttemptError as error:
                outcome = error
        return outcome, finishes_in(queries)

    outcomes = [None] * RACERS
    for thread, outcome in enumerate(run_together(RACERS, call)):
        outcomes[parts[thread]] = outcome  # by part

    assert not unexpected([outcome for outcome, _finishes in outcomes], tuple, AttemptError, Attempt, type(None))
    attempt.refresh_from_db()
    assert attempt.state == Attempt.State.FINISHED
    assert sum(finishes for _outcome, finishes in outcomes) == 1  # one transition, whoever made it
    assert attempt.finished_at > edge  # by a late answer or a late finish, never an early one
    stored = {answer.question_id: answer for answer in Answer.objects.filter(attempt=attempt)}
    acknowledged = {}
    for index, (outcome, _finishes) in enumerate(outcomes[:ANSWERERS]):
        question_id = questions[index].pk
        if isinstance(outcome, tuple):
            answer, created = outcome
            assert created and at(index) <= edge, (index, at(index))
            assert (answer.question_id, answer.choice_id, answer.answered_at) == (question_id, picked[index], at(index))
            acknowledged[question_id] = answer
        else:
            assert outcome.status == 409, (index, outcome.code)
            # Refused in time only because the attempt was finished first; late, either way.
            codes = {"attempt_finished"} if at(index) <= edge else {"attempt_finished", "deadline_passed"}
            assert outcome.code in codes, (index, outcome.code)
            assert question_id not in stored, (index, outcome.code)  # it wrote nothing
    assert {question_id: answer.choice_id for question_id, answer in stored.items()} == {
        question_id: answer.choice_id for question_id, answer in acknowledged.items()
    }
    assert all(answer.answered_at <= edge for answer in stored.values())
    assert all(answer.answered_at <= attempt.finished_at for answer in stored.values())
    assert attempt.score == sum(answer.is_correct for answer in stored.values())
    assert attempt.score == sum(answer.is_correct for answer in acknowledged.values())
    for index, (outcome, _finishes) in enumerate(outcomes[ANSWERERS:], start=ANSWERERS):
        if at(index) <= edge:
            assert outcome is None  # in time: not overdue, nothing done
        else:
            assert isinstance(outcome, Attempt) and outcome.pk == attempt.pk
            assert (outcome.state, outcome.score, outcome.finished_at) == (
                Attempt.State.FINISHED,
                attempt.score,
                attempt.finished_at,
            )
    figures.add("races run")
    figures.add("concurrent requests", RACERS)


STUDENTS = 6
THREADS_PER_STUDENT = 2
COMMANDS = 2
AHEAD = timedelta(seconds=1)  # from the race's set-up to the first edge of a grace
GIVE_UP = timedelta(seconds=10)  # past the last edge: a loop still running then is a failure


def test_students_answering_through_their_deadlines_race_the_command(settings, content, gc_quiz):
    """Six students, each answering from two threads and retrying what they answered until the
    attempt is refused, while two threads run ``finish_overdue_attempts`` until every attempt is
    finished; each student's deadline passes during the race (real clock)."""
    settings.ATTEMPT_DEADLINE_GRACE = timedelta(milliseconds=100)
    grace = settings.ATTEMPT_DEADLINE_GRACE
    course = Course.objects.get(slug="memory-efficient-training")
    questions = list(gc_quiz.questions.order_by("position").prefetch_related("choices"))
    attempts = []
    for number in range(STUDENTS):
        user = UserFactory(username=f"against-the-clock-{number}")
        EnrollmentFactory(user=user, course=course)
        attempts.append(attempt_start(user=user, quiz=gc_quiz)[0])
    setup = django_timezone.now()
    edges = {}
    for number, attempt in enumerate(attempts):
        edges[attempt.pk] = setup + AHEAD + number * 50 * MS
        Attempt.objects.filter(pk=attempt.pk).update(deadline=edges[attempt.pk] - grace)
    give_up = max(edges.values()) + GIVE_UP
    right = {question.pk: next(c.pk for c in question.choices.all() if c.is_correct) for question in questions}
    wrong = {question.pk: next(c.pk for c in question.choices.all() if not c.is_correct) for question in questions}
    answerers = STUDENTS * THREADS_PER_STUDENT

    def pick(student_number: int, question) -> int:
        return right[question.pk] if (student_number + question.position) % 3 else wrong[question.pk]

    def answer_until_refused(index):
        student_number, half = divmod(index, THREADS_PER_STUDENT)
        attempt = attempts[student_number]
        mine = questions[half::THREADS_PER_STUDENT]
        submitted = []  # (question id, choice id, outcome)
        for turn in count():
            question = mine[turn % len(mine)]
            try:
                answer, _created = attempt_answer_submit(
                    user=attempt.user,
                    attempt_id=attempt.pk,
                    question_id=question.pk,
                    choice_id=pick(student_number, question),
                    language="en",
                )
            except AttemptError as error:
                submitted.append((question.pk, error))
                return submitted
            submitted.append((question.pk, answer))
            assert django_timezone.now() < give_up, "never refused"

    def finish_until_all_done(index):
        finished = 0
        while Attempt.objects.filter(pk__in=edges, state=Attempt.State.IN_PROGRESS).exists():
            assert django_timezone.now() < give_up, "attempts still in progress"
            out = StringIO()
            call_command("finish_overdue_attempts", stdout=out)
            finished += int(out.getvalue().split()[1])
        return finished

    def call(index):
        with CaptureQueriesContext(connections["default"]) as queries:
            if index < answerers:
                outcome = answer_until_refused(index)
            else:
                outcome = finish_until_all_done(index)
        return outcome, finishes_in(queries)

    outcomes = run_together(answerers + COMMANDS, call)

    assert not unexpected([outcome for outcome, _finishes in outcomes], list, int)
    # Each attempt finished once, by an answer it refused or by the command.
    assert sum(finishes for _outcome, finishes in outcomes) == STUDENTS
    # What each run of the command says it finished is what it finished.
    assert all(printed == finishes for printed, finishes in outcomes[answerers:])
    acknowledged_total = 0
    for student_number, attempt in enumerate(attempts):
        attempt.refresh_from_db()
        edge = edges[attempt.pk]
        assert attempt.state == Attempt.State.FINISHED
        stored = {answer.question_id: answer for answer in attempt.answers.all()}
        acknowledged = {}
        for outcome, _finishes in outcomes[
            student_number * THREADS_PER_STUDENT : (student_number + 1) * THREADS_PER_STUDENT
        ]:
            *answered, (question_id, refusal) = outcome
            assert isinstance(refusal, AttemptError) and refusal.code in {"deadline_passed", "attempt_finished"}
            for question_id_answered, answer in answered:
                acknowledged.setdefault(question_id_answered, answer)
                assert stored[question_id_answered].pk == answer.pk  # every acknowledged answer kept
            if question_id not in acknowledged:
                assert question_id not in stored  # the refused answer wrote nothing
        assert set(stored) == set(acknowledged)
        assert all(answer.answered_at <= edge for answer in stored.values())  # none taken late
        assert all(answer.answered_at <= attempt.finished_at for answer in stored.values())
        assert attempt.finished_at > edge  # finished only once overdue
        assert attempt.score == sum(answer.is_correct for answer in stored.values())
        assert {q: a.choice_id for q, a in stored.items()} == {
            question.pk: pick(student_number, question) for question in questions if question.pk in stored
        }
        acknowledged_total += len(acknowledged)
    assert acknowledged_total > 0, "no answer came before the deadlines: the race did not straddle them"
    figures.add("races run")
    figures.add("concurrent requests", sum(len(outcome) for outcome, _finishes in outcomes[:answerers]))


def test_the_command_does_not_wait_for_an_attempt_another_transaction_holds(settings, content, gc_quiz):
    """An attempt locked by a transaction that takes its time (an answer, a regrade) is left for
    the next run; the other overdue attempts are finished at once."""
    settings.ATTEMPT_DEADLINE_GRACE = timedelta(0)
    course = Course.objects.get(slug="memory-efficient-training")
    attempts = []
    for number in range(2):
        user = UserFactory(username=f"overdue-{number}")
        EnrollmentFactory(user=user, course=course)
        attempts.append(attempt_start(user=user, quiz=gc_quiz)[0])
    held, other = attempts
    Attempt.objects.filter(pk__in=[held.pk, other.pk]).update(deadline=django_timezone.now())
    holding, release = threading.Event(), threading.Event()

    def hold():
        try:
            with transaction.atomic():
                Attempt.objects.select_for_update().get(pk=held.pk)
                holding.set()
                release.wait(WAIT)
        finally:
            holding.set()
            connections.close_all()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert holding.wait(WAIT)
        with connection.cursor() as cursor:
            cursor.execute("SET statement_timeout = '5s'")  # a wait on the lock fails instead of hanging
        out = StringIO()
        call_command("finish_overdue_attempts", stdout=out)
        assert out.getvalue() == "Finished 1 overdue attempt.\n"
        assert Attempt.objects.get(pk=other.pk).state == Attempt.State.FINISHED
        assert Attempt.objects.get(pk=held.pk).state == Attempt.State.IN_PROGRESS
    finally:
        release.set()
        holder.join(WAIT)
        with connection.cursor() as cursor:
            cursor.execute("SET statement_timeout = 0")
    out = StringIO()
    call_command("finish_overdue_attempts", stdout=out)
    assert out.getvalue() == "Finished 1 overdue attempt.\n"
    assert Attempt.objects.get(pk=held.pk).state == Attempt.State.FINISHED
