"""Field-by-field fallback to English, and the languages Django must know."""

from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation

from quizzes.content.languages import SOURCE_LANGUAGE, TRANSLATION_LANGUAGES, column, text_in
from quizzes.content.shown import language_reader, localized, text_reader
from quizzes.models import Choice, Question, Quiz

GC = "gradient-checkpointing"
ART = "activation-recomputation-tradeoffs"


def question(slug: str, position: int) -> Question:
    return Question.objects.get(quiz__slug=slug, position=position)


def choice(slug: str, question_position: int, position: int) -> Choice:
    return Choice.objects.get(question__quiz__slug=slug, question__position=question_position, position=position)


@pytest.mark.usefixtures("content")
class TestFallbackThroughAttributes:
    def test_translated_title_in_urdu(self):
        with translation.override("ur"):
            assert Quiz.objects.get(slug=GC).title == "گریڈینٹ چیک پوائنٹنگ کوئز"

    def test_untranslated_title_in_shona_is_english(self):
        with translation.override("sn"):
            quiz = Quiz.objects.get(slug=GC)
            assert quiz.title == "Gradient Checkpointing Quiz"
            # ...while the description of the same quiz is in Shona.
            assert quiz.description == "Mhinduro uye tsananguro zvinoonekwa paunenge uchitora bvunzo."

    def test_question_1_in_shona(self):
        with translation.override("sn"):
            q1 = question(GC, 1)
            assert q1.text.startswith("Chii chinonzi gradient cheki")
            assert choice(GC, 1, 1).text.startswith("Yakawedzera compute")

    def test_question_3_in_urdu_is_english(self):
        with translation.override("ur"):
            q3 = question(GC, 3)
            assert q3.text.startswith("In a simplified chain of N similarly sized layers")
            assert q3.explanation.startswith(question(GC, 3).explanation_en[:40])
            assert choice(GC, 3, 3).text.startswith("Activation storage can scale")

    def test_indonesian(self):
        with translation.override("id"):
            quiz = Quiz.objects.get(slug=ART)
            assert quiz.title == "Kuis Pengorbanan Perhitungan Ulang Aktivasi"
            assert question(ART, 1).text == "Apa gunanya perhitungan ulang aktivasi untuk menghemat memori?"
            assert (
                question(ART, 3).text == "Why should activation checkpointing overhead be measured on the actual model?"
            )
            # A quiz with no Indonesian at all is shown in English.
            assert Quiz.objects.get(slug=GC).title == "Gradient Checkpointing Quiz"

    def test_english_is_english(self):
        with translation.override("en"):
            assert question(GC, 1).text == "What does gradient checkpointing primarily trade to save memory?"


@pytest.mark.usefixtures("content")
class TestLocalized:
    def test_translation_is_not_a_fallback(self):
        shown = localized(question(GC, 1), "text", "sn")
        assert shown.language == "sn"
        assert shown.requested == "sn"
        assert not shown.is_fallback
        assert str(shown).startswith("Chii chinonzi")

    def test_missing_translation_reports_english(self):
        shown = localized(question(GC, 3), "text", "ur")
        assert shown.language == "en"
        assert shown.requested == "ur"
        assert shown.is_fallback
        assert shown.text.startswith("In a simplified chain")

    def test_indonesian_reads_the_ind_column(self):
        quiz = Quiz.objects.get(slug=ART)
        assert localized(quiz, "title", "id").text == "Kuis Pengorbanan Perhitungan Ulang Aktivasi"
        assert not localized(quiz, "title", "id").is_fallback
        assert localized(quiz, "title", "sn").is_fallback

    def test_english_requested_is_never_a_fallback(self):
        assert not localized(question(GC, 3), "text", "en").is_fallback

    def test_empty_string_translation_falls_back(self):
        q1 = question(GC, 1)
        q1.text_ur = ""
        shown = localized(q1, "text", "ur")
        assert shown.is_fallback
        assert shown.text == q1.text_en

    def test_localized_ignores_the_active_language(self):
        with translation.override("ur"):
            assert localized(question(GC, 1), "text", "sn").text.startswith("Chii chinonzi")

    def test_text_in_has_no_fallback(self):
        assert text_in(question(GC, 3), "text", "ur") == ""

    @pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
    def test_the_readers_read_what_localized_gives(self, language):
        """The API's translated fields read through text_reader and language_reader."""
        q1, q3 = question(GC, 1), question(GC, 3)
        q1.text_ur = ""  # an empty translation
        q3.explanation_en = None  # not even English
        for obj, field in [(q1, "text"), (q3, "text"), (q3, "explanation"), (Quiz.objects.get(slug=ART), "title")]:
            shown = localized(obj, field, language)
            assert text_reader(field, language)(obj) == shown.text
            assert language_reader(field, language)(obj) == shown.language


class TestLanguages:
    def test_languages(self):
        assert [code for code, _name in settings.LANGUAGES] == ["en", "ur", "sn", "id"]
        assert SOURCE_LANGUAGE == "en"
        assert TRANSLATION_LANGUAGES == ("ur", "sn", "id")

    def test_indonesian_columns_end_in_ind(self):
        assert column("title", "id") == "title_ind"
        assert column("text", "ur") == "text_ur"
        field_names = {field.name for field in Question._meta.get_fields()}
        assert {"text_ind", "explanation_ind"} <= field_names
        assert "text_id" not in field_names

    def test_shona_language_info(self):
        info = translation.get_language_info("sn")
        assert info["name_local"] == "chiShona"
        assert info["bidi"] is False

    def test_urdu_is_right_to_left(self):
        assert translation.get_language_info("ur")["bidi"] is True
        with translation.override("ur"):
            assert translation.get_language_bidi()

    def test_shona_catalog_is_available(self):
        # Django ships no Shona: only the project's compiled catalog makes it usable.
        assert (Path(settings.BASE_DIR) / "locale" / "sn" / "LC_MESSAGES" / "django.mo").is_file()
        assert translation.check_for_language("sn")


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["ur", "sn", "id"])
def test_language_switcher_moves_to_the_language_prefix(client, language):
    response = client.post("/i18n/setlang/", {"language": language, "next": "/en/admin/login/"})

    assert response.status_code == 302
    assert response["Location"] == f"/{language}/admin/login/"
    page = client.get(response["Location"])
    assert page.status_code == 200
    assert f'<html lang="{language}"' in page.text


@pytest.mark.django_db
def test_the_root_url_leads_to_a_language_prefixed_page(client):
    response = client.get("/", follow=True)

    assert response.status_code == 200
    assert response.redirect_chain[0][0] == "/en/"
