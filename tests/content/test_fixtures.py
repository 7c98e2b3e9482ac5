"""The fixtures: the seed content with a right answer key, loadable twice."""

import json
import re

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.core.serializers.base import DeserializationError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from quizzes.content.languages import TRANSLATION_LANGUAGES, column
from quizzes.content.versions import question_current_version, question_version_content
from quizzes.models import Choice, Course, Question, QuestionVersion, Quiz, QuizContentVersion
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


class TestDerivedRows:
    """What loaddata makes from the rows (versions, the content's version) is made once per
    quiz at the end of the load (quizzes/management/commands/loaddata.py), not per row."""

    def test_a_load_costs_a_few_queries_per_row_and_makes_every_version(self, db):
        with CaptureQueriesContext(connection) as captured:
            call_command("loaddata", *FIXTURE_FILES, verbosity=0)
        loaded = sum(counts())
        assert loaded == 83
        sent = [query["sql"] for query in captured.captured_queries]
        # Per quiz, once: its questions' current versions looked for, their first ones written in
        # one INSERT, and its content's version. (Per row it was about ten, a sync after every
        # save; then two per question.)
        assert sum('"quizzes_questionversion"' in text for text in sent) == 2 * 2
        assert sum('"quizzes_quizcontentversion"' in text for text in sent) == 2
        # The rest is loaddata's own: each row looked up by its natural key, then saved.
        assert len(sent) <= 5.7 * loaded, len(sent)
        for question in Question.objects.all():
            versions = QuestionVersion.objects.filter(question=question)
            assert versions.count() == 1
            current = question_current_version(question.pk)
            content = question_version_content(question)
            assert (current.texts, current.choices, current.correct_choice_id) == (
                content["texts"],
                content["choices"],
                content["correct_choice_id"],
            )
        assert set(QuizContentVersion.objects.values_list("quiz_id", flat=True)) == set(
            Quiz.objects.values_list("pk", flat=True)
        )

    def test_loading_again_makes_no_version_and_an_edit_in_a_load_makes_one(self, content, tmp_path):
        before = {version.pk: version.token for version in QuestionVersion.objects.all()}
        load_fixtures()
        assert {version.pk: version.token for version in QuestionVersion.objects.all()} == before
        question = Question.objects.get(quiz__slug=GC, position=1)
        edited = tmp_path / "edited.json"
        fields = {"quiz": [GC], "position": 1, "text_en": "Edited in a file?", "explanation_en": "Yes."}
        edited.write_text(json.dumps([{"model": "quizzes.question", "fields": fields}]), encoding="utf-8")
        call_command("loaddata", str(edited), verbosity=0)
        assert question_current_version(question.pk).texts["text_en"] == "Edited in a file?"
        assert QuestionVersion.objects.count() == len(before)  # nobody was shown it: rewritten in place

    def test_a_failed_load_makes_no_version(self, db, tmp_path):
        broken = tmp_path / "broken.json"
        broken.write_text("not json", encoding="utf-8")
        with pytest.raises((CommandError, DeserializationError)):
            call_command("loaddata", *FIXTURE_FILES, str(broken), verbosity=0)
        assert not QuestionVersion.objects.exists() and not QuizContentVersion.objects.exists()


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
