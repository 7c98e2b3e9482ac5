"""Attempt services: start, answer, finish, and the enrollment they depend on."""

import pytest
from django.utils import timezone

from quizzes.attempts.selectors import answer_feedback
from quizzes.attempts.services import (
    ALREADY_ANSWERED,
    ATTEMPT_FINISHED,
    CHOICE_NOT_IN_QUESTION,
    NO_ATTEMPTS_LEFT,
    NOT_ENROLLED,
    OTHER_QUESTION,
    QUESTION_NOT_IN_QUIZ,
    QUIZ_UNAVAILABLE,
    AttemptError,
    attempt_answer_submit,
    attempt_finish,
    attempt_start,
)
from quizzes.enrollment.services import (
    SELF_ENROLLMENT_CLOSED,
    EnrollmentError,
    enrollment_create,
    enrollment_self_create,
)
from quizzes.models import Answer, Attempt, Choice, Enrollment, Question
from tests.factories import (
    AttemptFactory,
    ChoiceFactory,
    CourseFactory,
    EnrollmentFactory,
    QuestionFactory,
    QuizFactory,
    UserFactory,
)


def question(quiz, position: int) -> Question:
    return quiz.questions.get(position=position)


def right(quiz, position: int) -> Choice:
    return question(quiz, position).choices.get(is_correct=True)


def wrong(quiz, position: int) -> Choice:
    return question(quiz, position).choices.filter(is_correct=False).order_by("position").first()


def answer(attempt, choice: Choice, language: str = "en"):
    return attempt_answer_submit(
        user=attempt.user, attempt_id=attempt.pk, question_id=choice.question_id, choice_id=choice.pk, language=language
    )


def snapshot():
    """Every attempt and answer, as values: a refused write must leave this unchanged."""
    return (
        list(Attempt.objects.order_by("pk").values()),
        list(Answer.objects.order_by("pk").values()),
    )


# attempt_start -----------------------------------------------------------------


