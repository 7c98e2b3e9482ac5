"""Moodle XML: every language out and back in, a file from Moodle, and what is refused."""

import io
from pathlib import Path

import pytest
from django.core.management import CommandError

from quizzes.models import Choice, Question, Quiz
from tests.content.question_files import (
    ART,
    GC,
    all_rows,
    assert_refused,
    export,
    import_file,
    quiz_content,
)
from tests.factories import AnswerFactory, AttemptFactory

FILES = Path(__file__).resolve().parent / "files"

QUESTION = """
  <question type="{type}">
    <name><text>{name}</text></name>
    <questiontext format="html"><text>What is it?</text></questiontext>
    {body}
  </question>"""
ANSWERS = """<answer fraction="100"><text>Right</text></answer>
    <answer fraction="0"><text>Wrong</text></answer>"""


def moodle_file(tmp_path, *questions: str, name: str = "questions.xml") -> Path:
    path = tmp_path / name
    body = "".join(questions)
    path.write_text(f'<?xml version="1.0" encoding="UTF-8"?>\n<quiz>{body}\n</quiz>\n', encoding="utf-8")
    return path


def question(kind: str = "multichoice", name: str = "Q", body: str = ANSWERS) -> str:
    return QUESTION.format(type=kind, name=name, body=body)


@pytest.mark.usefixtures("content")
class TestRoundTrip:
    @pytest.mark.parametrize("slug", [GC, ART])
    def test_export_then_import_as_a_new_quiz_keeps_every_language(self, tmp_path, slug):
        path = tmp_path / f"{slug}.xml"
        path.write_text(export(slug, "moodle-xml"), encoding="utf-8")

        output = import_file(path, "moodle-xml", "--quiz", "copy")

        assert "Created quiz copy (unpublished)" in output
        copy = Quiz.objects.get(slug="copy")
        assert not copy.is_published
        assert quiz_content("copy") == quiz_content(slug)

    def test_export_holds_every_language_in_multilang_form(self):
        xml = export(GC, "moodle-xml")
        assert xml.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<quiz>')
        assert '&lt;span lang="ur" class="multilang"&gt;' in xml
        assert '&lt;span lang="sn" class="multilang"&gt;' in xml
        assert "<single>true</single>" in xml
        assert xml.count('<question type="multichoice">') == 8
        assert xml.count('fraction="100"') == 8
        assert "<generalfeedback" in xml

    def test_import_into_the_quiz_restores_a_lost_language(self, tmp_path):
        expected = quiz_content(ART)
        path = tmp_path / "art.xml"
        path.write_text(export(ART, "moodle-xml"), encoding="utf-8")
        Question.objects.filter(quiz__slug=ART).update(text_ind=None, explanation_ind=None)
        Choice.objects.filter(question__quiz__slug=ART).update(text_ind=None)
        assert quiz_content(ART) != expected

        output = import_file(path, "moodle-xml", "--quiz", ART)

        assert output.startswith("Imported the ")
        assert quiz_content(ART) == expected

    def test_importing_twice_changes_nothing(self, tmp_path):
        path = tmp_path / "gc.xml"
        path.write_text(export(GC, "moodle-xml"), encoding="utf-8")
        import_file(path, "moodle-xml", "--quiz", GC)
        before = all_rows()
        import_file(path, "moodle-xml", "--quiz", GC)
        assert all_rows() == before

    def test_keep_choice_order_is_shuffleanswers_0(self, tmp_path):
        Question.objects.filter(quiz__slug=ART, position=2).update(keep_choice_order=True)
        xml = export(ART, "moodle-xml")
        assert xml.count("<shuffleanswers>0</shuffleanswers>") == 1
        path = tmp_path / "art.xml"
        path.write_text(xml, encoding="utf-8")
        import_file(path, "moodle-xml", "--quiz", "copy")
        assert list(
            Question.objects.filter(quiz__slug="copy", keep_choice_order=True).values_list("position", flat=True)
        ) == [2]

    def test_language_is_not_taken(self):
        with pytest.raises(CommandError, match="leave out --language"):
            export(GC, "moodle-xml", "--language", "ur")

    def test_output_file(self, tmp_path):
        path = tmp_path / "out.xml"
        export(GC, "moodle-xml", "-o", str(path))
        assert path.read_text(encoding="utf-8") == export(GC, "moodle-xml")


