# The cases are about Urdu punctuation and dashes, which ruff takes for confusables.
# ruff: noqa: RUF001
"""The translation checks: each check on its own, a PO file built to have each problem, the shipped
fixtures, and the places that show the problems (validate_content, the admin)."""

from pathlib import Path

import pytest
from translate.storage.po import pofile

from quizzes.content.problems import content_warnings
from quizzes.content.translation_checks import translation_problems
from quizzes.models import Choice, Question, Quiz
from tests.admin.test_safe_edits import question_post_data
from tests.admin_forms import admin_url
from tests.conftest import html_tree
from tests.content.test_validate_content import WARNING, run_validate

LRI, PDI, LRM = "\u2066", "\u2069", "\u200e"
PO_FILE = Path(__file__).parent / "files" / "translation_checks_ur.po"


def codes(english: str, translation: str, language: str = "ur") -> list[str]:
    return [problem.code for problem in translation_problems(english, translation, language)]


class TestCodeAndNumbers:
    def test_dotted_name_kept(self):
        assert codes("Use torch.utils.checkpoint here.", "Tumia torch.utils.checkpoint pano.", "sn") == []

    def test_dotted_name_changed(self):
        problems = translation_problems("Use torch.utils.checkpoint here.", "Tumia torch.checkpoint pano.", "sn")
        assert [problem.code for problem in problems] == ["code_missing"]
        assert "“torch.utils.checkpoint”" in problems[0].message

    @pytest.mark.parametrize("code", ["sqrt(N)", "O(N log N)", "empty_cache", "10^9", "`x.grad`", "camelCase"])
    def test_each_kind_of_code_token(self, code):
        assert codes(f"The cost is {code} now.", "Mtengo ndi wamkulu tsopano.", "sn") == ["code_missing"]
        assert codes(f"The cost is {code} now.", f"Mtengo ndi {code} tsopano.", "sn") == []

    def test_number_missing(self):
        problems = translation_problems("It saves 60% of memory.", "Inahifadhi kumbukumbu nyingi.", "id")
        assert [problem.code for problem in problems] == ["number_missing"]
        assert "“60%”" in problems[0].message

    def test_range_with_another_dash(self):
        assert codes("About 20–30% slower.", "Sekitar 20-30% lebih lambat.", "id") == []
        assert codes("About 20–30% slower.", "Sekitar 20% lebih lambat.", "id") == ["number_missing"]

    def test_separators_of_the_language(self):
        assert codes("It holds 1,000.5 MB.", "Ia menyimpan 1.000,5 MB.", "id") == []
        assert codes("It takes 20 % more.", "Inachukua 20% zaidi.", "sn") == []
        assert codes("It holds 1,000 MB.", "Ia menyimpan 100 MB.", "id") == ["number_missing"]

    def test_urdu_digits_and_percent_sign(self):
        assert codes("About 20–30% slower.", "تقریباً ۲۰–۳۰٪ سست۔") == []
        assert codes("About 20–30% slower.", "تقریباً ۲۰–۴۰٪ سست۔") == ["number_missing"]


class TestUntranslated:
    def test_identical_prose(self):
        assert codes("Model accuracy for speed", "Model accuracy for speed", "sn") == ["untranslated"]

    def test_code_only_text_may_be_identical(self):
        assert codes("O(N)", "O(N)", "ur") == []
        assert codes("torch.utils.checkpoint", "torch.utils.checkpoint", "sn") == []

    def test_mostly_english_words(self):
        english = "Extra compute for lower memory use"
        assert codes(english, "Extra compute for lower memory kwazvo", "sn") == ["untranslated"]
        assert codes(english, "Komputasi ekstra untuk memori yang lebih rendah", "id") == []

    def test_latin_prose_left_in_urdu(self):
        english = "Extra compute for lower memory use."
        assert codes(english, f"یہ {LRI}extra compute for lower{PDI} ہے۔") == ["untranslated"]
        assert codes("In PyTorch, which one?", "PyTorch میں، کون سا؟") == []


class TestBracketsAndEndPunctuation:
    def test_unmatched_bracket(self):
        problems = translation_problems("Extra (recomputation) cost.", "Mari yakawedzera (kuverenga.", "sn")
        assert [problem.code for problem in problems] == ["brackets"]
        assert "“(”" in problems[0].message

    def test_unmatched_quote(self):
        assert codes("Press “run” now.", "Dinda “run sasa.", "sn") == ["brackets"]

    def test_matched_brackets(self):
        assert codes("Extra (recomputation) cost.", "Mari (kuverenga) yakawedzera.", "sn") == []

    def test_urdu_question_and_full_stop(self):
        assert codes("Why?", "کیوں؟") == []
        assert codes("Done.", "ہو گیا۔") == []
        assert codes("Why?", "کیوں۔") == ["endpunc"]

    def test_latin_question_mark_in_shona(self):
        assert codes("Why is it stored?", "Sei ichichengetwa?", "sn") == []
        assert codes("Why is it stored?", "Sei ichichengetwa.", "sn") == ["endpunc"]

    def test_full_stop_added(self):
        problems = translation_problems("Model accuracy for speed", "رفتار کے لیے ماڈل کی درستگی۔", "ur")
        assert [problem.code for problem in problems] == ["endpunc"]
        assert "no end punctuation" in problems[0].message


