"""The translation file links and upload form on a quiz's translation status page."""

from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from translate.storage.po import pofile

from quizzes.content.selectors import quiz_content_get
from quizzes.content.translation_files.export import translations_export
from quizzes.content.translation_status import Status, translation_status
from tests.factories import UserFactory


def upload_url(quiz):
    return reverse("admin:quizzes_quiz_translation_upload", args=[quiz.pk])


def test_status_page_links_each_language(editor_client, gc_quiz):
    response = editor_client.get(reverse("admin:quizzes_quiz_translations", args=[gc_quiz.pk]))
    for language in ("ur", "sn", "id"):
        for fmt in ("xliff", "po"):
            url = reverse("admin:quizzes_quiz_translation_file", args=[gc_quiz.pk, language, fmt])
            assert url.encode() in response.content


def test_download_po(editor_client, gc_quiz):
    url = reverse("admin:quizzes_quiz_translation_file", args=[gc_quiz.pk, "ur", "po"])
    response = editor_client.get(url)
    assert response.status_code == 200
    assert f'filename="{gc_quiz.slug}.ur.po"' in response["Content-Disposition"]
    assert pofile.parsestring(response.content).parseheader()["Language"] == "ur"


def test_download_unknown_language_is_404(editor_client, gc_quiz):
    url = reverse("admin:quizzes_quiz_translation_file", args=[gc_quiz.pk, "xx", "po"])
    assert editor_client.get(url).status_code == 404


def test_upload_changes_the_edited_unit(editor_client, gc_quiz):
    question = gc_quiz.questions.order_by("position").first()
    store = pofile.parsestring(translations_export(quiz_content_get(slug=gc_quiz.slug), language="ur", fmt="po"))
    for unit in store.units:
        if unit.getcontext() == f"question.{question.pk}.text":
            unit.target = "نیا سوال"
    upload = SimpleUploadedFile("q.po", bytes(store))
    response = editor_client.post(upload_url(gc_quiz), {"file": upload, "language": "ur"})
    assert response.status_code == 200
    assert "1 unit changed" in response.content.decode()
    question.refresh_from_db()
    assert question.text_ur == "نیا سوال"
    assert translation_status(question, "text", "ur") == Status.TRANSLATED


def test_upload_of_another_language_writes_nothing(editor_client, gc_quiz):
    data = translations_export(quiz_content_get(slug=gc_quiz.slug), language="ur", fmt="xliff")
    response = editor_client.post(upload_url(gc_quiz), {"file": SimpleUploadedFile("q.xlf", data), "language": "sn"})
    assert response.status_code == 200
    assert "not in" in response.content.decode()


def test_upload_stale_is_refused(editor_client, gc_quiz):
    question = gc_quiz.questions.order_by("position").first()
    data = translations_export(quiz_content_get(slug=gc_quiz.slug), language="ur", fmt="xliff")
    question.text_en += " (edited)"
    question.save()
    response = editor_client.post(upload_url(gc_quiz), {"file": SimpleUploadedFile("q.xlf", data), "language": "ur"})
    content = response.content.decode()
    assert "Nothing was imported" in content and "(edited)" in content


def test_staff_without_change_permission_is_refused(client, gc_quiz):
    client.force_login(UserFactory(username="viewer", is_staff=True))
    url = reverse("admin:quizzes_quiz_translation_file", args=[gc_quiz.pk, "ur", "po"])
    assert client.get(url).status_code == 403
    assert client.get(upload_url(gc_quiz)).status_code == 403