class TestAttemptStart:
    def test_first_start_creates_attempt_one(self, student, gc_quiz):
        attempt, created = attempt_start(user=student, quiz=gc_quiz)
        assert created is True
        assert attempt.number == 1
        assert attempt.state == Attempt.State.IN_PROGRESS
        assert attempt.user == student
        assert attempt.quiz == gc_quiz
        assert attempt.max_score == 8 == gc_quiz.questions.count()
        assert attempt.pass_mark == gc_quiz.pass_mark == 70
        assert attempt.score is None
        assert attempt.finished_at is None
        assert attempt.percent is None
        assert attempt.passed is None

    def test_max_score_is_the_number_of_questions(self, student, gc_quiz):
        QuestionFactory(quiz=gc_quiz, position=9)
        attempt, _created = attempt_start(user=student, quiz=gc_quiz)
        assert attempt.max_score == 9

    def test_start_again_resumes_the_attempt_in_progress(self, student, gc_quiz):
        first, _created = attempt_start(user=student, quiz=gc_quiz)
        again, created = attempt_start(user=student, quiz=gc_quiz)
        assert created is False
        assert again.pk == first.pk
        assert Attempt.objects.filter(user=student, quiz=gc_quiz).count() == 1

    def test_after_finishing_a_start_makes_attempt_two(self, student, gc_quiz):
        first, _created = attempt_start(user=student, quiz=gc_quiz)
        attempt_finish(attempt=first)
        second, created = attempt_start(user=student, quiz=gc_quiz)
        assert created is True
        assert second.pk != first.pk
        assert second.number == 2
        assert second.state == Attempt.State.IN_PROGRESS

    def test_attempts_are_numbered_per_quiz(self, student, content):
        gc, ar = content["gradient-checkpointing"], content["activation-recomputation-tradeoffs"]
        first, _created = attempt_start(user=student, quiz=gc)
        other, _created = attempt_start(user=student, quiz=ar)
        assert (first.number, other.number) == (1, 1)

    def test_max_attempts_enforced(self, student, gc_quiz):
        gc_quiz.max_attempts = 2
        gc_quiz.save()
        for _ in range(2):
            attempt, _created = attempt_start(user=student, quiz=gc_quiz)
            attempt_finish(attempt=attempt)
        before = snapshot()
        with pytest.raises(AttemptError) as refused:
            attempt_start(user=student, quiz=gc_quiz)
        assert refused.value.code == "no_attempts_left"
        assert refused.value.status == 409
        assert refused.value.message == NO_ATTEMPTS_LEFT
        assert snapshot() == before

    def test_the_last_allowed_attempt_can_still_be_resumed(self, student, gc_quiz):
        gc_quiz.max_attempts = 1
        gc_quiz.save()
        attempt, _created = attempt_start(user=student, quiz=gc_quiz)
        again, created = attempt_start(user=student, quiz=gc_quiz)
        assert (again.pk, created) == (attempt.pk, False)

    def test_zero_max_attempts_is_unlimited(self, student, gc_quiz):
        assert gc_quiz.max_attempts == 0
        for number in range(1, 6):
            attempt, created = attempt_start(user=student, quiz=gc_quiz)
            assert (attempt.number, created) == (number, True)
            attempt_finish(attempt=attempt)

    def test_other_students_attempts_do_not_count(self, student, other_student, gc_quiz):
        gc_quiz.max_attempts = 1
        gc_quiz.save()
        theirs, _created = attempt_start(user=other_student, quiz=gc_quiz)
        attempt_finish(attempt=theirs)
        mine, created = attempt_start(user=student, quiz=gc_quiz)
        assert (mine.number, created) == (1, True)

    def test_not_enrolled_refused(self, outsider, gc_quiz):
        with pytest.raises(AttemptError) as refused:
            attempt_start(user=outsider, quiz=gc_quiz)
        assert (refused.value.code, refused.value.status) == ("not_enrolled", 403)
        assert refused.value.message == NOT_ENROLLED
        assert not Attempt.objects.exists()

    def test_enrolled_in_another_course_only_refused(self, gc_quiz):
        user = UserFactory()
        EnrollmentFactory(user=user, course=CourseFactory())
        with pytest.raises(AttemptError) as refused:
            attempt_start(user=user, quiz=gc_quiz)
        assert refused.value.code == "not_enrolled"
        assert not Attempt.objects.exists()

    def test_unpublished_quiz_refused(self, student, gc_quiz):
        gc_quiz.is_published = False
        gc_quiz.save()
        with pytest.raises(AttemptError) as refused:
            attempt_start(user=student, quiz=gc_quiz)
        assert (refused.value.code, refused.value.status) == ("quiz_unavailable", 404)
        assert refused.value.message == QUIZ_UNAVAILABLE
        assert not Attempt.objects.exists()

    def test_error_message_is_the_text(self, outsider, gc_quiz):
        with pytest.raises(AttemptError) as refused:
            attempt_start(user=outsider, quiz=gc_quiz)
        assert str(refused.value) == str(NOT_ENROLLED)


# attempt_answer_submit ------------------------------------------------------------


@pytest.fixture
def attempt(student, gc_quiz) -> Attempt:
    attempt, _created = attempt_start(user=student, quiz=gc_quiz)
    return attempt


