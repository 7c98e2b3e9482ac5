"""Reads of a student's quizzes and attempts, with their progress."""

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import F, Q
from django.utils import timezone

from quizzes.attempts import grading, queries, rules, start_queries
from quizzes.content.cache import ContentQuestion, QuizContent, version_question
from quizzes.content.layout_cache import layout_content, layout_versions
from quizzes.models import Answer, Attempt, AttemptQuestion, Course, CourseGroup, Quiz, QuizOverride


def student_courses(*, user) -> list[Course]:
    """The courses ``user`` is enrolled in, by slug, each with ``progress_quizzes`` and ``progress``.

    ``progress_quizzes``: the course's published quizzes in order, each with this user's
    ``attempts_used``, ``best_percent``, ``passed`` and ``in_progress_id``
    (``grading.quiz_progress``); ``progress``: its quizzes passed of quizzes
    (``grading.course_progress``). One fixed statement
    (``quizzes.attempts.queries.courses_of_student``): the courses joined to their quizzes
    and this user's attempts (a row per attempt), graded here. The dashboard, the progress
    endpoint and the API's quiz list run this on every visit.
    """
    return student_dashboard(user=user)[0]


def student_dashboard(*, user) -> tuple[list[Course], list[Course]]:
    """``student_courses``, and the courses open to self-enrollment that ``user`` has not
    joined (by slug), from one fixed statement. Each quiz also has its ``finished_attempts``
    that count (Attempt instances with their grade, ``finished_at`` and ``quiz`` only)."""
    courses, joinable, quiz_rows = queries.courses_of_student(user.pk)
    return _with_progress(courses, quiz_rows), joinable


def _with_progress(courses: list[Course], quiz_rows) -> list[Course]:
    by_id = {course.pk: course for course in courses}
    for course in courses:
        course.progress_quizzes = []
    attempts: dict[int, list[Attempt]] = {}
    quizzes: dict[int, Quiz] = {}
    for row_quiz, mine in quiz_rows:
        if row_quiz.pk not in quizzes:  # the quiz comes on each of its rows: the first is kept
            quiz = quizzes[row_quiz.pk] = row_quiz
            attempts[quiz.pk] = []
            quiz.course = by_id[quiz.course_id]
            quiz.course.progress_quizzes.append(quiz)
            quiz.finished_attempts = []
        quiz = quizzes[row_quiz.pk]
        if mine is not None:
            # The statement reads only the attempts that count, and of them what grading reads.
            mine.quiz_id, mine.is_practice, mine.quiz = quiz.pk, False, quiz
            attempts[quiz.pk].append(mine)
            if mine.is_finished:
                quiz.finished_attempts.append(mine)
    for course in courses:
        for quiz in course.progress_quizzes:
            _set_progress(quiz, attempts[quiz.pk])
        course.progress = grading.course_progress(course.progress_quizzes)
    return courses


def _set_progress(quiz: Quiz, attempts) -> None:
    """The quiz's ``attempts_used``, ``best_percent``, ``passed`` and ``in_progress_id`` from
    the user's attempts at it that count (``grading.quiz_progress``; a practice does not)."""
    counted = [attempt for attempt in attempts if attempt.counts_for_grade]
    quiz.attempts_used, quiz.best_percent, quiz.passed, quiz.in_progress_id = grading.quiz_progress(counted)


def published_quiz_get(*, slug: str) -> Quiz:
    """A published quiz with its course; raises Quiz.DoesNotExist otherwise (one fixed statement)."""
    quiz = start_queries.published_quiz(slug)
    if quiz is None:
        raise Quiz.DoesNotExist
    return quiz


def student_quiz_get(*, user, slug: str) -> tuple[Quiz, bool, list[Attempt]]:
    """A published quiz (its course attached) as ``user`` sees it: whether they are enrolled in
    its course, and their attempts at it, newest first; the quiz with its progress as
    ``student_courses`` gives it, and with its settings for this student: ``rules`` (a
    ``rules.QuizRules``, their overrides applied), ``attempts_left`` (None: unlimited) and
    ``is_open`` (now). One round trip (``start_queries.published_quiz_for_student``): a
    class opens a quiz at once. An unknown or unpublished quiz raises Quiz.DoesNotExist."""
    quiz, enrolled, attempts, overrides = start_queries.published_quiz_for_student(slug=slug, user_id=user.pk)
    if quiz is None:
        raise Quiz.DoesNotExist
    _set_progress(quiz, attempts)
    quiz.rules = rules.quiz_rules(quiz, overrides)
    quiz.attempts_left = quiz.rules.attempts_left(quiz.attempts_used)
    quiz.is_open = quiz.rules.is_open(timezone.now())
    return quiz, enrolled, attempts


def student_attempt_get(*, user, attempt_id: int) -> Attempt:
    """One of ``user``'s own attempts; anyone else's raises Attempt.DoesNotExist.

    Only the attempt's row: its quiz's content comes from ``content_cache.quiz_content``.
    One fixed statement (``queries.attempt_get``): a finish, a result and a refused answer read it.
    """
    attempt = queries.attempt_get(attempt_id=attempt_id, user_id=user.pk)
    if attempt is None:
        raise Attempt.DoesNotExist
    return attempt