@pytest.mark.usefixtures("content")
class TestFileFromMoodle:
    def test_a_moodle_export_with_category_multilang_entities_and_cdata(self):
        output = import_file(FILES / "moodle_export.xml", "moodle-xml")

        assert "Created quiz memory-compute (unpublished)" in output
        quiz = Quiz.objects.get(slug="memory-compute")
        assert (quiz.title_en, quiz.title_ur) == ("Memory & Compute", "میموری اور کمپیوٹ")
        assert quiz.description_en == "Questions from the spring term."
        first, second, third = quiz.questions.order_by("position")
        assert first.text_en == "What does recomputation trade for <lower> memory use?"
        assert first.text_ur == "کم میموری کے لیے دوبارہ گنتی کیا دیتی ہے؟"
        assert first.text_sn is None  # no Shona in the file; French is not a language here
        assert first.explanation_en == "It spends extra compute."
        assert [(c.text_en, c.text_ur, c.is_correct) for c in first.choices.order_by("position")] == [
            ("Extra compute", "اضافی کمپیوٹ", True),
            ("Model accuracy", "ماڈل کی درستگی", False),  # a penalty is a wrong answer
            ("Disk space & bandwidth", None, False),
        ]
        # multilang2's {mlang} form, shuffleanswers 0
        assert (second.text_en, second.text_ind) == (
            "Which PyTorch function checkpoints a segment?",
            "Fungsi PyTorch mana yang melakukan checkpoint?",
        )
        assert second.keep_choice_order
        assert [c.is_correct for c in second.choices.order_by("position")] == [False, True]
        # true/false: two choices
        assert third.text_en == "Checkpointing changes the gradients' values."
        assert [(c.text_en, c.is_correct) for c in third.choices.order_by("position")] == [
            ("True", False),
            ("False", True),
        ]

    def test_without_category_the_title_is_the_file_name(self, tmp_path):
        path = moodle_file(tmp_path, question(), question(name="Second"), name="Week 3.xml")
        import_file(path, "moodle-xml")
        quiz = Quiz.objects.get(slug="week-3")
        assert quiz.title_en == "Week 3"
        assert quiz.questions.count() == 2


@pytest.mark.usefixtures("content")
class TestRefused:
    @pytest.mark.parametrize(
        ("kind", "body", "match"),
        [
            ("essay", "", "questions of type essay cannot be imported"),
            ("matching", "<subquestion><text>a</text><answer><text>b</text></answer></subquestion>", "type matching"),
            ("shortanswer", '<answer fraction="100"><text>x</text></answer>', "type shortanswer"),
            ("multichoice", "<single>false</single>" + ANSWERS, "multiple-answer questions"),
            (
                "multichoice",
                '<answer fraction="50"><text>Half</text></answer><answer fraction="50"><text>Half</text></answer>',
                "partial credit (fraction 50)",  # named at the answer's line
            ),
            (
                "multichoice",
                '<answer fraction="0"><text>a</text></answer><answer fraction="0"><text>b</text></answer>',
                "no answer is marked right",
            ),
            ("multichoice", '<answer fraction="100"><text>only</text></answer>', "at least two answers"),
        ],
    )
    def test_unsupported_questions_named_with_their_line(self, tmp_path, kind, body, match):
        path = moodle_file(tmp_path, question(name="Fine"), question(kind, name="The bad one", body=body))
        line = 12 if "partial" in match else 9  # the answer's line, or the question's
        message = assert_refused(path, "moodle-xml", line=line, match=match)
        assert "question 2 (“The bad one”)" in message

    def test_malformed_xml(self, tmp_path):
        path = tmp_path / "broken.xml"
        path.write_text('<?xml version="1.0"?>\n<quiz>\n  <question type="multichoice">\n  </quiz>\n', encoding="utf-8")
        assert_refused(path, "moodle-xml", line=4, match="not well-formed XML")

    def test_markup_that_cannot_be_shown(self, tmp_path):
        body = '<answer fraction="100"><text><![CDATA[<img src="x.png">]]></text></answer>' + ANSWERS
        path = moodle_file(tmp_path, question(name="Picture", body=body))
        assert_refused(path, "moodle-xml", line=6, match="HTML element <img> cannot be imported")

    def test_an_entity_bomb(self, tmp_path):
        path = tmp_path / "bomb.xml"
        path.write_text(
            '<?xml version="1.0"?>\n<!DOCTYPE quiz [\n<!ENTITY a "aaaaaaaaaa">\n<!ENTITY b "&a;&a;&a;&a;&a;">\n]>\n'
            "<quiz>&b;</quiz>\n",
            encoding="utf-8",
        )
        assert_refused(path, "moodle-xml", line=3, match="entity declarations are refused")

    def test_a_translation_without_english(self, tmp_path):
        text = '<![CDATA[<span lang="ur" class="multilang">کیا؟</span>]]>'
        body = f'<answer fraction="100"><text>{text}</text></answer><answer fraction="0"><text>b</text></answer>'
        path = moodle_file(tmp_path, question(name="Urdu only", body=body))
        assert_refused(path, "moodle-xml", line=6, match="no English")

    def test_not_a_quiz(self, tmp_path):
        path = tmp_path / "other.xml"
        path.write_text("<questions/>", encoding="utf-8")
        assert_refused(path, "moodle-xml", line=1, match="<quiz>")

    def test_a_different_shape_into_an_existing_quiz(self, tmp_path):
        path = moodle_file(tmp_path, question(), question())
        assert_refused(path, "moodle-xml", "--quiz", GC, line=13, match="the quiz has 8 questions")

    def test_a_new_key_for_an_answered_question(self, tmp_path):
        path = tmp_path / "gc.xml"
        path.write_text(first_key_moved_to_its_second_choice(export(GC, "moodle-xml")), encoding="utf-8")
        question_1 = Question.objects.get(quiz__slug=GC, position=1)
        attempt = AttemptFactory(quiz=question_1.quiz)
        AnswerFactory(attempt=attempt, question=question_1, choice=question_1.choices.get(position=1))
        message = assert_refused(path, "moodle-xml", "--quiz", GC, line=11, match="students have answered")
        assert "question 1 (“1. What does gradient checkpointing" in message

    def test_a_new_key_for_a_question_nobody_answered_is_written(self, tmp_path):
        path = tmp_path / "gc.xml"
        path.write_text(first_key_moved_to_its_second_choice(export(GC, "moodle-xml")), encoding="utf-8")
        import_file(path, "moodle-xml", "--quiz", GC)
        question_1 = Question.objects.get(quiz__slug=GC, position=1)
        key = list(question_1.choices.order_by("position").values_list("is_correct", flat=True))
        assert key == [False, True, False, False]


