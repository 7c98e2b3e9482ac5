"""True-or-false questions: a kind of their own, read and written by the question files, their
two choices in every language in the site's words, never shuffled, and recorded in versions."""

import io
from pathlib import Path

import pytest
from django.db import IntegrityError, transaction
from django.utils import translation

from quizzes.content.problems import content_problems
from quizzes.content.selectors import quiz_content_get
from quizzes.content.translation_status import Status, translation_status
from quizzes.content.true_false import true_false_choices_translate, true_false_word
from quizzes.content.versions import question_current_version
from quizzes.models import Choice, Question, QuestionKind, Quiz
from tests.admin_forms import admin_url
from tests.content.question_files import export, import_file

FILES = Path(__file__).resolve().parent / "files"
TRUE_FALSE_GIFT = (
    "$CATEGORY: $course$/top/Facts\n\n"
    "::Sky:: The sky is blue.{T####It scatters blue light.}\n\n"
    "::Moon:: The moon is a star.{FALSE}\n\n"
    "::Pick:: Pick one.{=a ~b}\n"
)


def words(language: str, value: bool) -> str:
    with translation.override(language):
        return true_false_word(value)


def choices_of(question: Question) -> list[tuple]:
    return [
        (choice.text_en, choice.text_ur, choice.text_sn, choice.text_ind, choice.is_correct)
        for choice in question.choices.order_by("position")
    ]


def expected_choices(right: bool) -> list[tuple]:
    return [
        (*(words(language, value) for language in ("en", "ur", "sn", "id")), value == right) for value in (True, False)
    ]


@pytest.mark.usefixtures("content")
class TestFromGift:
    def test_t_and_f_make_true_or_false_questions_with_every_language(self, tmp_path):
        path = tmp_path / "facts.gift"
        path.write_text(TRUE_FALSE_GIFT, encoding="utf-8")
        import_file(path, "gift")

        sky, moon, pick = Quiz.objects.get(slug="facts").questions.order_by("position")
        assert (sky.kind, moon.kind, pick.kind) == (
            QuestionKind.TRUE_FALSE,
            QuestionKind.TRUE_FALSE,
            QuestionKind.SINGLE,
        )
        assert sky.keep_choice_order and moon.keep_choice_order and not pick.keep_choice_order
        assert choices_of(sky) == expected_choices(right=True)
        assert choices_of(moon) == expected_choices(right=False)
        assert words("ur", True) != "True" and words("sn", False) != "False"  # the catalogue has them
        # The site's words are reviewed ones.
        choice = sky.choices.order_by("position").first()
        assert translation_status(choice, "text", "ur") == Status.REVIEWED

    def test_exported_as_t_and_f_in_every_language_and_a_translation_keeps_its_words(self, tmp_path):
        path = tmp_path / "facts.gift"
        path.write_text(TRUE_FALSE_GIFT, encoding="utf-8")
        import_file(path, "gift")
        urdu = export("facts", "gift", "--language", "ur")
        assert "{\nTRUE\n####" in urdu and "{\nFALSE\n}" in urdu

        sky = Quiz.objects.get(slug="facts").questions.get(position=1)
        before = choices_of(sky)
        (tmp_path / "ur.gift").write_text(urdu, encoding="utf-8")
        import_file(tmp_path / "ur.gift", "gift", "--language", "ur", "--quiz", "facts")
        assert choices_of(sky) == before  # "True" in the file is GIFT's word, not an Urdu text


@pytest.mark.usefixtures("content")
class TestFromMoodleXml:
    def test_moodles_truefalse_questions(self):
        import_file(
            FILES / "moodle" / "nested_categories_with_questions.xml",
            "moodle-xml",
            "--skip-unsupported",
            stderr=io.StringIO(),
        )
        for question in Quiz.objects.get(slug="iota").questions.all():
            assert question.kind == QuestionKind.TRUE_FALSE
            assert choices_of(question) == expected_choices(right=True)

    def test_written_as_moodle_writes_them_and_read_back(self, tmp_path):
        import_file(
            FILES / "moodle" / "nested_categories_with_questions.xml",
            "moodle-xml",
            "--skip-unsupported",
            stderr=io.StringIO(),
        )
        xml = export("iota", "moodle-xml")
        assert xml.count('<question type="truefalse">') == 4
        assert '<answer fraction="100" format="moodle_auto_format">\n      <text>true</text>' in xml
        assert '<answer fraction="0" format="moodle_auto_format">\n      <text>false</text>' in xml
        (tmp_path / "iota.xml").write_text(xml, encoding="utf-8")
        import_file(tmp_path / "iota.xml", "moodle-xml", "--quiz", "iota-again")
        again = Quiz.objects.get(slug="iota-again").questions.order_by("position")
        original = Quiz.objects.get(slug="iota").questions.order_by("position")
        assert [choices_of(question) for question in again] == [choices_of(question) for question in original]
        assert {question.kind for question in again} == {QuestionKind.TRUE_FALSE}

    def test_answers_that_are_not_true_and_false_are_refused(self, tmp_path):
        from tests.content.test_formats_moodle_xml import moodle_file, question

        body = '<answer fraction="100"><text>yes</text></answer><answer fraction="0"><text>no</text></answer>'
        path = moodle_file(tmp_path, question("truefalse", body=body))
        with pytest.raises(Exception, match="answers are “true” and “false”"):
            import_file(path, "moodle-xml")