class TestBidiIsolation:
    english = "Call checkpoint() on it."

    def test_unmarked_call(self):
        problems = translation_problems(self.english, "اس پر checkpoint() کال کریں۔", "ur")
        assert [problem.code for problem in problems] == ["bidi_unmarked"]
        assert "“checkpoint()”" in problems[0].message

    @pytest.mark.parametrize(
        "marked", [f"{LRI}checkpoint(){PDI}", "\u202acheckpoint()\u202c", f"{LRM}checkpoint(){LRM}"]
    )
    def test_isolated_call(self, marked):
        assert codes(self.english, f"اس پر {marked} کال کریں۔") == []

    def test_bare_word_needs_nothing(self):
        assert codes("In PyTorch, which?", "PyTorch میں، کون سا؟") == []

    def test_word_in_brackets_needs_nothing(self):
        assert codes("Extra compute (recomputation).", "اضافی کمپیوٹ (recomputation)۔") == []

    def test_not_for_latin_script_languages(self):
        assert codes(self.english, "Ita checkpoint() pairi.", "sn") == []

    def test_code_only_urdu_text(self):
        assert codes("torch.utils.checkpoint", "torch.utils.checkpoint") == []


def _expected(unit) -> list[str]:
    note = unit.getnotes("developer").strip()
    assert note.startswith("expect: ")
    found = note.removeprefix("expect: ").split()
    return [] if found == ["none"] else found


def test_po_file_has_each_problem():
    store = pofile(PO_FILE.read_bytes())
    units = [unit for unit in store.units if not unit.isheader()]
    expected = {code for unit in units for code in _expected(unit)}
    assert expected == {"code_missing", "number_missing", "untranslated", "brackets", "endpunc", "bidi_unmarked"}
    assert any(_expected(unit) == [] for unit in units)
    for unit in units:
        assert codes(unit.source, unit.target, store.gettargetlanguage()) == _expected(unit), unit.getcontext()


# The shipped content -------------------------------------------------------------------------

GC = "gradient-checkpointing"
UNMARKED = "The Urdu translation of explanation: “%s” is not marked to run left to right (wrap it in U+2066 … U+2069)."
# What the checks find in the fixtures today: their Urdu wraps no code in isolates, and one
# choice gained a full stop its English lacks.
SHIPPED_WARNINGS = [
    *(
        f"{GC} #5: " + UNMARKED % code
        for code in (
            "torch.utils.checkpoint",
            "checkpoint()",
            "checkpoint_sequential()",
            "torch.optim.SGD",
            "torch.nn.Dropout",
            "torch.cuda.empty_cache",
        )
    ),
    f"{GC} #2: The Urdu translation of choice 2: The translation ends with “۔”; the English has no end punctuation.",
]


def check_warnings() -> list[str]:
    return [str(warning) for warning in content_warnings() if warning.code == "translation_check"]


@pytest.mark.usefixtures("content")
def test_shipped_fixtures_give_only_the_known_problems():
    assert sorted(check_warnings()) == sorted(SHIPPED_WARNINGS)


@pytest.mark.usefixtures("content")
def test_validate_content_names_quiz_question_field_and_language():
    choice = Choice.objects.get(question__quiz__slug=GC, text_en="torch.utils.checkpoint")
    Choice.objects.filter(pk=choice.pk).update(text_ur="torch.checkpoint")
    code, lines, err = run_validate()
    assert code == 0, (lines, err)  # warnings do not fail the run
    assert (
        f"{WARNING}{GC} #{choice.question.position}: The Urdu translation of choice {choice.position}: "
        "The code “torch.utils.checkpoint” of the English is missing or changed."
    ) in lines
    assert "No content problems." in lines


@pytest.mark.usefixtures("content")
def test_question_page_shows_the_problems(editor_client):
    question = Question.objects.get(quiz__slug=GC, position=5)
    page = editor_client.get(admin_url("quizzes_question_change", question.pk)).text
    block = html_tree(page).one("ul", class_="translation-checks")
    assert "The Urdu translation of explanation: “checkpoint()” is not marked" in block.text


@pytest.mark.usefixtures("content")
def test_quiz_page_lists_them_among_the_warnings(editor_client):
    quiz = Quiz.objects.get(slug=GC)
    page = editor_client.get(admin_url("quizzes_quiz_change", quiz.pk)).text
    assert "Urdu translation of explanation: “torch.nn.Dropout” is not marked" in page


@pytest.mark.usefixtures("content")
def test_saving_warns_and_still_saves(editor_client):
    question = Question.objects.get(quiz__slug=GC, position=1)
    url, data = question_post_data(editor_client, question, text_sn="Chii chinonyanya kutengeswa ne checkpointing")
    response = editor_client.post(url, data, follow=True)
    assert response.status_code == 200
    question.refresh_from_db()
    assert question.text_sn == "Chii chinonyanya kutengeswa ne checkpointing"
    warnings = [str(message) for message in response.context["messages"]]
    assert (
        "The Shona translation of text: The translation has no end punctuation; the English ends with “?”." in warnings
    )
