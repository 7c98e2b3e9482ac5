"""Machine translations: a language's setting says whether its students see them, marked, or the
English; versions keep what they showed; the pages, the API and the admin agree."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils.translation import gettext, override
from rest_framework.test import APIClient

from quizzes.content.cache import quiz_content
from quizzes.content.machine_translations import language_setting_update
from quizzes.content.shown import machine_translations_shown
from quizzes.content.translation_status import Status, translations_stamp
from quizzes.content.versions import question_current_version
from quizzes.models import Attempt, LanguageSetting, MachineTranslations, QuestionVersion
from tests.admin_forms import admin_url
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

GC = "gradient-checkpointing"
SHOW, ENGLISH = MachineTranslations.SHOW, MachineTranslations.ENGLISH


def machine_made(obj, *columns):
    """Record these translations of ``obj`` as machine-made, as an import of such a file does."""
    translations_stamp(obj, columns=columns, state=Status.MACHINE)
    obj.save()


def note_text(language="ur") -> str:
    with override(language):
        return gettext("Machine translation: this question was translated by a machine and may contain mistakes.")


def mark_text(language="ur") -> str:
    with override(language):
        return gettext("machine translation")


def start(client, quiz, language="ur") -> Attempt:
    response = client.post(f"/{language}/quizzes/{quiz.slug}/start/")
    assert response.status_code == 302, response.status_code
    return Attempt.objects.get(pk=int(response["Location"].rstrip("/").split("/")[-1]))


def question_page(client, parse_html, attempt, position=1, language="ur"):
    response = client.get(f"/{language}/attempts/{attempt.pk}/questions/{position}/")
    assert response.status_code == 200
    return parse_html(response)


@pytest.fixture(autouse=True)
def language_settings_rows(db):
    # Migration 0013 makes these rows; a test that flushes the tables (PostgreSQL's
    # transactional tests) takes them away for the tests after it.
    for language in ("ur", "sn", "id"):
        LanguageSetting.objects.get_or_create(language=language)


@pytest.fixture
def q1(gc_quiz):
    question = gc_quiz.questions.get(position=1)
    assert question.text_ur and question.explanation_ur
    return question


def enrolled_client(student, username) -> Client:
    from quizzes.enrollment.services import enrollment_create

    user = UserFactory(username=username)
    enrollment_create(user=user, course=student.enrollments.get().course)
    client = Client()
    client.force_login(user)
    return client


# The setting itself ------------------------------------------------------------------------


def test_every_translation_language_has_a_setting_and_machine_translations_start_hidden():
    assert dict(LanguageSetting.objects.values_list("language", "machine_translations")) == {
        "ur": ENGLISH,
        "sn": ENGLISH,
        "id": ENGLISH,
    }
    assert not any(machine_translations_shown(language) for language in ("ur", "sn", "id"))


@pytest.mark.parametrize(
    "write",
    [
        lambda: LanguageSetting.objects.create(language="en"),
        lambda: LanguageSetting.objects.create(language="xx"),
        lambda: LanguageSetting.objects.create(language="ur"),
        lambda: LanguageSetting.objects.filter(language="ur").update(machine_translations="sometimes"),
    ],
    ids=["english", "unknown-language", "twice", "unknown-choice"],
)
def test_the_database_refuses_a_setting_outside_the_rules(write):
    with pytest.raises(IntegrityError), transaction.atomic():
        write()


@pytest.mark.parametrize(("language", "choice"), [("en", SHOW), ("xx", SHOW), ("ur", "sometimes"), ("ur", "")], ids=str)
def test_the_service_refuses_bad_input_and_writes_nothing(gc_quiz, language, choice):
    versions = QuestionVersion.objects.count()
    with pytest.raises(ValidationError):
        language_setting_update(language=language, machine_translations=choice)
    assert set(LanguageSetting.objects.values_list("machine_translations", flat=True)) == {ENGLISH}
    assert QuestionVersion.objects.count() == versions


def test_a_setting_read_outside_a_request_is_never_held():
    assert not machine_translations_shown("ur")
    language_setting_update(language="ur", machine_translations=SHOW)
    assert machine_translations_shown("ur")
    with pytest.raises(RuntimeError), transaction.atomic():
        language_setting_update(language="ur", machine_translations=ENGLISH)
        assert not machine_translations_shown("ur")
        raise RuntimeError("rolled back")
    assert machine_translations_shown("ur")


# What the question's versions hold ---------------------------------------------------------


def test_a_hidden_machine_translation_is_not_in_the_version(q1):
    machine_made(q1, "text_ur")
    version = question_current_version(q1.pk)
    assert version.texts["text_ur"] == ""
    assert version.texts["explanation_ur"] == q1.explanation_ur  # a person's translation stays
    assert version.machine_texts == []
    assert version.revisions["ur"]["texts"]["text"] == version.number  # Urdu readers now read English


def test_showing_machine_translations_makes_versions_that_say_which_texts_are(q1):
    choice = q1.choices.get(position=2)
    machine_made(q1, "text_ur")
    machine_made(choice, "text_ur")
    before = question_current_version(q1.pk)
    language_setting_update(language="ur", machine_translations=SHOW)
    version = question_current_version(q1.pk)
    assert version.texts["text_ur"] == q1.text_ur
    assert version.machine_texts == [f"choice:{choice.pk}:text_ur", "text_ur"]
    assert version.token != before.token
    snapshot = quiz_content(q1.quiz_id).question(q1.pk)
    assert snapshot.machine_columns == {"text_ur"}
    assert snapshot.choice(choice.pk).machine_columns == {"text_ur"}
    # Shona has no machine translation here: its setting changes no version.
    language_setting_update(language="sn", machine_translations=SHOW)
    assert question_current_version(q1.pk).token == version.token


def test_a_person_translating_it_again_ends_the_mark(q1):
    language_setting_update(language="ur", machine_translations=SHOW)
    machine_made(q1, "text_ur")
    assert question_current_version(q1.pk).machine_texts == ["text_ur"]
    q1.text_ur = q1.text_ur + "؟"
    translations_stamp(q1, columns=["text_ur"], state=Status.TRANSLATED)
    q1.save()
    assert question_current_version(q1.pk).machine_texts == []


# The student's pages --------------------------------------------------------------------------


def test_students_read_the_english_marked_as_english_by_default(student_client, gc_quiz, q1, parse_html):
    machine_made(q1, "text_ur")
    page = question_page(student_client, parse_html, start(student_client, gc_quiz))
    heading = page.one("legend").one("h1", class_="question-text")
    assert (heading.text, heading.get("lang"), heading.get("dir")) == (q1.text_en, "en", "ltr")
    assert page.find("p", class_="machine-note") is None


def test_a_shown_machine_translation_is_marked_on_the_question_and_its_feedback(
    student_client, gc_quiz, q1, parse_html
):
    language_setting_update(language="ur", machine_translations=SHOW)
    machine_made(q1, "explanation_ur")
    machine_made(q1.choices.get(position=3), "text_ur")
    attempt = start(student_client, gc_quiz)
    page = question_page(student_client, parse_html, attempt)
    assert page.one("legend").one("h1", class_="question-text").get("lang") is None
    assert page.one("p", class_="machine-note").text == note_text()
    label = page.one("label", **{"for": f"choice-{q1.choices.get(position=3).pk}"})
    assert (label.text, label.get("lang")) == (q1.choices.get(position=3).text_ur, None)

    right = q1.choices.get(is_correct=True)
    student_client.post(f"/ur/attempts/{attempt.pk}/questions/1/", {"question": q1.pk, "choice": right.pk})
    answered = question_page(student_client, parse_html, attempt)
    explanation = answered.one("p", class_="explanation")
    assert explanation.one("span", class_="machine-mark").text == mark_text()
    assert q1.explanation_ur.split()[0] in explanation.text

    student_client.post(f"/ur/attempts/{attempt.pk}/finish/")
    result = parse_html(student_client.get(f"/ur/attempts/{attempt.pk}/result/"))
    first = result.one("ol", class_="review").find_all("li", class_="card")[0]
    assert first.one("p", class_="machine-note").text == note_text()
    assert first.one("p", class_="explanation").one("span", class_="machine-mark")


def test_an_attempt_goes_on_showing_what_it_showed_when_the_setting_changes(
    student, student_client, gc_quiz, q1, parse_html
):
    language_setting_update(language="ur", machine_translations=SHOW)
    machine_made(q1, "text_ur")
    attempt = start(student_client, gc_quiz)
    assert question_page(student_client, parse_html, attempt).one("p", class_="machine-note")

    language_setting_update(language="ur", machine_translations=ENGLISH)

    again = question_page(student_client, parse_html, attempt)
    assert again.one("legend").one("h1", class_="question-text").text == q1.text_ur
    assert again.one("p", class_="machine-note").text == note_text()
    other = enrolled_client(student, "student-late")
    late = question_page(other, parse_html, start(other, gc_quiz))
    heading = late.one("legend").one("h1", class_="question-text")
    assert (heading.text, heading.get("lang")) == (q1.text_en, "en")
    assert late.find("p", class_="machine-note") is None
    # The first version, shown to nobody, was rewritten with the mark; the attempt holds it since.
    assert list(q1.versions.order_by("number").values_list("machine_texts", flat=True)) == [["text_ur"], []]


def test_machine_made_titles_are_marked_or_hidden(student_client, gc_quiz, parse_html):
    assert gc_quiz.title_ur
    machine_made(gc_quiz, "title_ur")
    title = parse_html(student_client.get(f"/ur/quizzes/{GC}/")).one("h1")
    assert (title.text, title.get("lang")) == (gc_quiz.title_en, "en")

    language_setting_update(language="ur", machine_translations=SHOW)
    title = parse_html(student_client.get(f"/ur/quizzes/{GC}/")).one("h1")
    assert title.get("lang") is None
    assert title.one("span", class_="machine-mark").text == mark_text()
    assert gc_quiz.title_ur in title.text
    dashboard = parse_html(student_client.get("/ur/"))
    item = next(h3 for h3 in dashboard.find_all("h3") if h3.find("a", href=f"/ur/quizzes/{GC}/"))
    assert item.one("span", class_="machine-mark").text == mark_text()


def test_a_request_reads_the_settings_once_and_only_when_it_meets_a_machine_translation(
    student_client, gc_quiz, course
):
    def setting_reads(path) -> int:
        with CaptureQueriesContext(connection) as queries:
            assert student_client.get(path).status_code == 200
        return sum(LanguageSetting._meta.db_table in query["sql"] for query in queries.captured_queries)

    assert setting_reads("/ur/") == 0
    machine_made(course, "title_ur")
    machine_made(gc_quiz, "title_ur")
    assert setting_reads("/ur/") == 1
    assert setting_reads("/en/") == 0


# The API -----------------------------------------------------------------------------------


def test_the_api_says_which_texts_are_machine_translations(student, gc_quiz, q1):
    from rest_framework.authtoken.models import Token

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=student).key}")
    choice = q1.choices.get(position=1)
    machine_made(choice, "text_ur")
    machine_made(gc_quiz, "title_ur")

    def first_question(body):
        return next(question for question in body["questions"] if question["id"] == q1.pk)

    body = api.get(f"/api/v1/quizzes/{GC}/", {"lang": "ur"}).json()
    assert (body["title"], body["title_language"], body["title_machine"]) == (gc_quiz.title_en, "en", False)
    shown = first_question(body)["choices"][0]
    assert (shown["text"], shown["text_language"], shown["text_machine"]) == (choice.text_en, "en", False)

    language_setting_update(language="ur", machine_translations=SHOW)
    body = api.get(f"/api/v1/quizzes/{GC}/", {"lang": "ur"}).json()
    assert (body["title"], body["title_language"], body["title_machine"]) == (gc_quiz.title_ur, "ur", True)
    question = first_question(body)
    assert (question["text_language"], question["text_machine"]) == ("ur", False)
    shown = question["choices"][0]
    assert (shown["text"], shown["text_language"], shown["text_machine"]) == (choice.text_ur, "ur", True)
    listed = api.get("/api/v1/quizzes/", {"lang": "ur"}).json()["results"]
    assert next(quiz for quiz in listed if quiz["slug"] == GC)["title_machine"] is True


# The admin -----------------------------------------------------------------------------------


def test_editors_choose_in_the_list_and_the_versions_follow(editor_client, q1):
    machine_made(q1, "text_ur")
    changelist = admin_url("quizzes_languagesetting_changelist")
    page = editor_client.get(changelist)
    assert page.status_code == 200
    assert page.context["cl"].result_count == 3
    rows = list(LanguageSetting.objects.order_by("pk"))
    data = {
        "form-TOTAL_FORMS": "3",
        "form-INITIAL_FORMS": "3",
        "form-MIN_NUM_FORMS": "0",
        "form-MAX_NUM_FORMS": "1000",
        "_save": "Save",
    }
    for index, row in enumerate(page.context["cl"].result_list):
        data[f"form-{index}-id"] = str(row.pk)
        data[f"form-{index}-machine_translations"] = SHOW if row.language == "ur" else row.machine_translations
    response = editor_client.post(changelist, data)
    assert response.status_code == 302, response.context and response.context.get("errors")
    assert LanguageSetting.objects.get(language="ur").machine_translations == SHOW
    assert {row.language for row in rows} == {"ur", "sn", "id"}
    assert question_current_version(q1.pk).machine_texts == ["text_ur"]

    assert editor_client.get(admin_url("quizzes_languagesetting_add")).status_code == 403
    ur = LanguageSetting.objects.get(language="ur")
    assert editor_client.post(admin_url("quizzes_languagesetting_delete", ur.pk), {"post": "yes"}).status_code == 403
    assert LanguageSetting.objects.count() == 3


def test_teachers_read_the_settings_without_changing_them(client, teacher):
    client.force_login(teacher)
    ur = LanguageSetting.objects.get(language="ur")
    assert client.get(admin_url("quizzes_languagesetting_change", ur.pk)).status_code == 200
    client.post(admin_url("quizzes_languagesetting_change", ur.pk), {"machine_translations": SHOW})
    assert LanguageSetting.objects.get(language="ur").machine_translations == ENGLISH


def test_the_status_page_says_what_each_language_shows(editor_client, gc_quiz, parse_html):
    language_setting_update(language="sn", machine_translations=SHOW)
    page = parse_html(editor_client.get(admin_url("quizzes_quiz_translations", gc_quiz.pk)))
    urdu = page.one("section", id="language-ur").one("p", class_="machine-setting")
    shona = page.one("section", id="language-sn").one("p", class_="machine-setting")
    assert str(MachineTranslations.ENGLISH.label) in urdu.text
    assert str(MachineTranslations.SHOW.label) in shona.text
    ur = LanguageSetting.objects.get(language="ur")
    assert urdu.one("a")["href"] == admin_url("quizzes_languagesetting_change", ur.pk)


def test_the_preview_shows_what_students_see(editor_client, gc_quiz, q1, parse_html):
    machine_made(q1, "text_ur")
    preview = admin_url("quizzes_quiz_preview", gc_quiz.pk)
    page = parse_html(editor_client.get(preview, {"language": "ur"}))
    first = page.one("ol", class_="questions").find_all("li")[0].find_all("p")[0]
    assert first.one("strong").text == q1.text_en
    language_setting_update(language="ur", machine_translations=SHOW)
    page = parse_html(editor_client.get(preview, {"language": "ur"}))
    first = page.one("ol", class_="questions").find_all("li")[0].find_all("p")[0]
    assert first.one("strong").text == q1.text_ur
    assert first.one("span", class_="machine-mark")


def test_the_versions_page_shows_the_mark_come_and_go(editor_client, student, student_client, gc_quiz, q1, parse_html):
    start(student_client, gc_quiz)  # holds version 1
    language_setting_update(language="ur", machine_translations=SHOW)
    machine_made(q1, "text_ur")  # the same Urdu, now marked: version 2
    other = enrolled_client(student, "student-late")
    start(other, gc_quiz)  # holds version 2
    language_setting_update(language="ur", machine_translations=ENGLISH)  # hidden: version 3
    assert list(q1.versions.order_by("number").values_list("machine_texts", flat=True)) == [[], ["text_ur"], []]
    tree = parse_html(editor_client.get(admin_url("quizzes_question_versions", q1.pk)))

    def urdu_text_change(number):
        section = tree.one("section", id=f"version-{number}")
        return section.one("tr", class_="change", **{"data-field": "text", "data-language": "ur"})

    marked = urdu_text_change(2)
    assert marked.one("td", class_="old").text == q1.text_ur
    assert marked.one("td", class_="old").find("span", class_="machine-mark") is None
    assert marked.one("td", class_="new").one("span", class_="machine-mark").text == "machine translation"
    hidden = urdu_text_change(3)
    assert hidden.one("td", class_="new").one("em")  # empty: the English is shown instead


def test_xapi_names_a_quiz_as_its_learners_are_shown_it(gc_quiz):
    from quizzes.integrations.xapi.statements import quiz_activity

    machine_made(gc_quiz, "title_ur")
    assert gc_quiz.title_ur not in quiz_activity(gc_quiz)["definition"]["name"].values()
    language_setting_update(language="ur", machine_translations=SHOW)
    assert gc_quiz.title_ur in quiz_activity(gc_quiz)["definition"]["name"].values()
