"""Content round trips with question versions: loading the fixtures again, exporting and
importing leave the versions as they are unless the content changed.

Students have answered the seed quiz in these tests, so that every current version is held
by a layout and any change would make a new one.
"""

import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from quizzes.attempts.services import attempt_answer_submit, attempt_start
from quizzes.models import Question, QuestionVersion, Quiz
from tests.conftest import SEEDS_DIR, load_fixtures

GC = "gradient-checkpointing"
ART = "activation-recomputation-tradeoffs"
URDU_SEED = "000_7cee97ce0cfcf411.txt"
SEEDS = [
    (URDU_SEED, GC, "ur"),
    ("001_b650afde84ce20b7.txt", GC, "sn"),
    ("002_b53ae698afd757eb.txt", ART, "id"),
    ("003_eecdd2a81399f9d5.txt", ART, "en"),
]


def versions() -> list[dict]:
    return list(QuestionVersion.objects.order_by("pk").values())


def export(slug: str, language: str) -> bytes:
    buf = io.StringIO()
    call_command("export_quiz", slug, language=language, stdout=buf)
    return buf.getvalue().encode("utf-8")


def import_quiz(path, language: str, slug: str) -> None:
    call_command("import_quiz", str(path), "--language", language, "--quiz", slug, stdout=io.StringIO())


def answered_by(student, slug: str) -> None:
    """``student`` starts ``slug`` and answers every question (their layout holds every version)."""
    quiz = Quiz.objects.get(slug=slug)
    attempt, _created = attempt_start(user=student, quiz=quiz)
    for question in Question.objects.filter(quiz=quiz, is_archived=False):
        choice = question.choices.first()
        attempt_answer_submit(
            user=student, attempt_id=attempt.pk, question_id=question.pk, choice_id=choice.pk, language="ur"
        )


@pytest.fixture
def answered(student):
    for slug in (GC, ART):
        answered_by(student, slug)
    return student


@pytest.mark.django_db
def test_loading_the_fixtures_again_leaves_the_versions_as_they_are():
    load_fixtures()
    first = versions()
    assert len(first) == Question.objects.count() == 16
    assert {version["number"] for version in first} == {1}
    load_fixtures()
    assert versions() == first


def test_loading_the_fixtures_after_answers_makes_no_version(answered):
    before = versions()
    load_fixtures()
    assert versions() == before


@pytest.mark.usefixtures("answered")
@pytest.mark.parametrize(("filename", "slug", "language"), SEEDS)
def test_export_still_gives_each_seed_file(filename, slug, language):
    assert export(slug, language) == (SEEDS_DIR / filename).read_bytes()


@pytest.mark.usefixtures("answered")
def test_export_gives_the_current_version_after_an_edit_and_its_undoing():
    question = Question.objects.get(quiz__slug=GC, position=2)
    original = question.text_ur
    question.text_ur = "ایک ترمیم؟"
    question.save()
    assert "\n2. ایک ترمیم؟\n" in export(GC, "ur").decode()
    question.text_ur = original
    question.save()
    # Version 2 was held by nobody: it was rewritten in place, back to what version 1 holds.
    numbers = list(QuestionVersion.objects.filter(question=question).values_list("number", flat=True))
    assert numbers == [1, 2]
    assert export(GC, "ur") == (SEEDS_DIR / URDU_SEED).read_bytes()


def edited_seed(tmp_path, edit) -> Path:
    lines = (SEEDS_DIR / URDU_SEED).read_text(encoding="utf-8").split("\n")
    edit(lines)
    path = tmp_path / "edited.txt"
    path.write_bytes("\n".join(lines).encode("utf-8"))
    return path


NEW_URDU_TEXT = "2. ایکٹیویشنز فارورڈ پاس میں کیوں رکھی جاتی ہیں؟"


def retranslate_question_2(lines: list[str]) -> None:
    assert lines[9].startswith("2. ")
    lines[9] = NEW_URDU_TEXT


def test_import_of_a_translation_versions_only_the_questions_it_changed(answered, tmp_path):
    before = {version["id"]: version for version in versions()}
    import_quiz(edited_seed(tmp_path, retranslate_question_2), "ur", GC)

    question_2 = Question.objects.get(quiz__slug=GC, position=2)
    assert question_2.text_ur == NEW_URDU_TEXT[3:]
    after = versions()
    new = [version for version in after if version["id"] not in before]
    assert [(version["question_id"], version["number"]) for version in new] == [(question_2.pk, 2)]
    # Every other version as it was, version 1 of question 2 included.
    assert [version for version in after if version["id"] in before] == list(before.values())
    (version_2,) = new
    assert version_2["texts"]["text_ur"] == NEW_URDU_TEXT[3:]
    # Only the Urdu reader's text changed: a fresh translation revision in Urdu alone.
    revisions = version_2["revisions"]
    assert (revisions["ur"]["question"], revisions["ur"]["texts"]["text"]) == (2, 2)
    assert revisions["ur"]["texts"]["explanation"] == 1
    assert {revisions[language]["question"] for language in ("en", "sn", "id")} == {1}

    # Importing the same file again changes nothing.
    import_quiz(edited_seed(tmp_path, retranslate_question_2), "ur", GC)
    assert versions() == after


def test_a_failing_import_makes_no_version(answered, tmp_path):
    def retranslate_then_break(lines):
        retranslate_question_2(lines)
        lines += ["9. A ninth question?", "   \u2022 a", "   \u2022 b"]

    before = versions()
    texts = list(Question.objects.order_by("pk").values("pk", "text_ur"))
    with pytest.raises(CommandError, match=":45:"):
        import_quiz(edited_seed(tmp_path, retranslate_then_break), "ur", GC)
    assert versions() == before
    assert list(Question.objects.order_by("pk").values("pk", "text_ur")) == texts