class TestAnswerSubmit:
    def test_records_a_right_answer(self, attempt, gc_quiz):
        choice = right(gc_quiz, 1)
        recorded, created = answer(attempt, choice, language="ur")
        assert created is True
        assert recorded.pk is not None
        assert recorded.attempt == attempt
        assert recorded.question_id == choice.question_id
        assert recorded.choice == choice
        assert recorded.is_correct is True
        assert recorded.language == "ur"
        assert recorded.answered_at is not None
        assert Answer.objects.get().pk == recorded.pk
        # What the feedback is built from: the question as the version answered holds it.
        feedback = answer_feedback(user=attempt.user, answer=recorded, now=timezone.now())
        assert feedback.question.id == choice.question_id
        assert feedback.question.correct_choice_id == choice.pk
        assert (feedback.correct, feedback.correct_choice_id) == (True, choice.pk)

    def test_records_a_wrong_answer(self, attempt, gc_quiz):
        recorded, created = answer(attempt, wrong(gc_quiz, 2), language="sn")
        assert created is True
        assert recorded.is_correct is False
        assert recorded.language == "sn"

    @pytest.mark.parametrize("language", ["en", "ur", "sn", "id"])
    def test_records_the_language(self, attempt, gc_quiz, language):
        recorded, _created = answer(attempt, right(gc_quiz, 3), language=language)
        assert Answer.objects.get(pk=recorded.pk).language == language

    def test_same_choice_twice_returns_the_recorded_answer(self, attempt, gc_quiz):
        first, _created = answer(attempt, wrong(gc_quiz, 1), language="en")
        again, created = answer(attempt, wrong(gc_quiz, 1), language="ur")
        assert created is False
        assert again.pk == first.pk
        assert again.language == "en"  # the first answer is the record
        assert again.attempt == attempt
        assert Answer.objects.count() == 1

    def test_another_choice_refused_with_the_recorded_answer(self, attempt, gc_quiz):
        first, _created = answer(attempt, wrong(gc_quiz, 1))
        before = snapshot()
        with pytest.raises(AttemptError) as refused:
            answer(attempt, right(gc_quiz, 1))
        assert (refused.value.code, refused.value.status) == ("already_answered", 409)
        assert refused.value.message == ALREADY_ANSWERED
        assert refused.value.answer is not None
        assert refused.value.answer.pk == first.pk
        assert refused.value.answer.choice_id == wrong(gc_quiz, 1).pk
        assert snapshot() == before

    def test_question_of_another_quiz_refused(self, attempt, content):
        foreign = right(content["activation-recomputation-tradeoffs"], 1)
        before = snapshot()
        with pytest.raises(AttemptError) as refused:
            answer(attempt, foreign)
        assert (refused.value.code, refused.value.status) == ("question_not_in_quiz", 400)
        assert refused.value.message == QUESTION_NOT_IN_QUIZ
        assert snapshot() == before

    def test_unknown_question_refused(self, attempt, gc_quiz):
        before = snapshot()
        with pytest.raises(AttemptError) as refused:
            attempt_answer_submit(
                user=attempt.user,
                attempt_id=attempt.pk,
                question_id=10**9,
                choice_id=right(gc_quiz, 1).pk,
                language="en",
            )
        assert refused.value.code == "question_not_in_quiz"
        assert snapshot() == before

    def test_choice_of_another_question_refused(self, attempt, gc_quiz):
        before = snapshot()
        with pytest.raises(AttemptError) as refused:
            attempt_answer_submit(
                user=attempt.user,
                attempt_id=attempt.pk,
                question_id=question(gc_quiz, 1).pk,
                choice_id=right(gc_quiz, 2).pk,
                language="en",
            )
        assert (refused.value.code, refused.value.status) == ("choice_not_in_question", 400)
        assert refused.value.message == CHOICE_NOT_IN_QUESTION
        assert snapshot() == before

    def test_unknown_choice_refused(self, attempt, gc_quiz):
        before = snapshot()
        with pytest.raises(AttemptError) as refused:
            attempt_answer_submit(
                user=attempt.user,
                attempt_id=attempt.pk,
                question_id=question(gc_quiz, 1).pk,
                choice_id=10**9,
                language="en",
            )
        assert refused.value.code == "choice_not_in_question"
        assert snapshot() == before

    def test_someone_elses_attempt_does_not_exist_for_them(self, attempt, other_student, gc_quiz):
        before = snapshot()
        choice = right(gc_quiz, 1)
        for user, attempt_id in ((other_student, attempt.pk), (attempt.user, 10**9)):
            with pytest.raises(Attempt.DoesNotExist):
                attempt_answer_submit(
                    user=user, attempt_id=attempt_id, question_id=choice.question_id, choice_id=choice.pk, language="en"
                )
        assert snapshot() == before

    def test_an_answer_to_another_question_than_the_one_shown_refused(self, attempt, gc_quiz):
        choice = right(gc_quiz, 2)

        def shown_at(position):
            return attempt_answer_submit(
                user=attempt.user,
                attempt_id=attempt.pk,
                question_id=choice.question_id,
                choice_id=choice.pk,
                language="en",
                position=position,
            )

        before = snapshot()
        with pytest.raises(AttemptError) as refused:
            shown_at(1)
        assert (refused.value.code, refused.value.status) == ("question_not_shown", 400)
        assert refused.value.message == OTHER_QUESTION
        assert snapshot() == before
        recorded, created = shown_at(2)
        assert created and recorded.attempt == attempt and recorded.is_correct is True

    def test_a_choice_archived_since_the_start_stays_answerable_in_that_attempt_only(self, attempt, gc_quiz):
        """The attempt was shown the choice (its layout holds the version that offered it); a new
        attempt, drawn from the new version, is not, and is refused it."""
        choice = wrong(gc_quiz, 1)
        choice.is_archived = True
        choice.save()
        recorded, created = answer(attempt, choice)
        assert created and recorded.is_correct is False and recorded.version.number == 1
        attempt_finish(attempt=attempt)
        following, _created = attempt_start(user=attempt.user, quiz=gc_quiz)
        before = snapshot()
        with pytest.raises(AttemptError) as refused:
            answer(following, choice)
        assert (refused.value.code, refused.value.status) == ("choice_not_in_question", 400)
        assert snapshot() == before

    def test_finished_attempt_refused(self, attempt, gc_quiz):
        answer(attempt, right(gc_quiz, 1))
        attempt_finish(attempt=attempt)
        before = snapshot()
        with pytest.raises(AttemptError) as refused:
            answer(attempt, right(gc_quiz, 2))
        assert (refused.value.code, refused.value.status) == ("attempt_finished", 409)
        assert refused.value.message == ATTEMPT_FINISHED
        assert snapshot() == before

    def test_finished_state_read_from_the_database_not_the_stale_object(self, attempt, gc_quiz):
        stale = Attempt.objects.get(pk=attempt.pk)
        attempt_finish(attempt=attempt)
        with pytest.raises(AttemptError) as refused:
            answer(stale, right(gc_quiz, 1))
        assert refused.value.code == "attempt_finished"
        assert not Answer.objects.exists()

    def test_answers_of_two_attempts_are_separate(self, attempt, other_student, gc_quiz):
        theirs, _created = attempt_start(user=other_student, quiz=gc_quiz)
        answer(attempt, right(gc_quiz, 1))
        _recorded, created = answer(theirs, wrong(gc_quiz, 1))
        assert created is True
        assert Answer.objects.count() == 2


