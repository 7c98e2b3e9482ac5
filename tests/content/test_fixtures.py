"""The fixtures: the seed content with a right answer key, loadable twice."""

import re

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.core.serializers.base import DeserializationError

from quizzes.content.languages import TRANSLATION_LANGUAGES, column
from quizzes.models import Choice, Course, Question, Quiz
from tests.conftest import FIXTURE_FILES, load_fixtures

GC = "gradient-checkpointing"
ART = "activation-recomputation-tradeoffs"
CONTENT_MODELS = (Course, Quiz, Question, Choice)

ANSWER_KEY = {
    GC: [
        "Extra compute (recomputation)",
        "Because backpropagation needs them",
        "Activation storage can scale",
        "Which operations are recomputed",
        "torch.utils.checkpoint",
        "Their forward computations are rerun",
        "FSDP for sharded model state",
        "Which operations to save",
    ],
    ART: [
        "Extra compute (FLOPs)",
        "Because backpropagation needs them",
        "Checkpoint placement, operators",
        "O(sqrt(N))",
        "Recompute only memory-heavy",
        "Offloading activations",
        "Backward recomputation should reproduce",
        "Activation recomputation does not remove",
    ],
}


def rows() -> dict[str, list[dict]]:
    return {model.__name__: list(model.objects.order_by("pk").values()) for model in CONTENT_MODELS}


def counts() -> tuple[int, ...]:
    return tuple(model.objects.count() for model in CONTENT_MODELS)


@pytest.mark.usefixtures("content")
class TestContent:
    def test_counts(self):
        assert counts() == (1, 2, 16, 64)

    def test_loading_twice_changes_nothing(self):
        before = rows()
        load_fixtures()
        assert rows() == before

    def test_loading_restores_edited_content(self):
        before = rows()
        Question.objects.filter(quiz__slug=GC, position=1).update(text_ur="edited")
        Choice.objects.filter(question__quiz__slug=ART).update(is_correct=False)
        load_fixtures()
        assert rows() == before

    def test_both_quizzes_published_in_the_course(self):
        quizzes = list(Quiz.objects.order_by("position").values_list("slug", "course__slug", "is_published"))
        assert quizzes == [
            (GC, "memory-efficient-training", True),
            (ART, "memory-efficient-training", True),
        ]

    def test_every_question_has_four_choices(self):
        for question in Question.objects.all():
            assert list(question.choices.order_by("position").values_list("position", flat=True)) == [1, 2, 3, 4]

    @pytest.mark.parametrize("slug", [GC, ART])
    def test_answer_key(self, slug):
        questions = Question.objects.filter(quiz__slug=slug).order_by("position")
        assert [question.position for question in questions] == list(range(1, 9))
        for question, expected in zip(questions, ANSWER_KEY[slug], strict=True):
            correct = list(question.choices.filter(is_correct=True))
            assert len(correct) == 1, f"{slug} #{question.position}"
            assert correct[0].text_en.startswith(expected), f"{slug} #{question.position}: {correct[0].text_en}"

    def test_english_explanations_are_real_explanations(self):
        for question in Question.objects.all():
            explanation = question.explanation_en or ""
            where = f"{question.quiz.slug} #{question.position}"
            assert len(explanation) >= 150, where
            assert len(re.findall(r"[.!?](\s|$)", explanation)) >= 2, where

    def test_translated_questions_are_complete(self):
        translated = 0
        for question in Question.objects.prefetch_related("choices"):
            for language in TRANSLATION_LANGUAGES:
                if not getattr(question, column("text", language)):
                    continue
                translated += 1
                where = f"{question.quiz.slug} #{question.position} ({language})"
                assert getattr(question, column("explanation", language)), where
                assert all(getattr(choice, column("text", language)) for choice in question.choices.all()), where
        # Urdu and Shona for questions 1, 2, 5 of one quiz; Indonesian for 1, 2, 5, 6 of the other.
        assert translated == 3 + 3 + 4

    def test_untranslated_strings_are_null(self):
        gc = Quiz.objects.get(slug=GC)
        assert gc.title_sn is None
        assert gc.title_ind is None
        q3 = Question.objects.get(quiz=gc, position=3)
        assert q3.text_ur is None
        assert q3.explanation_ur is None
        assert set(q3.choices.values_list("text_ur", flat=True)) == {None}
        art = Quiz.objects.get(slug=ART)
        assert art.title_ur is None
        assert Question.objects.get(quiz=art, position=7).text_ind is None

    def test_no_translation_is_an_empty_string(self):
        for model, fields in (
            (Quiz, ("title", "description")),
            (Question, ("text", "explanation")),
            (Choice, ("text",)),
        ):
            for field in fields:
                for language in TRANSLATION_LANGUAGES:
                    assert not model.objects.filter(**{column(field, language): ""}).exists()

    def test_translated_text_differs_from_english_except_code_names(self):
        for choice in Choice.objects.select_related("question__quiz"):
            for language in TRANSLATION_LANGUAGES:
                if getattr(choice, column("text", language)) == choice.text_en:
                    assert choice.text_en.startswith("torch."), choice.text_en


class TestMalformedFixture:
    def test_broken_json(self, content, tmp_path):
        before = rows()
        broken = tmp_path / "broken.json"
        broken.write_text('[{"model": "quizzes.quiz", "fields": {', encoding="utf-8")
        with pytest.raises((CommandError, DeserializationError)) as excinfo:
            call_command("loaddata", *FIXTURE_FILES, str(broken), verbosity=0)
        assert "broken.json" in str(excinfo.value)
        assert rows() == before

    def test_unknown_quiz_natural_key(self, content, tmp_path):
        before = rows()
        orphan = tmp_path / "orphan.json"
        orphan.write_text(
            '[{"model": "quizzes.question", "fields": {"quiz": ["no-such-quiz"], "position": 1,'
            ' "text_en": "Orphan?", "explanation_en": "None."}}]',
            encoding="utf-8",
        )
        with pytest.raises((CommandError, DeserializationError, Quiz.DoesNotExist)) as excinfo:
            call_command("loaddata", str(orphan), verbosity=0)
        assert "orphan.json" in str(excinfo.value)
        assert rows() == before

    def test_failed_load_on_an_empty_database_writes_nothing(self, db, tmp_path):
        broken = tmp_path / "broken.json"
        broken.write_text("not json", encoding="utf-8")
        with pytest.raises((CommandError, DeserializationError)) as excinfo:
            call_command("loaddata", *FIXTURE_FILES, str(broken), verbosity=0)
        assert "broken.json" in str(excinfo.value)
        assert counts() == (0, 0, 0, 0)
