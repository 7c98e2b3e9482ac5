"""The API's representations as the views render them (common.serializer_render) are DRF's.

``renderer(Serializer)(obj)`` must give exactly ``Serializer(obj).data``: the same keys in
the same order, the same values and types (datetimes in DRF's format, ``*_language``
marking English shown in place of a missing translation), for every serializer the views
render, in every language, in their None cases (no attempt yet, nothing in progress, no
score, no right choice) and nested ones (answers from the rows, questions and choices from
the rows and from the content snapshot, the feedback from the snapshot and from the rows).
"""

import json
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.utils import timezone, translation

from common.serializer_render import renderer
from quizzes.api.serializers import (
    AnswerFeedbackSerializer,
    AttemptResultSerializer,
    AttemptSerializer,
    ChoiceSerializer,
    CourseProgressSerializer,
    QuestionSerializer,
    QuizDetailSerializer,
    QuizProgressSerializer,
)
from quizzes.api.views import attempt_rendered
from quizzes.attempts.selectors import (
    AnswerFeedback,
    answer_feedback,
    student_courses,
    student_quiz_get,
    student_quizzes,
)
from quizzes.attempts.services import attempt_answer_submit, attempt_finish, attempt_start, practice_start
from quizzes.content.archive import questions_archive
from quizzes.content.cache import quiz_content, version_question
from quizzes.models import Answer, CourseGroup, FeedbackTiming, Quiz, QuizOverride
from tests.factories import ChoiceFactory, EnrollmentFactory, QuestionFactory, QuizFactory
from tests.progress_oracle import attempt_oracle, student_quiz_detail_oracle

GC = "gradient-checkpointing"
ARC = "activation-recomputation-tradeoffs"
LANGUAGES = ["en", "ur", "sn", "id"]

pytestmark = pytest.mark.parametrize("language", LANGUAGES)


@pytest.fixture(autouse=True)
def active(language):
    with translation.override(language):
        yield


def assert_as_drf(serializer_class, obj, rendered=None, **given):
    """The renderer's representation of ``obj`` is the serializer's, key order included."""
    expected = serializer_class(obj).data
    found = renderer(serializer_class)(obj, **given) if rendered is None else rendered
    assert type(found) is dict
    assert found == expected
    assert json.dumps(found) == json.dumps(expected)  # the order of the keys, at every level
    return found


def assert_many_as_drf(serializer_class, objects):
    expected = serializer_class(objects, many=True).data
    found = renderer(serializer_class).many(objects)
    assert type(found) is list
    assert json.dumps(found) == json.dumps(expected)
    return found


def answer_with_snapshot(user, attempt, quiz, position: int, *, right: bool) -> AnswerFeedback:
    """An answer's feedback as the answer endpoint has it: its question from the content snapshot."""
    question = quiz_content(quiz.pk).question_at(position)
    choice = next(choice for choice in question.choices if choice.is_correct == right)
    answer, _created = attempt_answer_submit(
        user=user,
        attempt_id=attempt.pk,
        question_id=question.id,
        choice_id=choice.id,
        language=translation.get_language(),
    )
    return answer_feedback(user=user, answer=answer, now=timezone.now())


