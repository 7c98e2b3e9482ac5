"""Translation memory: current translations offered for identical and similar English,
best first; stale, missing and the edited row's own never; reviewed pairs as TMX."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from translate.storage.tmx import tmxfile

from quizzes.content.translation_memory import tmx_export, translation_suggestions
from quizzes.content.translation_status import Status, translations_stamp
from quizzes.models import Question
from tests.factories import ChoiceFactory, QuestionFactory, QuizFactory

pytestmark = pytest.mark.django_db

ENGLISH = "What does gradient checkpointing trade to save memory?"
SIMILAR = "What does gradient checkpointing trade to save GPU memory?"


def question(english, urdu="", *, state=Status.TRANSLATED, **values):
    obj = QuestionFactory(text_en=english, text_ur=urdu, **values)
    translations_stamp(obj, state=state)
    obj.save()
    return obj


def test_identical_english_scores_100_and_says_where():
    source = question(ENGLISH, "یادداشت بچانے کے لیے")
    (suggestion,) = translation_suggestions(ENGLISH, "ur")
    assert suggestion.translation == "یادداشت بچانے کے لیے"
    assert suggestion.english == ENGLISH
    assert suggestion.score == 100
    assert suggestion.state == Status.TRANSLATED
    assert suggestion.where == f"Quiz “{source.quiz.title_en}”, question {source.position}"


def test_similar_english_scored_below_100_and_unrelated_left_out():
    question(SIMILAR, "ملتا جلتا")
    question("Which optimizer keeps two moments per parameter?", "غیر متعلق")
    (suggestion,) = translation_suggestions(ENGLISH, "ur")
    assert suggestion.translation == "ملتا جلتا"
    assert 60 <= suggestion.score < 100


def test_choices_and_quiz_titles_are_sources_in_the_language_asked():
    choice = ChoiceFactory(text_en="Compute for memory", text_ur="حساب بمقابلہ یادداشت", text_sn="Komputa")
    translations_stamp(choice)
    choice.save()
    quiz = QuizFactory(title_en="Compute for memory", title_sn="Komputa yekuyeuka")
    translations_stamp(quiz)
    quiz.save()
    assert [s.translation for s in translation_suggestions("Compute for memory", "ur")] == ["حساب بمقابلہ یادداشت"]
    assert sorted(s.translation for s in translation_suggestions("Compute for memory", "sn")) == [
        "Komputa",
        "Komputa yekuyeuka",
    ]
    where = {s.translation: s.where for s in translation_suggestions("Compute for memory", "sn")}
    assert where["Komputa"].endswith(f"question {choice.question.position}, choice {choice.position}")


def test_stale_and_missing_translations_are_not_suggested():
    stale = question(ENGLISH, "پرانا ترجمہ")
    stale.text_en = "What did gradient checkpointing trade to save memory?"
    stale.save()  # the English changed after the Urdu was written
    QuestionFactory(text_en=ENGLISH, text_ur="")  # missing
    assert translation_suggestions(ENGLISH, "ur") == []


def test_the_edited_rows_own_translation_is_excluded():
    own = question(ENGLISH, "اپنا")
    other = question(ENGLISH, "دوسرا")
    found = translation_suggestions(ENGLISH, "ur", exclude=(type(own), own.pk))
    assert [s.translation for s in found] == ["دوسرا"]
    assert other.pk != own.pk


def test_order_is_identical_then_score_then_reviewed_translated_machine():
    question(ENGLISH, "مشینی", state=Status.MACHINE)
    question(ENGLISH, "شخصی", state=Status.TRANSLATED)
    question(ENGLISH, "جانچا ہوا", state=Status.REVIEWED)
    question(SIMILAR, "ملتا جلتا", state=Status.REVIEWED)
    found = translation_suggestions(ENGLISH, "ur")
    assert [(s.translation, s.state) for s in found] == [
        ("جانچا ہوا", Status.REVIEWED),
        ("شخصی", Status.TRANSLATED),
        ("مشینی", Status.MACHINE),
        ("ملتا جلتا", Status.REVIEWED),
    ]
    assert [s.score for s in found][:3] == [100, 100, 100]
    assert translation_suggestions(ENGLISH, "ur", limit=2) == found[:2]


def test_identical_pairs_are_offered_once_with_their_best_state():
    question(ENGLISH, "ایک", state=Status.MACHINE)
    question(ENGLISH, "ایک", state=Status.REVIEWED)
    (suggestion,) = translation_suggestions(ENGLISH, "ur")
    assert suggestion.state == Status.REVIEWED


def test_queries_are_one_per_model_whatever_the_content(content, django_assert_max_num_queries):
    for n in range(30):
        question(f"{ENGLISH} ({n})", f"ترجمہ {n}")
    with django_assert_max_num_queries(4):
        found = translation_suggestions(ENGLISH, "ur", limit=50)
    assert len(found) >= 30


def test_fixture_content_suggests_its_own_translations(content):
    first = Question.objects.exclude(text_ur="").order_by("pk").first()
    best = translation_suggestions(first.text_en, "ur")[0]
    assert (best.translation, best.score) == (first.text_ur.strip(), 100)
    others = translation_suggestions(first.text_en, "ur", exclude=(Question, first.pk))
    assert all(s.translation != first.text_ur.strip() or s.score < 100 for s in others)


def test_empty_english_has_no_suggestions():
    question(ENGLISH, "ترجمہ")
    assert translation_suggestions("  ", "ur") == []


# TMX ------------------------------------------------------------------------------------


def test_tmx_holds_exactly_the_reviewed_pairs_once():
    quiz = QuizFactory()
    question(ENGLISH, "جانچا ہوا", state=Status.REVIEWED, quiz=quiz)
    question(ENGLISH, "جانچا ہوا", state=Status.REVIEWED, quiz=quiz)  # the same pair again
    question("Which optimizer keeps two moments?", "دوسرا جانچا", state=Status.REVIEWED)  # another quiz
    question("Translated, not reviewed", "صرف ترجمہ", state=Status.TRANSLATED, quiz=quiz)
    question("Machine-made", "مشینی", state=Status.MACHINE, quiz=quiz)
    stale = question("Reviewed, then reworded", "پرانا", state=Status.REVIEWED, quiz=quiz)
    stale.text_en = "Reworded since the review"
    stale.save()

    store = tmxfile.parsestring(tmx_export(language="ur"))
    pairs = sorted((unit.source, unit.target) for unit in store.units)
    assert pairs == [(ENGLISH, "جانچا ہوا"), ("Which optimizer keeps two moments?", "دوسرا جانچا")]

    one_quiz = tmxfile.parsestring(tmx_export(language="ur", quiz=quiz))
    assert [(unit.source, unit.target) for unit in one_quiz.units] == [(ENGLISH, "جانچا ہوا")]


def test_tmx_names_the_languages_indonesian_as_id():
    choice = ChoiceFactory(text_en="Memory", text_ind="Memori")
    translations_stamp(choice, state=Status.REVIEWED)
    choice.save()
    data = tmx_export(language="id")
    assert b'xml:lang="id"' in data and b'xml:lang="en"' in data
    store = tmxfile.parsestring(data)
    assert [(unit.source, unit.target) for unit in store.units] == [("Memory", "Memori")]


def test_export_translations_writes_the_tmx(tmp_path):
    quiz = QuizFactory()
    question(ENGLISH, "جانچا ہوا", state=Status.REVIEWED, quiz=quiz)
    question("Translated, not reviewed", "صرف ترجمہ", state=Status.TRANSLATED, quiz=quiz)
    path = tmp_path / "memory.tmx"

    call_command("export_translations", "--format", "tmx", "--language", "ur", "-o", str(path))
    assert [(unit.source, unit.target) for unit in tmxfile.parsestring(path.read_bytes()).units] == [
        (ENGLISH, "جانچا ہوا")
    ]
    out = StringIO()
    call_command("export_translations", quiz.slug, "--format", "tmx", "--language", "ur", stdout=out)
    assert out.getvalue().encode() == tmx_export(language="ur", quiz=quiz)


def test_export_translations_needs_a_quiz_for_xliff_and_po():
    with pytest.raises(CommandError, match="slug"):
        call_command("export_translations", "--format", "po", "--language", "ur")