def test_a_true_or_false_question_never_shuffles_its_choices(gc_quiz):
    question = gc_quiz.questions.get(position=1)
    with pytest.raises(IntegrityError), transaction.atomic():
        Question.objects.filter(pk=question.pk).update(kind=QuestionKind.TRUE_FALSE, keep_choice_order=False)


def test_its_kind_is_recorded_in_a_new_version(gc_quiz):
    question = gc_quiz.questions.get(position=1)
    before = question_current_version(question.pk)
    question.kind, question.keep_choice_order = QuestionKind.TRUE_FALSE, True
    question.save()
    after = question_current_version(question.pk)
    assert (before.kind, after.kind) == (QuestionKind.SINGLE, QuestionKind.TRUE_FALSE)


def test_the_site_words_fill_only_what_a_language_lacks(gc_quiz):
    question = gc_quiz.questions.get(position=2)
    question.choices.all().delete()
    question.kind, question.keep_choice_order = QuestionKind.TRUE_FALSE, True
    question.save()
    Choice.objects.create(question=question, position=1, text_en="True", text_sn="Ndizvo", is_correct=True)
    Choice.objects.create(question=question, position=2, text_en="false")
    assert true_false_choices_translate(question) == 2
    first, second = question.choices.order_by("position")
    assert first.text_sn == "Ndizvo"  # the editor's word stays
    assert (first.text_ur, second.text_ur, second.text_ind) == (
        words("ur", True),
        words("ur", False),
        words("id", False),
    )
    assert true_false_choices_translate(question) == 0


class TestInTheAdmin:
    def test_an_editor_makes_a_question_true_or_false(self, editor_client, gc_quiz):
        from tests.admin.test_admin import _question_form_data

        question = gc_quiz.questions.get(position=2)
        data = _question_form_data(question)
        data.update({"kind": QuestionKind.TRUE_FALSE, "choices-TOTAL_FORMS": 4})
        response = editor_client.post(admin_url("quizzes_question_change", question.pk), data)
        assert response.status_code == 200
        assert "“True” then “False”" in response.content.decode()

        question.choices.exclude(position__in=(1, 2)).delete()  # as if the editor deleted the other two
        data = _question_form_data(question, correct=(False, True))
        data.update({"kind": QuestionKind.TRUE_FALSE, "choices-0-text_en": "True", "choices-1-text_en": "False"})
        for index in (0, 1):
            for language in ("ur", "sn", "ind"):
                data[f"choices-{index}-text_{language}"] = ""
        response = editor_client.post(admin_url("quizzes_question_change", question.pk), data)
        assert response.status_code == 302, response.context and response.context["errors"]
        question.refresh_from_db()
        assert question.kind == QuestionKind.TRUE_FALSE and question.keep_choice_order  # set by the form
        assert choices_of(question) == expected_choices(right=False)


def test_a_true_or_false_question_with_other_choices_is_a_problem(gc_quiz):
    """As the admin refuses it: content that came another way (a seed file, the shell) is caught
    before the quiz is published (validate_content, the admin's publish check)."""
    question = gc_quiz.questions.get(position=1)
    Question.objects.filter(pk=question.pk).update(kind=QuestionKind.TRUE_FALSE, keep_choice_order=True)
    codes = [(problem.question, problem.code) for problem in content_problems([quiz_content_get(slug=gc_quiz.slug)])]
    assert (1, "true_false_choices") in codes

    question.choices.all().delete()
    Choice.objects.create(question=question, position=1, text_en="True", is_correct=True)
    Choice.objects.create(question=question, position=2, text_en="False")
    codes = [(problem.question, problem.code) for problem in content_problems([quiz_content_get(slug=gc_quiz.slug)])]
    assert (1, "true_false_choices") not in codes
