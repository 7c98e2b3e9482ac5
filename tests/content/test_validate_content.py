"""validate_content: clean fixtures pass; each rule names the quiz and question; a missing
translation is a warning, listed apart, that never fails the run."""

import io

import pytest
from django.core.management import call_command

from quizzes.content.problems import content_problems, content_warnings
from quizzes.models import Choice, Question, Quiz
from tests.factories import QuizFactory

GC = "gradient-checkpointing"
ART = "activation-recomputation-tradeoffs"
WARNING = "Warning: "


def run_validate() -> tuple[int, list[str], str]:
    """Run the command: (exit code, stdout lines, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("validate_content", stdout=out, stderr=err)
    except SystemExit as exit_:
        code = exit_.code
    else:
        code = 0
    return code, out.getvalue().splitlines(), err.getvalue()


def validate() -> tuple[int, list[str], str]:
    """Run the command: (exit code, stdout lines but the warnings, stderr)."""
    code, lines, err = run_validate()
    return code, [line for line in lines if not line.startswith(WARNING)], err


def question(slug: str, position: int) -> Question:
    return Question.objects.get(quiz__slug=slug, position=position)


def choice(slug: str, question_position: int, position: int) -> Choice:
    return Choice.objects.get(question__quiz__slug=slug, question__position=question_position, position=position)


def assert_only_problems(*expected: str) -> None:
    code, lines, err = validate()
    assert code == 1
    assert lines == list(expected)
    count = len(expected)
    assert f"{count} content problem{'s' if count > 1 else ''}." in err


def assert_only_missing_translations(*expected: str) -> None:
    """The run passes, and lists ``expected`` among its warnings, after the problems (none)."""
    code, lines, err = run_validate()
    assert (code, err) == (0, "")
    assert [line for line in lines if not line.startswith(WARNING)] == ["No content problems."]
    missing = [str(w) for w in content_warnings() if w.code.startswith("translation_missing")]
    assert missing == list(expected)
    assert lines.index("No content problems.") == len(lines) - 1
    for warning in expected:
        assert f"{WARNING}{warning}" in lines
    assert content_problems() == []


@pytest.mark.usefixtures("content")
class TestRules:
    def test_fixtures_are_clean(self):
        code, lines, err = validate()
        assert code == 0
        assert lines == ["No content problems."]
        assert err == ""
        assert content_problems() == []

    def test_no_correct_choice(self):
        Choice.objects.filter(question=question(GC, 4)).update(is_correct=False)
        assert_only_problems(f"{GC} #4: No choice is marked correct.")

    def test_two_correct_choices(self):
        Choice.objects.filter(question=question(ART, 2), position=1).update(is_correct=True)
        assert_only_problems(f"{ART} #2: 2 choices are marked correct; exactly one must be.")

    def test_only_one_choice(self):
        Choice.objects.filter(question=question(ART, 7)).exclude(is_correct=True).delete()
        assert_only_problems(f"{ART} #7: The question has fewer than two choices.")

    def test_choice_english_text_whitespace_only(self):
        Choice.objects.filter(pk=choice(ART, 3, 2).pk).update(text_en="   ")
        assert_only_problems(f"{ART} #3: Choice 2 has no English text.")

    def test_empty_english_explanation(self):
        Question.objects.filter(pk=question(GC, 6).pk).update(explanation_en="")
        assert_only_problems(f"{GC} #6: The question has no English explanation.")

    def test_whitespace_english_question_text(self):
        Question.objects.filter(pk=question(GC, 7).pk).update(text_en=" \n ")
        assert_only_problems(f"{GC} #7: The question has no English text.")

    def test_translation_missing_a_choice_is_a_warning(self):
        Choice.objects.filter(pk=choice(GC, 1, 3).pk).update(text_ur=None)
        assert_only_missing_translations(
            f"{GC} #1: The Urdu translation has 3 of 4 choices; the others would show in English.",
        )

    def test_translation_with_choices_but_no_question_text_is_a_warning(self):
        Question.objects.filter(pk=question(GC, 2).pk).update(text_sn=None)
        assert_only_missing_translations(f"{GC} #2: The Shona translation has choices but no question text.")

    def test_translation_missing_explanation_is_a_warning(self):
        Question.objects.filter(pk=question(ART, 5).pk).update(explanation_ind="")
        assert_only_missing_translations(f"{ART} #5: The Indonesian translation has no explanation.")

    def test_question_translated_without_choices_is_a_warning(self):
        Question.objects.filter(pk=question(ART, 3).pk).update(text_ur="سوال؟", explanation_ur="وضاحت\u06d4")
        assert_only_missing_translations(
            f"{ART} #3: The Urdu translation has 0 of 4 choices; the others would show in English.",
        )

    def test_untranslated_question_is_fine(self):
        q1 = question(ART, 1)
        Question.objects.filter(pk=q1.pk).update(text_ind=None, explanation_ind=None)
        Choice.objects.filter(question=q1).update(text_ind=None)
        assert_only_missing_translations()

    def test_whitespace_english_title(self):
        Quiz.objects.filter(slug=GC).update(title_en="  ")
        assert_only_problems(f"{GC}: The quiz has no English title.")

    def test_quiz_with_no_questions(self, course):
        QuizFactory(course=course, slug="empty-quiz", position=9)
        assert_only_problems("empty-quiz: The quiz has no questions.")

    def test_several_problems_in_order(self):
        Choice.objects.filter(question=question(ART, 8)).update(is_correct=False)
        Choice.objects.filter(question=question(GC, 3)).update(is_correct=True)
        code, lines, err = validate()
        assert code == 1
        assert lines == [
            f"{GC} #3: 4 choices are marked correct; exactly one must be.",
            f"{ART} #8: No choice is marked correct.",
        ]
        assert "2 content problems." in err

    def test_a_problem_fails_the_run_and_the_warnings_are_listed_apart_after_it(self):
        Choice.objects.filter(question=question(ART, 8)).update(is_correct=False)
        Choice.objects.filter(pk=choice(GC, 5, 4).pk).update(text_sn=None)
        code, lines, err = run_validate()
        assert code == 1
        assert lines[0] == f"{ART} #8: No choice is marked correct."
        assert all(line.startswith(WARNING) for line in lines[1:])
        assert f"{WARNING}{GC} #5: The Shona translation has 3 of 4 choices; the others would show in English." in lines
        assert err == "1 content problem.\n"


@pytest.mark.usefixtures("content")
def test_content_problems_query_count(django_assert_max_num_queries):
    # One query each for quizzes (with their course), questions, choices and pool draws.
    with django_assert_max_num_queries(4):
        assert content_problems() == []


@pytest.mark.usefixtures("content")
def test_query_count_does_not_grow_with_quizzes(course, django_assert_max_num_queries):
    for position in range(3, 8):
        QuizFactory(course=course, position=position)
    with django_assert_max_num_queries(4):
        problems = content_problems()
    assert len(problems) == 5