@dataclass(frozen=True, slots=True)
class AnswerFeedback:
    """A recorded answer as its student may see it now: the answer, ``question`` as the version
    the answer records showed it (its right choice and explanation are the feedback), and
    ``review`` (a ``rules.Review``: what of that feedback is shown now). ``correct``,
    ``correct_choice_id``, ``regraded`` and ``explanation_question`` are None where the
    review withholds them: the API and the pages read them, and nothing else."""

    answer: Answer
    question: ContentQuestion
    review: rules.Review

    @property
    def question_id(self) -> int:
        return self.answer.question_id

    @property
    def choice_id(self) -> int:
        return self.answer.choice_id

    @property
    def is_correct(self) -> bool:
        return self.answer.is_correct

    @property
    def is_regraded(self) -> bool:
        """Whether its grade is not the one its feedback gave (the key of the version shown):
        a regrade changed it since (quizzes/attempts/regrade.py)."""
        return self.answer.is_correct != (self.answer.choice_id == self.question.correct_choice_id)

    @property
    def correct(self) -> bool | None:
        return self.answer.is_correct if self.review.correctness else None

    @property
    def correct_choice_id(self) -> int | None:
        return self.question.correct_choice_id if self.review.right_answer else None

    @property
    def regraded(self) -> bool | None:
        return self.is_regraded if self.review.correctness else None

    @property
    def explanation_question(self) -> ContentQuestion | None:
        """The question its explanation is read from, when the review shows it."""
        return self.question if self.review.explanation else None


def answer_feedback(*, user, answer: Answer, now) -> AnswerFeedback:
    """``answer`` (one of ``user``'s, with its ``attempt``, ``version_id`` and
    ``version_token``) with its feedback as shown at ``now``."""
    return AnswerFeedback(
        answer, shown_question(answer), student_attempt_review(user=user, attempt=answer.attempt, now=now)
    )


def student_attempt_with_answers(*, user, attempt_id: int) -> tuple[Attempt, QuizContent, dict[int, AnswerFeedback]]:
    """One of ``user``'s attempts, the quiz as its layout shows it (``attempt_content``) and its
    answers by question, each with its feedback (``AnswerFeedback``: the version it records,
    and the attempt's ``review``, with its ``time_left`` and ``feedback_timing``:
    ``student_attempt_status_set``), in one statement.

    The attempt LEFT JOIN its layout and answers (a row per question), for the
    question page, the most visited page. Raises Attempt.DoesNotExist as
    ``student_attempt_get``.
    """
    found = queries.attempt_with_answers(attempt_id=attempt_id, user_id=user.pk)
    if found is None:
        raise Attempt.DoesNotExist
    attempt, layout, answers = found
    content = attempt_content(attempt=attempt, layout=layout)
    student_attempt_status_set(user=user, attempt=attempt, now=timezone.now())
    feedback = {
        # Its feedback: the version the layout holds, which the answer records.
        question.id: AnswerFeedback(answers[question.id], question, attempt.review)
        for question in content.questions
        if question.id in answers
    }
    return attempt, content, feedback


def student_attempt_status_set(*, user, attempt: Attempt, now) -> Attempt:
    """Attach to ``attempt`` (its ``quiz`` holding ``queries.REVIEW_NAMES``) what its student
    is told of it at ``now``: its ``review`` (``student_attempt_review``), its
    ``feedback_timing`` (``rules.feedback_timing``) and its ``time_left`` (``rules.time_left``)."""
    attempt.review = student_attempt_review(user=user, attempt=attempt, now=now)
    attempt.feedback_timing = rules.feedback_timing(quiz=attempt.quiz, attempt=attempt)
    attempt.time_left = rules.time_left(attempt, now)
    return attempt


def student_attempt_review(*, user, attempt: Attempt, now) -> rules.Review:
    """What ``attempt``'s feedback shows ``user`` at ``now`` (``rules.attempt_review``); its
    ``quiz`` holds what the review reads (``queries.REVIEW_NAMES``). The student's overrides
    are read only when the timing waits for the quiz's close."""
    quiz = attempt.quiz

    def closes_at():
        return rules.closes_at_for(quiz, start_queries.student_overrides(user_id=user.pk, quiz_id=quiz.pk))

    return rules.attempt_review(quiz=quiz, attempt=attempt, closes_at=closes_at, now=now)


def student_answer_get(*, user, attempt_id: int, question_id: int, now) -> AnswerFeedback | None:
    """The answer recorded to this question in ``user``'s attempt with its feedback at ``now``,
    or None."""
    answer = queries.recorded_answer(attempt_id=attempt_id, user_id=user.pk, question_id=question_id)
    return None if answer is None else answer_feedback(user=user, answer=answer, now=now)