class TestQuizzes:
    def test_progress_before_any_attempt(self, student, content):
        quizzes = list(student_quizzes(user=student))
        assert len(quizzes) == 2 and all(quiz.best_percent is None for quiz in quizzes)
        assert all(quiz.in_progress_id is None for quiz in quizzes)
        for quiz in quizzes:
            assert_as_drf(QuizProgressSerializer, quiz)
        assert_many_as_drf(QuizProgressSerializer, quizzes)

    def test_progress_in_progress_and_finished(self, student, content):
        finished, _created = attempt_start(user=student, quiz=content[GC])
        answer_with_snapshot(student, finished, content[GC], 1, right=True)
        attempt_finish(attempt=finished)
        attempt_start(user=student, quiz=content[GC])
        attempt_start(user=student, quiz=content[ARC])
        quizzes = list(student_quizzes(user=student))
        by_slug = {quiz.slug: quiz for quiz in quizzes}
        assert by_slug[GC].best_percent is not None and by_slug[GC].in_progress_id is not None
        assert by_slug[ARC].best_percent is None
        found = assert_many_as_drf(QuizProgressSerializer, quizzes)
        assert {quiz["slug"]: quiz["title_language"] for quiz in found}.keys() == {GC, ARC}

    def test_a_quiz_with_its_questions_from_the_rows(self, student, content):
        attempt_start(user=student, quiz=content[GC])
        archived = content[GC].questions.get(position=2).choices.get(position=3)
        archived.is_archived = True
        archived.save()
        quiz = student_quiz_detail_oracle(user=student, slug=GC)
        found = assert_as_drf(QuizDetailSerializer, quiz)
        assert len(found["questions"]) == 8 and found["in_progress_attempt"] is not None

    def test_the_questions_from_the_content_snapshot(self, student, content):
        """What the quiz endpoint serves: the quiz's row, its questions and choices from the snapshot."""
        quiz, _enrolled, _attempts = student_quiz_get(user=student, slug=GC)
        snapshot = quiz_content(quiz.pk)
        render = renderer(QuizDetailSerializer)
        questions = render.nested("questions")(snapshot.questions)
        assert json.dumps(questions) == json.dumps(QuestionSerializer(snapshot.questions, many=True).data)
        assert json.dumps(questions) == json.dumps(
            QuizDetailSerializer(student_quiz_detail_oracle(user=student, slug=GC)).data["questions"]
        )
        assert_as_drf(QuizProgressSerializer, quiz)
        detail = render(quiz, questions=questions, pool_draws=[])
        assert list(detail) == list(QuizDetailSerializer.Meta.fields)
        progress = renderer(QuizProgressSerializer)(quiz)
        assert {key: value for key, value in detail.items() if key in progress} == progress
        assert (detail["shuffle_questions"], detail["shuffle_choices"], detail["questions_per_attempt"]) == (
            False,
            False,
            0,
        )
        for question in snapshot.questions:
            assert_as_drf(QuestionSerializer, question)
            for choice in question.choices:
                assert_as_drf(ChoiceSerializer, choice)

    def test_a_quiz_without_questions_nor_translations(self, student, content):
        quiz = QuizFactory(course=content[GC].course, slug="empty", description_en="")
        (found,) = [quiz for quiz in student_quizzes(user=student) if quiz.slug == "empty"]
        data = assert_as_drf(QuizProgressSerializer, found)
        assert (data["description"], data["description_language"]) == ("", "en")
        assert renderer(QuizDetailSerializer).nested("questions")(quiz_content(quiz.pk).questions) == []


class TestAttempts:
    def test_a_new_attempt(self, student, content):
        attempt, created = attempt_start(user=student, quiz=content[GC])
        assert created
        found = attempt_rendered(student, attempt.pk)
        assert found["answers"] == [] and found["finished_at"] is None and found["percent"] is None
        assert all(question["feedback"] is None for question in found["questions"])
        assert_as_drf(AttemptSerializer, attempt_oracle(attempt.pk), found)

    def test_in_progress_with_answers_and_finished(self, student, content):
        attempt, _created = attempt_start(user=student, quiz=content[GC])
        answer_with_snapshot(student, attempt, content[GC], 1, right=True)
        answer_with_snapshot(student, attempt, content[GC], 3, right=False)  # no Urdu explanation
        found = attempt_rendered(student, attempt.pk)
        assert_as_drf(AttemptSerializer, attempt_oracle(attempt.pk), found)
        assert [answer["correct"] for answer in found["answers"]] == [True, False]
        finished = attempt_finish(attempt=attempt)
        assert_as_drf(AttemptResultSerializer, finished)
        found = attempt_rendered(student, attempt.pk)
        assert_as_drf(AttemptSerializer, attempt_oracle(attempt.pk), found)
        assert found["score"] == 1 and found["passed"] is False and found["finished_at"] is not None


class TestFeedback:
    def test_from_the_cache_and_from_the_rows(self, student, content):
        attempt, _created = attempt_start(user=student, quiz=content[GC])
        for position, right in [(1, True), (2, False), (3, False)]:
            answer = answer_with_snapshot(student, attempt, content[GC], position, right=right)
            from_cache = assert_as_drf(AnswerFeedbackSerializer, answer)
            recorded = Answer.objects.select_related("version").get(pk=answer.answer.pk)
            recorded = AnswerFeedback(recorded, version_question(recorded.version, position=position), answer.review)
            assert_as_drf(AnswerFeedbackSerializer, recorded, from_cache)  # the cache tells the version's truth
            assert from_cache["correct"] is right and from_cache["regraded"] is False

    def test_a_question_archived_since_the_start_is_answered_with_its_version(self, student, content):
        attempt, _created = attempt_start(user=student, quiz=content[GC])
        question = content[GC].questions.get(position=1)
        questions_archive(questions=[question])
        answer_with_snapshot(student, attempt, content[GC], 2, right=True)  # the cache moves on
        answer, _created = attempt_answer_submit(
            user=student,
            attempt_id=attempt.pk,
            question_id=question.pk,
            choice_id=question.choices.get(is_correct=False, position=2).pk,
            language=translation.get_language(),
        )
        found = assert_as_drf(
            AnswerFeedbackSerializer, answer_feedback(user=student, answer=answer, now=timezone.now())
        )
        assert found["correct_choice"] == question.choices.get(is_correct=True).pk and found["correct"] is False

    def test_no_right_choice_and_no_explanation(self, student, content):
        quiz = QuizFactory(course=content[GC].course, slug="odd")
        question = QuestionFactory(quiz=quiz, position=1, explanation_en="")
        choice = ChoiceFactory(question=question, position=1, is_correct=False)
        ChoiceFactory(question=question, position=2, is_correct=False)
        attempt, _created = attempt_start(user=student, quiz=quiz)
        answer, _created = attempt_answer_submit(
            user=student, attempt_id=attempt.pk, question_id=question.pk, choice_id=choice.pk, language="en"
        )
        found = assert_as_drf(
            AnswerFeedbackSerializer, answer_feedback(user=student, answer=answer, now=timezone.now())
        )
        assert (found["correct_choice"], found["explanation"], found["explanation_language"]) == (None, "", "en")


