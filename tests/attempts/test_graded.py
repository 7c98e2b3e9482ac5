"""Which attempts count for a grade, progress and reports has one definition
(quizzes/managers.py: every attempt but a practice): no other spelling of it is left in
production code, and the fixed SQL that binds it agrees with the ORM on a table of cases."""

import re
from pathlib import Path

import pytest

from quizzes.attempts import queries
from quizzes.managers import graded_q
from quizzes.models import Answer, Attempt, Quiz
from tests.factories import AttemptFactory

PROJECT_DIR = Path(__file__).resolve().parents[2]
DEFINITIONS = {"quizzes/managers.py", "quizzes/models/attempts.py"}
# A filter on the flag, or Python that tells a graded attempt from a practice, spelled anew.
# (A practice's own behaviour, e.g. its feedback shown at once, is another rule: "if x.is_practice else".)
SPELLINGS = re.compile(
    r"is_practice\s*=\s*False\b"  # a filter (or a create) of the attempts that count
    r"|__is_practice\b"  # a filter through a relation
    r"|\bnot\s+[\w.]+\.is_practice\b"  # Python: "counts"
    r"|\bif\s+[\w.]+\.is_practice\b(?!\s+else)"  # Python: "does not count"
)


def test_no_other_spelling_of_the_rule_in_production_code():
    found = [
        f"{path.relative_to(PROJECT_DIR)}:{number}: {line.strip()}"
        for top in ("lms", "common", "quizzes")
        for path in sorted((PROJECT_DIR / top).rglob("*.py"))
        if "migrations" not in path.parts and str(path.relative_to(PROJECT_DIR)) not in DEFINITIONS
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if SPELLINGS.search(line)
    ]
    assert found == []


def test_the_spellings_are_recognised():
    for line in [
        "Attempt.objects.filter(is_practice=False)",
        "Answer.objects.filter(attempt__is_practice=False)",
        "[a for a in attempts if not a.is_practice]",
        "    if attempt.is_practice:",
    ]:
        assert SPELLINGS.search(line), line
    assert not SPELLINGS.search("IMMEDIATELY if attempt.is_practice else quiz.feedback_timing")


# The cases: (practice, finished) of the student's attempts at one quiz.
CASES = [
    [],
    [(False, True)],
    [(True, True)],
    [(False, True), (True, True), (True, False)],
    [(False, True), (False, False), (True, False)],
]


def attempts_made(student, quiz, case) -> list[Attempt]:
    numbers = {True: 0, False: 0}
    made = []
    for practice, finished in case:
        numbers[practice] += 1
        made.append(
            AttemptFactory(user=student, quiz=quiz, number=numbers[practice], is_practice=practice, finished=finished)
        )
    return made


@pytest.mark.parametrize("case", CASES, ids=str)
def test_the_orm_and_python_forms_agree(student, gc_quiz, case):
    made = attempts_made(student, gc_quiz, case)
    graded = set(Attempt.objects.graded().values_list("pk", flat=True))
    assert graded == {attempt.pk for attempt in made if attempt.counts_for_grade}
    assert graded == {attempt.pk for attempt in made if not attempt.is_practice}
    assert set(Answer.objects.filter(graded_q("attempt__")).values_list("attempt_id", flat=True)) <= graded
    with_graded = Quiz.objects.filter(graded_q("attempts__"), pk=gc_quiz.pk).exists()
    assert with_graded is bool(graded)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_the_dashboards_fixed_sql_agrees_with_the_orm(student, gc_quiz, case):
    attempts_made(student, gc_quiz, case)
    _enrolled, _joinable, rows = queries.courses_of_student(student.pk)
    shown = {attempt.pk for quiz, attempt in rows if attempt is not None and quiz.pk == gc_quiz.pk}
    assert shown == set(Attempt.objects.graded().filter(user=student, quiz=gc_quiz).values_list("pk", flat=True))