# attempt_finish ----------------------------------------------------------------------


class TestAttemptFinish:
    def test_score_counts_right_answers_and_unanswered_are_wrong(self, attempt, gc_quiz):
        for position in (1, 2, 3):
            answer(attempt, right(gc_quiz, position))
        answer(attempt, wrong(gc_quiz, 4))
        finished = attempt_finish(attempt=attempt)
        assert finished.state == Attempt.State.FINISHED
        assert finished.score == 3
        assert finished.max_score == 8
        assert finished.finished_at is not None
        stored = Attempt.objects.get(pk=attempt.pk)
        assert (stored.state, stored.score, stored.finished_at) == (
            Attempt.State.FINISHED,
            3,
            finished.finished_at,
        )

    def test_finishing_with_no_answers_scores_zero(self, attempt):
        finished = attempt_finish(attempt=attempt)
        assert finished.score == 0
        assert finished.percent == 0
        assert finished.passed is False

    def test_all_right_scores_full_marks(self, attempt, gc_quiz):
        for position in range(1, 9):
            answer(attempt, right(gc_quiz, position))
        finished = attempt_finish(attempt=attempt)
        assert (finished.score, finished.percent, finished.passed) == (8, 100, True)

    def test_finishing_twice_returns_the_same_result(self, attempt, gc_quiz):
        answer(attempt, right(gc_quiz, 1))
        first = attempt_finish(attempt=attempt)
        again = attempt_finish(attempt=Attempt.objects.get(pk=attempt.pk))
        assert (again.pk, again.score, again.finished_at, again.state) == (
            first.pk,
            first.score,
            first.finished_at,
            Attempt.State.FINISHED,
        )

    def test_finishing_a_stale_object_again_changes_nothing(self, attempt, gc_quiz):
        answer(attempt, right(gc_quiz, 1))
        first = attempt_finish(attempt=attempt)
        before = snapshot()
        again = attempt_finish(attempt=attempt)  # the in-memory object still says in progress
        assert (again.score, again.finished_at) == (first.score, first.finished_at)
        assert snapshot() == before

    def test_score_uses_the_correctness_recorded_when_answering(self, attempt, gc_quiz):
        # An editor later changes the right answer: the feedback shown stays the record.
        chosen = right(gc_quiz, 1)
        answer(attempt, chosen)
        Choice.objects.filter(pk=chosen.pk).update(is_correct=False)
        assert attempt_finish(attempt=attempt).score == 1


