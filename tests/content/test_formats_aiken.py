"""Aiken: one language out and back in, and a malformed file refused at its line."""

import pytest
from django.core.management import CommandError

from quizzes.models import Choice, Question, Quiz
from tests.content.question_files import ART, GC, assert_refused, export, import_file, quiz_content

GOOD = "Which?\nA. yes\nB. no\nANSWER: A\n\n"


def aiken_file(tmp_path, text: str, name: str = "questions.txt"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def key_and_texts(slug: str, language: str) -> list:
    content = quiz_content(slug, (language,), quiz_fields=())
    return [
        {"text": question["texts"], "choices": question["choices"], "key": question["key"]}
        for question in content["questions"]
    ]


@pytest.mark.usefixtures("content")
class TestRoundTrip:
    @pytest.mark.parametrize("slug", [GC, ART])
    def test_export_then_import_keeps_texts_choices_and_key(self, tmp_path, slug):
        path = aiken_file(tmp_path, export(slug, "aiken"), name="Week 4.txt")

        output = import_file(path, "aiken", "--quiz", "copy")

        assert "Created quiz copy (unpublished)" in output
        copy = Quiz.objects.get(slug="copy")
        assert copy.title_en == "Week 4"  # the format holds no title: the file's name
        assert key_and_texts("copy", "en") == key_and_texts(slug, "en")

    def test_a_translation_into_the_quiz(self, tmp_path):
        expected = key_and_texts(GC, "ur")
        path = aiken_file(tmp_path, export(GC, "aiken", "--language", "ur"))
        Question.objects.filter(quiz__slug=GC).update(text_ur=None)
        Choice.objects.filter(question__quiz__slug=GC).update(text_ur=None)

        import_file(path, "aiken", "--language", "ur", "--quiz", GC)

        assert key_and_texts(GC, "ur") == expected

    def test_the_export(self):
        aiken = export(ART, "aiken")
        assert aiken.startswith(
            "What does activation recomputation trade away to save memory?\n"
            "A. Model accuracy\nB. Extra compute (FLOPs)\nC. Network bandwidth\nD. Numerical precision\nANSWER: B\n\n"
        )

    def test_a_question_without_a_key_cannot_be_exported(self):
        Choice.objects.filter(question__quiz__slug=ART, question__position=3).update(is_correct=False)
        with pytest.raises(CommandError, match="question 3 has no correct choice"):
            export(ART, "aiken")

    def test_parenthesis_letters_and_no_blank_lines(self, tmp_path):
        path = aiken_file(tmp_path, "First?\nA) one\nB) two\nANSWER: B\nSecond?\nA. x\nB. y\nC. z\nANSWER: C\n")
        import_file(path, "aiken", "--quiz", "small")
        first, second = Question.objects.filter(quiz__slug="small").order_by("position")
        assert [c.is_correct for c in first.choices.order_by("position")] == [False, True]
        assert [c.text_en for c in second.choices.order_by("position")] == ["x", "y", "z"]


@pytest.mark.usefixtures("content")
class TestRefused:
    @pytest.mark.parametrize(
        ("question", "line", "match"),
        [
            ("Which?\nA. one\nB. two\nANSWER: E", 14, "one letter of the choices (AB)"),
            ("Which?\nA. one\nC. two\nANSWER: A", 13, "expected choice B here"),
            ("Which?\nA. one\nB. two", 11, 'no "ANSWER:" line'),
            ("Which?\nA. one\nANSWER: A", 13, "at least two choices"),
            ("Which?\nA. one\nB. two\nthree\nANSWER: A", 14, "expected a choice"),
        ],
    )
    def test_named_with_question_and_line(self, tmp_path, question, line, match):
        path = aiken_file(tmp_path, GOOD + GOOD.replace("Which", "Fine") + question + "\n")  # it starts at line 11
        message = assert_refused(path, "aiken", line=line, match=match)
        assert "question 3" in message

    def test_a_choice_before_any_question(self, tmp_path):
        path = aiken_file(tmp_path, "A. one\nB. two\nANSWER: A\n")
        assert_refused(path, "aiken", line=1, match="expected a question's text")

    def test_an_empty_file(self, tmp_path):
        assert_refused(aiken_file(tmp_path, "\n\n"), "aiken", line=1, match="no question")


@pytest.mark.usefixtures("content")
def test_the_seed_format_still_needs_a_language(tmp_path):
    with pytest.raises(CommandError, match="--language"):
        export(ART, "seed")
    path = aiken_file(tmp_path, GOOD)
    with pytest.raises(CommandError, match="--language"):
        import_file(path, "seed")
