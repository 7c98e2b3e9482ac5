"""Which quizzes students see (``Quiz.objects.published()``) and which content students'
records hold, so that it may not be deleted (``answered()``, ``attempted()``, ``is_answered``),
are defined once in quizzes/managers.py: no other spelling of them is left in production
code, and the fixed SQL that binds "published" agrees with the ORM on a table of cases."""

import re
from pathlib import Path

import pytest

from quizzes.attempts import queries, start_queries
from quizzes.managers import is_answered
from quizzes.models import Choice, Question, Quiz
from tests.factories import AttemptFactory, answer_row

PROJECT_DIR = Path(__file__).resolve().parents[2]
DEFINITION = "quizzes/managers.py"
SPELLINGS = re.compile(
    r"is_published\s*=\s*True\b"  # a filter of the quizzes students see
    r"|Answer\.objects\.values\(\"(question|choice)_id\"\)"  # the content answers point at
    r"|Answer\.objects\.filter\((question|choice)=\w+\)\.exists\(\)"  # whether one row was answered
    r"|Attempt\.objects\.values\(\"quiz_id\"\)"  # the quizzes attempts point at
)


def test_no_other_spelling_of_the_rules_in_production_code():
    found = [
        f"{path.relative_to(PROJECT_DIR)}:{number}: {line.strip()}"
        for top in ("lms", "common", "quizzes")
        for path in sorted((PROJECT_DIR / top).rglob("*.py"))
        if "migrations" not in path.parts and str(path.relative_to(PROJECT_DIR)) != DEFINITION
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if SPELLINGS.search(line)
    ]
    assert found == []


def test_the_spellings_are_recognised():
    for line in [
        "Quiz.objects.filter(course=course, is_published=True)",
        'queryset.filter(pk__in=Answer.objects.values("question_id"))',
        "if Answer.objects.filter(question=question).exists():",
        'queryset.filter(pk__in=Attempt.objects.values("quiz_id"))',
    ]:
        assert SPELLINGS.search(line), line
    assert not SPELLINGS.search("Quiz(slug=slug, is_published=False)")  # a new quiz, not a filter


@pytest.mark.parametrize("published", [True, False])
def test_the_fixed_sql_of_a_published_quiz_agrees_with_the_orm(student, gc_quiz, published):
    Quiz.objects.filter(pk=gc_quiz.pk).update(is_published=published)
    by_orm = set(Quiz.objects.published().values_list("pk", flat=True))
    assert (gc_quiz.pk in by_orm) is published
    for quiz in Quiz.objects.all():
        found = start_queries.published_quiz(quiz.slug)
        assert (found is not None) is (quiz.pk in by_orm), quiz.slug
        student_quiz = start_queries.published_quiz_for_student(slug=quiz.slug, user_id=student.pk)
        assert (student_quiz.quiz is not None) is (quiz.pk in by_orm), quiz.slug
    _enrolled, _joinable, rows = queries.courses_of_student(student.pk)
    enrolled_quizzes = Quiz.objects.filter(course__enrollments__user=student)
    assert {quiz.pk for quiz, _attempt in rows} == set(enrolled_quizzes.published().values_list("pk", flat=True))


def test_answered_content_is_what_answers_point_at(student, gc_quiz):
    question, other = gc_quiz.questions.order_by("position")[:2]
    choice = question.choices.order_by("position").first()
    assert not is_answered(question)
    assert not is_answered(choice)
    assert not Quiz.objects.filter(pk=gc_quiz.pk).attempted().exists()

    attempt = AttemptFactory(user=student, quiz=gc_quiz, number=1, is_practice=False, finished=False)
    assert Quiz.objects.filter(pk=gc_quiz.pk).attempted().exists()
    assert not is_answered(question)
    answer_row(attempt=attempt, question=question, choice=choice, is_correct=choice.is_correct).save()

    assert is_answered(question) and is_answered(choice)
    assert not is_answered(other)
    assert list(Question.objects.filter(quiz=gc_quiz).answered()) == [question]
    assert list(Choice.objects.filter(question__quiz=gc_quiz).answered()) == [choice]