class TestPercentAndPassed:
    @pytest.mark.parametrize(
        ("score", "max_score", "pass_mark", "percent", "passed"),
        [
            (5, 8, 70, 62, False),  # 62.5% rounds down
            (6, 8, 70, 75, True),
            (6, 8, 75, 75, True),  # exactly the pass mark passes
            (5, 8, 62, 62, True),  # 62.5% >= 62%
            (5, 8, 63, 62, False),  # 62.5% < 63%
            (2, 3, 67, 66, False),  # 66.66% < 67% although it is shown as 66
            (2, 3, 66, 66, True),
            (0, 8, 0, 0, True),  # a pass mark of 0 passes everyone who finished
            (8, 8, 100, 100, True),
            (7, 8, 100, 87, False),
        ],
    )
    def test_percent_floor_and_passed(self, score, max_score, pass_mark, percent, passed):
        attempt = Attempt(score=score, max_score=max_score, pass_mark=pass_mark)
        assert attempt.percent == percent
        assert attempt.passed is passed

    def test_unfinished_has_no_percent_nor_verdict(self):
        attempt = Attempt(score=None, max_score=8, pass_mark=70)
        assert attempt.percent is None
        assert attempt.passed is None

    def test_empty_quiz_percent_is_zero(self):
        # An attempt at no question (quizzes/attempts/grading.py): 0 %, passed only at a pass mark of 0.
        assert Attempt(score=0, max_score=0, pass_mark=50).percent == 0
        assert Attempt(score=0, max_score=0, pass_mark=50).passed is False
        assert Attempt(score=0, max_score=0, pass_mark=0).passed is True

    def test_pass_mark_copied_at_start_is_unaffected_by_later_quiz_edits(self, attempt, gc_quiz):
        for position in range(1, 7):
            answer(attempt, right(gc_quiz, position))
        gc_quiz.pass_mark = 100
        gc_quiz.save()
        finished = attempt_finish(attempt=attempt)
        assert finished.pass_mark == 70
        assert (finished.score, finished.percent, finished.passed) == (6, 75, True)
        # and the other way round: lowering the pass mark passes no one retroactively
        failed = AttemptFactory(user=attempt.user, quiz=gc_quiz, number=2, pass_mark=100, max_score=8)
        gc_quiz.pass_mark = 10
        gc_quiz.save()
        failed = attempt_finish(attempt=failed)
        assert (failed.score, failed.pass_mark, failed.passed) == (0, 100, False)

    def test_new_attempt_copies_the_new_pass_mark(self, attempt, gc_quiz):
        attempt_finish(attempt=attempt)
        gc_quiz.pass_mark = 90
        gc_quiz.save()
        second, _created = attempt_start(user=attempt.user, quiz=gc_quiz)
        assert second.pass_mark == 90
        assert Attempt.objects.get(pk=attempt.pk).pass_mark == 70


# Enrollment -----------------------------------------------------------------------


class TestEnrollment:
    def test_self_enrollment_where_allowed(self, outsider, course):
        assert course.allow_self_enrollment is True
        enrollment = enrollment_self_create(user=outsider, course=course)
        assert enrollment.user == outsider
        assert enrollment.course == course
        assert Enrollment.objects.filter(user=outsider, course=course).count() == 1

    def test_self_enrollment_twice_keeps_one(self, student, course):
        existing = Enrollment.objects.get(user=student, course=course)
        assert enrollment_self_create(user=student, course=course).pk == existing.pk
        assert Enrollment.objects.filter(user=student).count() == 1

    def test_self_enrollment_refused_when_the_course_does_not_allow_it(self, outsider):
        closed = CourseFactory(allow_self_enrollment=False)
        with pytest.raises(EnrollmentError) as refused:
            enrollment_self_create(user=outsider, course=closed)
        assert refused.value.code == "self_enrollment_closed"
        assert refused.value.message == SELF_ENROLLMENT_CLOSED
        assert not Enrollment.objects.filter(user=outsider).exists()

    def test_staff_enrollment_ignores_the_self_enrollment_flag(self, outsider):
        closed = CourseFactory(allow_self_enrollment=False)
        enrollment_create(user=outsider, course=closed)
        assert Enrollment.objects.filter(user=outsider, course=closed).exists()

    def test_enrolled_student_can_start_a_quiz_of_the_course(self, outsider):
        quiz = QuizFactory(course=CourseFactory(allow_self_enrollment=True))
        for position in (1, 2):
            ChoiceFactory(question=QuestionFactory(quiz=quiz, position=position), position=1, is_correct=True)
        enrollment_self_create(user=outsider, course=quiz.course)
        attempt, created = attempt_start(user=outsider, quiz=quiz)
        assert created is True
        assert attempt.max_score == 2
        assert attempt.started_at <= timezone.now()