def shown_question(answer: Answer) -> ContentQuestion:
    """The question as the version ``answer`` records showed it (its ``version_id`` and
    ``version_token``, from the content cache): its right choice and explanation are the
    answer's feedback."""
    key = (answer.version_id, answer.version_token)
    return version_question(layout_versions([key])[key], position=0)


def attempt_content(*, attempt: Attempt, layout=None) -> QuizContent:
    """The quiz as ``attempt`` shows it: the questions of its layout in its order, each as the
    version it holds shows it, with the choices in its order; ``position`` is the place in the
    layout. ``layout`` (its AttemptQuestion rows in position order, each with its
    ``version_token``) is read when not given."""
    if layout is None:
        layout = AttemptQuestion.objects.filter(attempt_id=attempt.pk).order_by("position")
        layout = list(layout.annotate(version_token=F("version__token")))
    return layout_content(attempt.quiz, [slot_key(slot) for slot in layout])


def slot_key(slot) -> tuple:
    """(position, version id, version token, choice order) of a place in a layout: an
    AttemptQuestion read with its ``version_token``, or a ``quizzes.attempts.layout.Slot``."""
    return (slot.position, slot.version_id, slot.version_token, slot.choice_order)


@dataclass(frozen=True)
class ShownQuestion:
    """A question of an attempt as its layout shows it, and its answer (None before one)."""

    question: ContentQuestion
    answer: Answer | AnswerFeedback | None  # AnswerFeedback for the student, the bare Answer for staff


def shown_questions(*, content: QuizContent, answers: dict[int, Answer | AnswerFeedback]) -> list[ShownQuestion]:
    """The questions of an attempt (``attempt_content``) in its order, each with its answer
    (``student_attempt_with_answers`` gives them, with their feedback's question)."""
    return [ShownQuestion(question, answers.get(question.id)) for question in content.questions]


def attempts_overdue(*, now) -> list[Attempt]:
    """The attempts in progress past their deadline and grace at ``now`` (``rules.is_overdue``,
    as a filter), oldest deadline first, each with its ``user`` and ``quiz``: what
    ``manage.py finish_overdue_attempts`` finishes. A practice has no deadline, so never."""
    overdue = Attempt.objects.filter(
        state=Attempt.State.IN_PROGRESS, deadline__isnull=False, deadline__lt=rules.deadline_cutoff(now)
    )
    return list(overdue.select_related("user", "quiz").order_by("deadline", "pk"))


def student_quizzes(*, user) -> list[Quiz]:
    """Published quizzes of the courses ``user`` is enrolled in, with progress, by position
    then slug (all courses together): ``student_courses``'s quizzes, from its one statement."""
    quizzes = [quiz for course in student_courses(user=user) for quiz in course.progress_quizzes]
    return sorted(quizzes, key=lambda quiz: (quiz.position, quiz.slug))


def attempts_missed_questions(attempt_ids) -> dict[int, set[int]]:
    """The questions each of these attempts missed (``rules.missed_question_ids``), by attempt
    id: two queries, their layouts and their right answers."""
    asked, right = defaultdict(list), defaultdict(list)
    layouts = AttemptQuestion.objects.filter(attempt_id__in=attempt_ids).values_list("attempt_id", "question_id")
    for attempt_id, question_id in layouts:
        asked[attempt_id].append(question_id)
    answers = Answer.objects.filter(attempt_id__in=attempt_ids, is_correct=True).values_list(
        "attempt_id", "question_id"
    )
    for attempt_id, question_id in answers:
        right[attempt_id].append(question_id)
    return {attempt_id: rules.missed_question_ids(asked[attempt_id], right[attempt_id]) for attempt_id in attempt_ids}


def overrides_by_student(*, quiz_ids, user_ids=None) -> dict[tuple[int, int], list[QuizOverride]]:
    """The overrides of these quizzes by (student id, quiz id) they apply to: a student's own,
    and those of each group they are in (each with its ``group``), oldest first, as
    ``rules.quiz_rules`` takes them; only for ``user_ids`` when given. Two queries."""
    overrides = QuizOverride.objects.filter(quiz_id__in=quiz_ids).select_related("group").order_by("pk")
    members = CourseGroup.members.through.objects.filter(coursegroup__quiz_overrides__quiz_id__in=quiz_ids)
    if user_ids is not None:
        user_ids = list(user_ids)
        overrides = overrides.filter(Q(user_id__in=user_ids) | Q(group__members__in=user_ids)).distinct()
        members = members.filter(user_id__in=user_ids)
    overrides = list(overrides)
    in_group = defaultdict(set)
    if any(override.group_id is not None for override in overrides):
        for group_id, user_id in members.values_list("coursegroup_id", "user_id").distinct():
            in_group[group_id].add(user_id)
    applying = defaultdict(list)
    for override in overrides:
        for user_id in [override.user_id] if override.user_id is not None else sorted(in_group[override.group_id]):
            applying[user_id, override.quiz_id].append(override)
    return dict(applying)
