"""GIFT: one language at a time out and back in, a file from Moodle, and what is refused."""

from pathlib import Path

import pytest

from quizzes.models import Question, Quiz
from tests.content.question_files import ART, GC, all_rows, assert_refused, export, import_file, quiz_content

FILES = Path(__file__).resolve().parent / "files"


def gift_file(tmp_path, text: str, name: str = "questions.gift") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.usefixtures("content")
class TestRoundTrip:
    @pytest.mark.parametrize("slug", [GC, ART])
    def test_each_language_exported_then_imported_rebuilds_the_quiz(self, tmp_path, slug):
        english = gift_file(tmp_path, export(slug, "gift"), name="en.gift")
        output = import_file(english, "gift", "--quiz", "copy")
        assert "Created quiz copy (unpublished)" in output
        assert quiz_content("copy", ("en",), quiz_fields=("title",)) == quiz_content(
            slug, ("en",), quiz_fields=("title",)
        )

        for language in ("ur", "sn", "id"):
            path = gift_file(tmp_path, export(slug, "gift", "--language", language), name=f"{language}.gift")
            import_file(path, "gift", "--language", language, "--quiz", "copy")

        # GIFT holds no description; everything else of every language came back.
        assert quiz_content("copy", quiz_fields=("title",)) == quiz_content(slug, quiz_fields=("title",))

    def test_the_export_in_english(self):
        gift = export(ART, "gift")
        assert "$CATEGORY: $course$/top/Activation Recomputation Tradeoffs Quiz\n" in gift
        assert "\n~Model accuracy\n=Extra compute (FLOPs)\n" in gift
        assert gift.count("####") == 8
        assert export(ART, "gift", "--language", "en") == gift

    def test_special_characters_are_escaped(self, tmp_path):
        question = Question.objects.get(quiz__slug=ART, position=1)
        question.text_en = "In {x}: is a = b ~ c #1 \\ d?"
        question.explanation_en = "Because a == b.\nSecond line."
        question.save()
        choice = question.choices.get(position=1)
        choice.text_en = "=~#{}:"
        choice.save()
        path = gift_file(tmp_path, export(ART, "gift"))
        assert "In \\{x\\}\\: is a \\= b \\~ c \\#1 \\\\ d?" in path.read_text(encoding="utf-8")

        import_file(path, "gift", "--quiz", "copy")

        assert quiz_content("copy", ("en",), quiz_fields=()) == quiz_content(ART, ("en",), quiz_fields=())

    def test_importing_twice_changes_nothing(self, tmp_path):
        path = gift_file(tmp_path, export(GC, "gift", "--language", "ur"))
        import_file(path, "gift", "--language", "ur", "--quiz", GC)
        before = all_rows()
        import_file(path, "gift", "--language", "ur", "--quiz", GC)
        assert all_rows() == before


@pytest.mark.usefixtures("content")
class TestFileFromMoodle:
    def test_comments_category_html_feedback_escapes_and_true_false(self):
        output = import_file(FILES / "moodle_export.gift.txt", "gift")

        assert "Created quiz recomputation (unpublished)" in output
        quiz = Quiz.objects.get(slug="recomputation")
        assert quiz.title_en == "Recomputation"
        first, second, third = quiz.questions.order_by("position")
        assert first.text_en == "What does recomputation trade for lower memory use?"
        assert first.explanation_en == "It spends extra compute & time."
        assert [(c.text_en, c.is_correct) for c in first.choices.order_by("position")] == [
            ("Extra compute", True),
            ("Model accuracy", False),  # a penalty is a wrong answer; per-answer feedback is dropped
            ("Disk space = bandwidth", False),
        ]
        assert second.text_en == "Checkpointing changes the gradients' values."
        assert second.explanation_en == "The recomputed activations are the same."
        assert [(c.text_en, c.is_correct) for c in second.choices.order_by("position")] == [
            ("True", False),
            ("False", True),
        ]
        assert third.text_en == "Which one is a dict literal in Python: two lines?"
        assert [(c.text_en, c.is_correct) for c in third.choices.order_by("position")] == [
            ("[1, 2]", False),
            ("{1: 2}", True),
            ("(1, 2)", False),
        ]


GOOD = "::Fine:: Which?{=yes ~no}\n\n"


@pytest.mark.usefixtures("content")
class TestRefused:
    @pytest.mark.parametrize(
        ("question", "match"),
        [
            ("::Bad:: Name a colour.{=red =blue}", "short-answer questions"),
            ("::Bad:: How many?{#4:1}", "only multiple-choice and true/false"),
            ("::Bad:: Match.{=a -> 1 =b -> 2 =c -> 3}", "matching questions"),
            ("::Bad:: Write an essay.{}", "only multiple-choice and true/false"),
            ("::Bad:: The sky is {=blue ~green} today.", "missing-word question"),
            ("::Bad:: Which?{~%50%half ~%50%other half}", "partial credit (50%)"),
            ("::Bad:: Which?{=one =two ~three}", "2 answers are marked right"),
            ("::Bad:: Which?{~one ~two}", "no answer is marked right"),
            ("::Bad:: Which?{=one", "no closing }"),
            ("::Bad:: No answers at all.", "no answers in braces"),
        ],
    )
    def test_named_with_question_and_line(self, tmp_path, question, match):
        path = gift_file(tmp_path, GOOD + "// a comment\n" + question + "\n")
        message = assert_refused(path, "gift", line=4, match=match)
        assert "question 2 (“Bad”)" in message

    def test_a_wrong_shape_into_an_existing_quiz(self, tmp_path):
        path = gift_file(tmp_path, GOOD)
        assert_refused(path, "gift", "--language", "sn", "--quiz", GC, line=1, match="the quiz has 8 questions")

    def test_a_new_quiz_in_another_language(self, tmp_path):
        path = gift_file(tmp_path, GOOD)
        with pytest.raises(Exception, match="English"):
            import_file(path, "gift", "--language", "ur", "--quiz", "new-one")
        assert not Quiz.objects.filter(slug="new-one").exists()