class TestProgress:
    def test_courses_with_and_without_attempts(self, student, content):
        EnrollmentFactory(user=student, course=QuizFactory(slug="elsewhere").course)
        attempt, _created = attempt_start(user=student, quiz=content[GC])
        answer_with_snapshot(student, attempt, content[GC], 1, right=True)
        attempt_finish(attempt=attempt)
        courses = student_courses(user=student)
        assert len(courses) == 2
        found = assert_many_as_drf(CourseProgressSerializer, courses)
        assert sum(course["quizzes_total"] for course in found) == 3
        for course in courses:
            assert_as_drf(CourseProgressSerializer, course)


class TestTeachersSettings:
    """The attempt's deadline and time left, feedback withheld by the review, the student's
    dates and limits (their overrides applied), a practice attempt: as DRF renders them."""

    @pytest.fixture
    def clock(self):
        with time_machine.travel(datetime(2026, 12, 1, 9, 0, tzinfo=UTC), tick=False) as traveller:
            yield traveller

    @pytest.fixture
    def timed(self, content, student, clock):
        quiz = content[GC]
        quiz.time_limit = timedelta(minutes=20)
        quiz.closes_at = timezone.now() + timedelta(days=1)
        quiz.feedback_timing = FeedbackTiming.AFTER_ATTEMPT
        quiz.show_right_answer = False
        quiz.save()
        group = CourseGroup.objects.create(course=quiz.course, name="extra time")
        group.members.add(student)
        QuizOverride.objects.create(quiz=quiz, group=group, time_limit=timedelta(minutes=40), max_attempts=3)
        QuizOverride.objects.create(quiz=quiz, user=student, opens_at=timezone.now() - timedelta(hours=1))
        return quiz

    def test_a_timed_attempt_with_its_feedback_withheld_then_shown(self, student, timed, clock):
        attempt, _created = attempt_start(user=student, quiz=timed)
        answer = answer_with_snapshot(student, attempt, timed, 1, right=False)
        found = assert_as_drf(AnswerFeedbackSerializer, answer)
        assert (found["correct"], found["explanation"], found["feedback_shown"]) == (None, None, False)
        clock.shift(timedelta(minutes=5))
        found = attempt_rendered(student, attempt.pk)
        assert_as_drf(AttemptSerializer, attempt_oracle(attempt.pk), found)
        assert (found["time_left"], found["feedback_timing"], found["show_right_answer"]) == (
            35 * 60,
            "after_attempt",
            False,
        )
        attempt_finish(attempt=attempt)
        found = attempt_rendered(student, attempt.pk)
        assert_as_drf(AttemptSerializer, attempt_oracle(attempt.pk), found)
        (shown,) = found["answers"]
        assert (shown["correct"], shown["correct_choice"], shown["feedback_shown"]) == (False, None, True)

    def test_the_students_quiz(self, student, timed):
        quiz, _enrolled, _attempts = student_quiz_get(user=student, slug=GC)
        render = renderer(QuizDetailSerializer)
        questions = render.nested("questions")(quiz_content(quiz.pk).questions)
        detail = render(quiz, questions=questions, pool_draws=[])
        expected = QuizDetailSerializer(student_quiz_detail_oracle(user=student, slug=GC)).data
        assert json.dumps(detail) == json.dumps(expected)
        assert (detail["time_limit"], detail["max_attempts"], detail["attempts_left"]) == (40 * 60, 3, 3)
        assert detail["is_open"] is True and detail["opens_at"] is not None

    def test_a_practice(self, student, timed):
        Quiz.objects.filter(pk=timed.pk).update(feedback_timing=FeedbackTiming.IMMEDIATELY)
        attempt, _created = attempt_start(user=student, quiz=timed)
        answer_with_snapshot(student, attempt, timed, 1, right=True)
        assert_as_drf(AttemptResultSerializer, attempt_finish(attempt=attempt))
        practice, _created = practice_start(user=student, attempt_id=attempt.pk)
        answer_with_snapshot(student, practice, timed, 2, right=False)
        found = attempt_rendered(student, practice.pk)
        assert_as_drf(AttemptSerializer, attempt_oracle(practice.pk), found)
        assert (found["is_practice"], found["deadline"], found["time_left"]) == (True, None, None)
        assert_as_drf(AttemptResultSerializer, attempt_finish(attempt=practice))
