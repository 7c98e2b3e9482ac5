"""An ORM oracle of a student's progress, for tests only.

Production reads the progress with one fixed statement and grades it in Python
(``quizzes.attempts.selectors.student_courses``, ``grading.quiz_progress``). This builds
the same figures in the database instead, from the ORM half of ``quizzes.attempts.grading``:
where the two agree, the Python rule and the SQL rule agree.
"""

from types import SimpleNamespace

from django.db.models import OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from quizzes.attempts import grading, rules
from quizzes.attempts.selectors import AnswerFeedback, ShownQuestion
from quizzes.content.cache import version_question
from quizzes.content.selectors import open_questions_with_choices
from quizzes.models import Answer, Attempt, AttemptQuestion, Quiz, QuizOverride


def quiz_progress_oracle(*, user) -> QuerySet[Quiz]:
    """Published quizzes (of every course), by position and slug, each annotated with
    ``user``'s ``attempts_used``, ``best_percent``, ``passed`` and ``in_progress_id``."""
    mine = Q(attempts__user=user)
    in_progress = Attempt.objects.filter(user=user, quiz=OuterRef("pk"), state=Attempt.State.IN_PROGRESS)
    return (
        Quiz.objects.filter(is_published=True)
        .annotate(
            attempts_used=grading.attempts_used_sql("attempts__", filter=mine),
            best_percent=grading.best_percent_sql("attempts__", filter=mine),
            passed=grading.quiz_passed_sql("attempts__", filter=mine),  # 1 or 0
            in_progress_id=Subquery(in_progress.values("pk")[:1]),
        )
        .order_by("position", "slug")
    )


def progress_of(quiz: Quiz) -> tuple:
    """(attempts_used, best_percent, passed, in_progress_id) of a quiz from the oracle or production."""
    return quiz.attempts_used, quiz.best_percent, bool(quiz.passed), quiz.in_progress_id


def student_quizzes_oracle(*, user) -> QuerySet[Quiz]:
    """``quiz_progress_oracle`` for the courses ``user`` is enrolled in, with their course."""
    return quiz_progress_oracle(user=user).filter(course__enrollments__user=user).select_related("course")


def quiz_detail_oracle(*, user) -> QuerySet[Quiz]:
    """``quiz_progress_oracle`` with every open question and choice."""
    return quiz_progress_oracle(user=user).select_related("course").prefetch_related(open_questions_with_choices())


def student_quiz_detail_oracle(*, user, slug: str) -> Quiz:
    """``quiz_detail_oracle``'s quiz, with its ``rules`` for ``user`` (their overrides read by the
    ORM), ``attempts_left`` and ``is_open`` (now), for ``QuizDetailSerializer``."""
    quiz = quiz_detail_oracle(user=user).get(slug=slug)
    quiz.rules = rules.quiz_rules(quiz, overrides_oracle(user=user, quiz=quiz))
    quiz.attempts_left = quiz.rules.attempts_left(quiz.attempts_used)
    quiz.is_open = quiz.rules.is_open(timezone.now())
    return quiz


def overrides_oracle(*, user, quiz) -> list[QuizOverride]:
    """``user``'s overrides of ``quiz`` (their own, their groups'), by the ORM."""
    mine = Q(user=user) | Q(group__members=user)
    return list(QuizOverride.objects.filter(mine, quiz=quiz).distinct().order_by("pk"))


def attempt_oracle(attempt_id: int) -> SimpleNamespace:
    """An attempt as AttemptSerializer reads it, from the ORM rows (its layout, their versions,
    its answers) instead of the fixed statement and the content cache: ``questions`` (each a
    ShownQuestion) and ``answers``, with the attempt's other attributes."""
    attempt = Attempt.objects.select_related("quiz").get(pk=attempt_id)
    now = timezone.now()
    closes_at = rules.quiz_rules(attempt.quiz, overrides_oracle(user=attempt.user_id, quiz=attempt.quiz)).closes_at
    review = rules.attempt_review(quiz=attempt.quiz, attempt=attempt, closes_at=lambda: closes_at, now=now)
    answers = {answer.question_id: answer for answer in Answer.objects.filter(attempt=attempt)}
    questions = []
    for slot in AttemptQuestion.objects.filter(attempt=attempt).select_related("version").order_by("position"):
        question = version_question(slot.version, position=slot.position, choice_order=slot.choice_order)
        answer = answers.get(slot.question_id)
        if answer is not None:
            answer = answers[slot.question_id] = AnswerFeedback(answer, question, review)
        questions.append(ShownQuestion(question, answer))
    fields = {field.attname: getattr(attempt, field.attname) for field in Attempt._meta.concrete_fields}
    return SimpleNamespace(
        **fields,
        pk=attempt.pk,
        quiz=attempt.quiz,
        percent=attempt.percent,
        passed=attempt.passed,
        review=review,
        time_left=rules.time_left(attempt, now),
        feedback_timing=rules.feedback_timing(quiz=attempt.quiz, attempt=attempt),
        questions=questions,
        answers=[item.answer for item in questions if item.answer is not None],
    )
