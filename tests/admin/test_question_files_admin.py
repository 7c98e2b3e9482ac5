"""The admin's question file pages: import (errors in the form, in the user's language) and export."""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from quizzes.models import Quiz
from tests.content.question_files import ART, GC, all_rows, export, quiz_content, row_counts

MOODLE_FILES = Path(__file__).resolve().parents[1] / "content" / "files" / "moodle"
AIKEN_WRONG_ANSWER = "Which?\nA. one\nB. two\nANSWER: Z\n"


def staff_url(name, *args, language="en"):
    with translation.override(language):
        return reverse(f"staff:{name}", args=args)


def upload(name: str, text: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode("utf-8"))


@pytest.mark.usefixtures("content")
class TestImport:
    def test_a_moodle_xml_file_becomes_a_new_quiz_once_asked(self, editor_client):
        """The course has a quiz of that title (this file's own, exported): the editor is asked
        first, and a new quiz is made once they confirm it."""
        exported = export(ART, "moodle-xml")
        data = {"file": upload("art.xml", exported), "file_format": "moodle-xml", "language": "en"}
        counts = row_counts()
        asked = editor_client.post(staff_url("question_file_import"), data)
        assert asked.status_code == 200
        assert "activation-recomputation-tradeoffs" in asked.content.decode()
        assert 'name="same_title"' in asked.content.decode()
        assert row_counts() == counts

        data = {**data, "file": upload("art.xml", exported), "same_title": "on"}
        response = editor_client.post(staff_url("question_file_import"), data)

        copy = Quiz.objects.exclude(slug__in=[GC, ART]).get()
        assert response.status_code == 302
        assert response["Location"] == reverse("admin:quizzes_quiz_change", args=[copy.pk])
        assert not copy.is_published
        assert quiz_content(copy.slug)["questions"] == quiz_content(ART)["questions"]

    def test_a_real_bank_with_other_kinds_imports_what_it_can_when_asked(self, editor_client):
        """Moodle's GIFT examples: refused whole, then imported with the others listed."""
        text = (MOODLE_FILES / "gift_examples.txt").read_text(encoding="utf-8")
        data = {"file": upload("grant.gift", text), "file_format": "gift", "language": "en"}
        counts = row_counts()
        refused = editor_client.post(staff_url("question_file_import"), data)
        assert refused.status_code == 200
        assert "Line 14: question 4: short-answer questions" in refused.content.decode()
        assert row_counts() == counts

        data = {**data, "file": upload("grant.gift", text), "skip_unsupported": "on"}
        response = editor_client.post(staff_url("question_file_import"), data, follow=True)

        quiz = Quiz.objects.get(slug="grant")
        assert quiz.questions.count() == 18
        listed = [str(message) for message in response.context["messages"]]
        assert listed[0].startswith("Created quiz")
        assert len(listed) == 27
        assert listed[1] == "25 questions of kinds this site has not were skipped:"
        assert listed[2] == (
            "Line 14: skipped (short answer): question 4: short-answer questions (only = answers) cannot be imported"
        )

    def test_a_gift_translation_into_a_quiz(self, editor_client, content):
        gift = export(GC, "gift", "--language", "sn")
        data = {"file": upload("gc.gift", gift), "file_format": "gift", "language": "sn", "quiz": content[GC].pk}
        before = all_rows()
        response = editor_client.post(staff_url("question_file_import"), data)
        assert response.status_code == 302
        assert all_rows() == before  # the same Shona texts: nothing changed

    def test_a_malformed_file_is_shown_in_the_form_in_the_users_language(self, editor_client):
        counts = row_counts()
        data = {"file": upload("bad.txt", AIKEN_WRONG_ANSWER), "file_format": "aiken", "language": "en"}

        response = editor_client.post(staff_url("question_file_import", language="ur"), data)

        assert response.status_code == 200
        with translation.override("ur"):
            where = gettext("question %(number)d") % {"number": 1}
            problem = gettext("the answer must be one letter of the choices (%(letters)s)") % {"letters": "AB"}
            expected = gettext("Line %(line)d: %(message)s") % {"line": 4, "message": f"{where}: {problem}"}
        assert response.context["form"].errors["file"] == [expected]
        assert row_counts() == counts

    def test_the_errors_in_english(self, editor_client):
        data = {
            "file": upload("bad.txt", AIKEN_WRONG_ANSWER),
            "file_format": "aiken",
            "language": "en",
        }
        response = editor_client.post(staff_url("question_file_import"), data)
        assert response.context["form"].errors["file"] == [
            "Line 4: question 1: the answer must be one letter of the choices (AB)"
        ]
        assert "Line 4: question 1" in response.content.decode()

    def test_a_service_refusal_is_a_form_error(self, editor_client):
        # A new quiz must come in English.
        data = {
            "file": upload("gc.gift", export(GC, "gift", "--language", "ur")),
            "file_format": "gift",
            "language": "ur",
        }
        counts = row_counts()
        response = editor_client.post(staff_url("question_file_import"), data)
        assert response.status_code == 200
        assert "English" in str(response.context["form"].non_field_errors())
        assert row_counts() == counts

    def test_the_quiz_list_links_the_page(self, editor_client):
        page = editor_client.get(reverse("admin:quizzes_quiz_changelist")).content.decode()
        assert staff_url("question_file_import") in page

    def test_teachers_may_not_import(self, client, teacher):
        client.force_login(teacher)
        assert client.get(staff_url("question_file_import")).status_code == 403


@pytest.mark.usefixtures("content")
class TestExport:
    def test_moodle_xml_download(self, editor_client, content):
        response = editor_client.get(
            staff_url("question_file_export", content[GC].pk), {"file_format": "moodle-xml", "language": "en"}
        )
        assert response.status_code == 200
        assert response["Content-Type"] == "application/xml; charset=utf-8"
        assert response["Content-Disposition"] == f'attachment; filename="{GC}.xml"'
        assert response.content.decode("utf-8") == export(GC, "moodle-xml")

    @pytest.mark.parametrize(("file_format", "extension"), [("gift", "gift.txt"), ("aiken", "aiken.txt")])
    def test_one_language_download(self, editor_client, content, file_format, extension):
        url = staff_url("question_file_export", content[ART].pk)
        response = editor_client.get(url, {"file_format": file_format, "language": "id"})
        assert response["Content-Disposition"] == f'attachment; filename="{ART}.id.{extension}"'
        assert response.content.decode("utf-8") == export(ART, file_format, "--language", "id")

    def test_the_page_and_the_quiz_page_link(self, editor_client, content):
        url = staff_url("question_file_export", content[GC].pk)
        assert editor_client.get(url).status_code == 200
        change = editor_client.get(reverse("admin:quizzes_quiz_change", args=[content[GC].pk])).content.decode()
        assert url in change

    def test_teachers_may_not_export(self, client, teacher, content):
        client.force_login(teacher)
        url = staff_url("question_file_export", content[GC].pk)
        assert client.get(url, {"file_format": "moodle-xml", "language": "en"}).status_code == 403