def first_key_moved_to_its_second_choice(xml: str) -> str:
    """Question 1 of the export (right answer first) with its second choice right instead."""
    right = xml.index('fraction="100"')
    wrong = xml.index('fraction="0"', right)
    return xml[:right] + 'fraction="0"' + xml[right + 14 : wrong] + 'fraction="100"' + xml[wrong + 12 :]


@pytest.mark.usefixtures("content")
def test_a_file_without_general_feedback_keeps_the_explanations(tmp_path):
    xml = export(ART, "moodle-xml")
    path = tmp_path / "art.xml"
    start, end = xml.index("<generalfeedback"), xml.index("</generalfeedback>") + len("</generalfeedback>")
    path.write_text(xml[:start] + xml[end:], encoding="utf-8")
    before = all_rows()
    import_file(path, "moodle-xml", "--quiz", ART)
    assert all_rows() == before


@pytest.mark.usefixtures("content")
class TestRealBankWithAnEssay:
    """Moodle's own export of four true/false questions and an essay
    (tests/content/files/moodle/README.md)."""

    PATH = FILES / "moodle" / "nested_categories_with_questions.xml"

    def test_refused_whole_by_default(self):
        assert_refused(
            self.PATH, "moodle-xml", line=55, match="question 2 (“Kappa Essay Question”): questions of type essay"
        )

    def test_with_skip_unsupported_the_true_false_ones_are_imported(self):
        err = io.StringIO()
        output = import_file(self.PATH, "moodle-xml", "--skip-unsupported", stderr=err)
        quiz = Quiz.objects.get(slug="iota")
        assert [question.text_en for question in quiz.questions.order_by("position")] == [
            f"Testing {name} Question" for name in ("Iota", "Kappa", "Lambda", "Mu")
        ]
        for question in quiz.questions.all():
            assert [(c.text_en, c.is_correct) for c in question.choices.order_by("position")] == [
                ("True", True),
                ("False", False),
            ]
        assert err.getvalue() == (
            f"{self.PATH}:55: skipped (essay): question 2 (“Kappa Essay Question”): questions of type essay "
            "cannot be imported; only single-answer multiple choice and true/false\n"
        )
        assert "1 question skipped" in output
