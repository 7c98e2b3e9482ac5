"""Translation status: every write path stamps, English edits make translations stale,
the quiz report counts by hand, and the admin's filters and marks agree."""

import io

import pytest
from django.apps import apps as global_apps
from django.core.management import call_command

from quizzes.accounts.roles import TEACHERS, staff_groups_ensure
from quizzes.content.languages import TRANSLATION_LANGUAGES
from quizzes.content.selectors import quiz_content_get
from quizzes.content.translation_status import (
    Status,
    question_needs_q,
    quiz_needs_q,
    quiz_translation_report,
    translation_status,
    translations_stamp,
)
from quizzes.models import Choice, Course, Question, Quiz
from tests.admin_forms import admin_url, form_data
from tests.conftest import SEEDS_DIR, fixture_records, html_tree
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

GC = "gradient-checkpointing"
ART = "activation-recomputation-tradeoffs"
STALE, MISSING, UP_TO_DATE = Status.STALE, Status.MISSING, Status.TRANSLATED


def question(slug, position) -> Question:
    return Question.objects.get(quiz__slug=slug, position=position)


def choice(slug, question_position, position) -> Choice:
    return Choice.objects.get(question__quiz__slug=slug, question__position=question_position, position=position)


def counts(slug) -> dict[str, tuple[int, int, int]]:
    """language -> (up to date, stale, missing) over the quiz, its questions and choices."""
    reports = quiz_translation_report(quiz_content_get(slug=slug))
    return {report.code: (report.translated, report.stale, report.missing) for report in reports}


def statuses(obj, name) -> dict[str, Status]:
    obj.refresh_from_db()
    return {language: translation_status(obj, name, language) for language in TRANSLATION_LANGUAGES}


def edit_english(obj, name, text):
    setattr(obj, f"{name}_en", text)
    obj.save()


# Fixtures ------------------------------------------------------------------------------------


def record(english: str, state: str = "translated") -> dict:
    return {"english": english, "state": state}


def test_every_fixture_translation_carries_the_record_of_its_english():
    stamps = 0
    for model, fields in (
        ("quizzes.course", ("title", "description")),
        ("quizzes.quiz", ("title", "description")),
        ("quizzes.question", ("text", "explanation")),
        ("quizzes.choice", ("text",)),
    ):
        for row in fixture_records(model):
            values = row["fields"]
            expected = {
                f"{name}_{suffix}": record(values[f"{name}_en"])
                for name in fields
                for suffix in ("ur", "sn", "ind")
                if values.get(f"{name}_{suffix}")
            }
            assert values["translation_sources"] == expected, row
            stamps += len(expected)
    # Course: 3 languages x 2 fields; the quizzes' own fields: 3 (gc) + 2 (art); and per question
    # translated (text, explanation, 4 choices): 3 ur + 3 sn (gc), 4 id (art): 10 x 6.
    assert stamps == 6 + 3 + 2 + 60


@pytest.mark.usefixtures("content")
def test_fixtures_load_with_every_translation_up_to_date():
    for model in (Course, Quiz, Question, Choice):
        for obj in model.objects.all():
            for name in {"Course": ("title", "description"), "Quiz": ("title", "description")}.get(
                model.__name__, ("text", "explanation") if model is Question else ("text",)
            ):
                assert STALE not in statuses(obj, name).values(), (obj, name)
    for language in TRANSLATION_LANGUAGES:
        assert not Question.objects.filter(question_needs_q(STALE, language)).exists()
        assert not Quiz.objects.filter(quiz_needs_q(STALE, language)).exists()


@pytest.mark.usefixtures("content")
def test_quiz_counts_by_hand():
    # gc: 2 quiz fields + 8 questions x (text, explanation, 4 choices) = 50 texts per language.
    # Urdu: title, description and questions 1, 2, 5 (18 texts) translated, the other 5 questions missing.
    # Shona: the same questions and the description, but no title. Indonesian: nothing.
    assert counts(GC) == {"ur": (20, 0, 30), "sn": (19, 0, 31), "id": (0, 0, 50)}
    # art: no Urdu or Shona at all; Indonesian title, description and questions 1, 2, 5, 6.
    assert counts(ART) == {"ur": (0, 0, 50), "sn": (0, 0, 50), "id": (26, 0, 24)}


@pytest.mark.usefixtures("content")
def test_english_edits_make_exactly_their_translations_stale():
    edit_english(question(GC, 1), "text", "What does gradient checkpointing mainly trade to save memory?")
    edit_english(choice(GC, 2, 2), "text", "Because the backward pass needs them")
    edit_english(question(GC, 3), "text", "A question nobody translated?")  # missing stays missing

    assert counts(GC) == {"ur": (18, 2, 30), "sn": (17, 2, 31), "id": (0, 0, 50)}
    assert statuses(question(GC, 1), "text") == {"ur": STALE, "sn": STALE, "id": MISSING}
    assert statuses(question(GC, 1), "explanation") == {"ur": UP_TO_DATE, "sn": UP_TO_DATE, "id": MISSING}

    # Undoing the edit makes them current again: the stamp is the English text's hash.
    edit_english(question(GC, 1), "text", "What does gradient checkpointing primarily trade to save memory?")
    assert statuses(question(GC, 1), "text") == {"ur": UP_TO_DATE, "sn": UP_TO_DATE, "id": MISSING}


@pytest.mark.usefixtures("content")
def test_a_translation_written_without_a_stamp_is_stale():
    Question.objects.filter(pk=question(ART, 7).pk).update(text_ind="Ditulis di shell")

    assert statuses(question(ART, 7), "text")["id"] == STALE
    assert counts(ART)["id"] == (26, 1, 23)


@pytest.mark.usefixtures("content")
def test_migration_stamps_existing_translations_as_up_to_date():
    from importlib import import_module

    migration = import_module("quizzes.migrations.0004_translation_sources_and_regrades")
    records = import_module("quizzes.migrations.0012_translation_records")
    for model in (Course, Quiz, Question, Choice):
        model.objects.update(translation_sources={})
    assert counts(GC)["ur"] == (0, 20, 30)

    migration.stamp_existing_translations(global_apps, None)
    records.records_from_hashes(global_apps, None)

    assert counts(GC) == {"ur": (20, 0, 30), "sn": (19, 0, 31), "id": (0, 0, 50)}
    assert counts(ART)["id"] == (26, 0, 24)


# The admin -------------------------------------------------------------------------------------


def post_question(client, obj, **changes):
    url = admin_url("quizzes_question_change", obj.pk)
    data = form_data(client.get(url).text, "question_form")
    data.update(changes)
    data["_save"] = "Save"
    return client.post(url, data)


@pytest.mark.usefixtures("content")
def test_admin_edit_of_a_translation_stamps_it(editor_client):
    q1 = question(GC, 1)
    edit_english(q1, "text", "What does checkpointing trade for memory?")
    assert statuses(q1, "text") == {"ur": STALE, "sn": STALE, "id": MISSING}

    response = post_question(editor_client, q1, text_ur="چیک پوائنٹنگ میموری کے بدلے کیا دیتی ہے؟")

    assert response.status_code == 302
    assert statuses(q1, "text") == {"ur": UP_TO_DATE, "sn": STALE, "id": MISSING}
    assert q1.translation_sources["text_ur"] == record("What does checkpointing trade for memory?")


@pytest.mark.usefixtures("content")
def test_admin_edit_of_the_english_alone_makes_every_translation_stale(editor_client):
    q1 = question(GC, 1)
    first_choice = choice(GC, 1, 1)

    response = post_question(
        editor_client,
        q1,
        text_en="What does gradient checkpointing trade to save memory?",
        **{"choices-0-text_en": "Extra compute, spent on recomputation"},
    )

    assert response.status_code == 302
    assert statuses(q1, "text") == {"ur": STALE, "sn": STALE, "id": MISSING}
    assert statuses(q1, "explanation") == {"ur": UP_TO_DATE, "sn": UP_TO_DATE, "id": MISSING}
    assert statuses(first_choice, "text") == {"ur": STALE, "sn": STALE, "id": MISSING}
    assert counts(GC) == {"ur": (18, 2, 30), "sn": (17, 2, 31), "id": (0, 0, 50)}


@pytest.mark.usefixtures("content")
def test_admin_edit_of_english_and_urdu_together_leaves_urdu_current(editor_client):
    q1 = question(GC, 1)

    post_question(editor_client, q1, text_en="A new English question?", text_ur="ایک نیا سوال؟")

    assert statuses(q1, "text") == {"ur": UP_TO_DATE, "sn": STALE, "id": MISSING}


@pytest.mark.usefixtures("content")
def test_saving_the_page_unchanged_changes_no_status(editor_client):
    q1 = question(GC, 1)
    edit_english(q1, "text", "Changed English?")
    before = q1.translation_sources

    assert post_question(editor_client, q1).status_code == 302

    q1.refresh_from_db()
    assert q1.translation_sources == before
    assert statuses(q1, "text") == {"ur": STALE, "sn": STALE, "id": MISSING}


@pytest.mark.usefixtures("content")
def test_reviewer_marks_a_language_reviewed(editor_client):
    q1 = question(GC, 1)
    edit_english(q1, "text", "Changed English?")
    edit_english(choice(GC, 1, 2), "text", "Changed choice")

    response = post_question(editor_client, q1, translations_reviewed=["sn"])

    assert response.status_code == 302
    assert statuses(q1, "text") == {"ur": STALE, "sn": Status.REVIEWED, "id": MISSING}
    assert statuses(choice(GC, 1, 2), "text") == {"ur": STALE, "sn": Status.REVIEWED, "id": MISSING}
    assert statuses(choice(GC, 1, 3), "text") == {"ur": UP_TO_DATE, "sn": Status.REVIEWED, "id": MISSING}


@pytest.mark.parametrize("language", ["en", "ur"])
@pytest.mark.usefixtures("content")
def test_question_page_marks_stale_fields(editor_client, language):
    q1 = question(GC, 1)
    edit_english(q1, "text", "Changed English?")

    html = editor_client.get(admin_url("quizzes_question_change", q1.pk, language=language)).text
    tree = html_tree(html)

    for column in ("text_ur", "text_sn"):
        assert "translation-stale" in tree.one("textarea", name=column).classes
    for column in ("text_ind", "explanation_ur", "text_en"):
        assert "translation-stale" not in tree.one("textarea", name=column).classes
    block = tree.one("dl", class_="translation-status")
    stale = [dd for dd in block.find_all("dd") if "translation-stale" in dd.classes]
    assert len(stale) == 2  # Urdu and Shona
    if language == "en":
        assert "stale: text" in block.text
        assert "missing (shown in English): text, explanation, choice 1" in block.text


@pytest.mark.usefixtures("content")
def test_quiz_edit_stamps_its_title(editor_client):
    quiz = Quiz.objects.get(slug=ART)
    url = admin_url("quizzes_quiz_change", quiz.pk)
    data = form_data(editor_client.get(url).text, "quiz_form")
    data["title_ur"] = "ایکٹیویشن کوئز"
    data["title_en"] = "Activation Recomputation Trade-offs"

    assert editor_client.post(url, data).status_code == 302

    quiz.refresh_from_db()
    assert statuses(quiz, "title") == {"ur": UP_TO_DATE, "sn": MISSING, "id": STALE}


@pytest.mark.usefixtures("content")
def test_course_edit_stamps_what_changed(editor_client):
    course = Course.objects.get()
    url = admin_url("quizzes_course_change", course.pk)
    data = form_data(editor_client.get(url).text, "course_form")
    data["description_en"] = "A new English description."
    data["description_sn"] = "Tsananguro itsva."

    assert editor_client.post(url, data).status_code == 302

    assert statuses(course, "description") == {"ur": STALE, "sn": UP_TO_DATE, "id": STALE}
    assert statuses(course, "title") == {"ur": UP_TO_DATE, "sn": UP_TO_DATE, "id": UP_TO_DATE}


# import_quiz --------------------------------------------------------------------------------------


def import_quiz(path, language, slug):
    call_command("import_quiz", str(path), language=language, quiz=slug, stdout=io.StringIO())


@pytest.mark.usefixtures("content")
def test_importing_a_translation_stamps_it():
    for model in (Quiz, Question, Choice):
        model.objects.update(translation_sources={})
    assert counts(GC)["ur"] == (0, 20, 30)

    import_quiz(SEEDS_DIR / "000_7cee97ce0cfcf411.txt", "ur", GC)

    # The file holds no explanations: the 3 Urdu explanations were not written, so not stamped.
    assert counts(GC) == {"ur": (17, 3, 30), "sn": (0, 19, 31), "id": (0, 0, 50)}
    assert [translation_status(question(GC, p), "explanation", "ur") for p in (1, 2, 5)] == [STALE] * 3


@pytest.mark.usefixtures("content")
def test_importing_new_english_makes_the_translations_stale(tmp_path):
    english = (SEEDS_DIR / "003_eecdd2a81399f9d5.txt").read_text(encoding="utf-8")
    old_q1 = question(ART, 1).text_en
    changed = tmp_path / "art-en.txt"
    changed.write_text(english.replace(old_q1, "A reworded first question?"), encoding="utf-8")

    import_quiz(changed, "en", ART)

    assert statuses(question(ART, 1), "text") == {"ur": MISSING, "sn": MISSING, "id": STALE}
    assert counts(ART)["id"] == (25, 1, 24)


def test_importing_a_new_quiz_then_its_translation(tmp_path):
    Course.objects.create(slug="c", title_en="C")
    english = tmp_path / "en.txt"
    english.write_text("Quiz\n\nAbout.\n\n1. Question?\n   • Yes\n   • No", encoding="utf-8")
    urdu = tmp_path / "ur.txt"
    urdu.write_text("کوئز\n\nتعارف\n\n1. سوال؟\n   • ہاں\n   • نہیں", encoding="utf-8")  # noqa: RUF001

    call_command("import_quiz", str(english), language="en", quiz="q", stdout=io.StringIO())
    only = Question.objects.get(quiz__slug="q")
    assert only.translation_sources == {}
    import_quiz(urdu, "ur", "q")

    only.refresh_from_db()
    assert statuses(only, "text") == {"ur": UP_TO_DATE, "sn": MISSING, "id": MISSING}
    assert only.translation_sources == {"text_ur": record("Question?")}
    assert [statuses(c, "text")["ur"] for c in only.choices.order_by("position")] == [UP_TO_DATE, UP_TO_DATE]


# List filters -----------------------------------------------------------------------------------------


def changelist_results(client, name, **params):
    response = client.get(admin_url(name), params)
    assert response.status_code == 200
    return list(response.context["cl"].result_list)


@pytest.mark.usefixtures("content")
def test_question_filters(editor_client):
    edit_english(question(GC, 1), "text", "Changed English?")
    edit_english(choice(GC, 2, 2), "text", "Changed choice")
    edit_english(choice(ART, 5, 1), "text", "Changed Indonesian-translated choice")

    def positions(**params):
        found = changelist_results(editor_client, "quizzes_question_changelist", **params)
        return sorted((q.quiz.slug, q.position) for q in found)

    assert positions(stale_in="ur") == [(GC, 1), (GC, 2)]
    assert positions(stale_in="sn") == [(GC, 1), (GC, 2)]
    assert positions(stale_in="id") == [(ART, 5)]
    assert positions(missing_in="ur") == sorted([(GC, p) for p in (3, 4, 6, 7, 8)] + [(ART, p) for p in range(1, 9)])
    assert positions(missing_in="id") == sorted([(GC, p) for p in range(1, 9)] + [(ART, p) for p in (3, 4, 7, 8)])
    assert positions(missing_in="id", stale_in="id") == []


@pytest.mark.usefixtures("content")
def test_a_missing_choice_translation_counts_for_its_question(editor_client):
    Choice.objects.filter(pk=choice(ART, 6, 3).pk).update(text_ind=None)

    art = Quiz.objects.get(slug=ART)
    found = changelist_results(editor_client, "quizzes_question_changelist", missing_in="id", quiz__id__exact=art.pk)
    assert sorted(q.position for q in found) == [3, 4, 6, 7, 8]


@pytest.mark.usefixtures("content")
def test_quiz_filters(editor_client):
    assert changelist_results(editor_client, "quizzes_quiz_changelist", stale_in="ur") == []
    edit_english(choice(GC, 5, 4), "text", "Changed")

    def slugs(**params):
        return sorted(q.slug for q in changelist_results(editor_client, "quizzes_quiz_changelist", **params))

    assert slugs(stale_in="ur") == [GC]
    assert slugs(stale_in="id") == []
    assert slugs(missing_in="sn") == [ART, GC]


# The status page ------------------------------------------------------------------------------------


@pytest.mark.usefixtures("content")
def test_status_page_counts_and_links(editor_client):
    gc = Quiz.objects.get(slug=GC)
    edit_english(question(GC, 1), "explanation", "Changed explanation. It is new.")

    response = editor_client.get(admin_url("quizzes_quiz_translations", gc.pk))

    assert response.status_code == 200
    tree = html_tree(response.text)
    urdu = tree.one("tr", id="summary-ur")
    assert urdu.one("td", class_="count-translated").text == "19 (38%)"
    assert urdu.one("td", class_="count-stale").text == "1"
    assert urdu.one("td", class_="count-missing").text == "30"
    assert urdu.one("td", class_="count-total").text == "50"
    stale_link = urdu.one("td", class_="count-stale").one("a")["href"]
    assert stale_link.endswith(f"?quiz__id__exact={gc.pk}&stale_in=ur")
    section = tree.one("section", id="language-ur")
    items = section.one("ul", class_="translation-items stale").find_all("li")
    assert [item.text for item in items] == ["Question 1 : explanation"]  # (the tree spaces out tags)
    assert items[0].one("a")["href"] == admin_url("quizzes_question_change", question(GC, 1).pk)


@pytest.mark.usefixtures("content")
def test_status_page_in_urdu(editor_client):
    gc = Quiz.objects.get(slug=GC)
    response = editor_client.get(admin_url("quizzes_quiz_translations", gc.pk, language="ur"))
    assert response.status_code == 200
    assert 'lang="ur"' in response.text and 'dir="rtl"' in response.text


@pytest.mark.usefixtures("content")
def test_status_page_permissions(client, student):
    gc = Quiz.objects.get(slug=GC)
    url = admin_url("quizzes_quiz_translations", gc.pk)
    assert client.get(url).status_code == 302  # anonymous: to the login
    teacher = UserFactory(username="teacher-1", is_staff=True)
    teacher.groups.add(staff_groups_ensure()[TEACHERS])
    client.force_login(teacher)
    assert client.get(url).status_code == 200  # Teachers may view quizzes
    staff_without_permission = UserFactory(username="staff-1", is_staff=True)
    client.force_login(staff_without_permission)
    assert client.get(url).status_code == 403
    client.force_login(student)
    assert client.get(url).status_code == 302
    assert client.get(admin_url("quizzes_quiz_translations", 999999)).status_code in (302, 404)


# Content check ------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("content")
def test_stale_translations_are_warnings_that_do_not_block_publishing(editor_client):
    from quizzes.content.problems import content_problems, content_warnings

    def stale_warnings():
        # The translation checks' warnings are tested in test_translation_checks.
        return [str(warning) for warning in content_warnings() if warning.code == "translation_stale"]

    assert stale_warnings() == []
    edit_english(question(GC, 1), "text", "Changed English?")
    edit_english(choice(GC, 1, 3), "text", "Changed choice")

    warnings = stale_warnings()

    assert warnings == [
        f"{GC} #1: The Urdu translation of text, choice 3 is stale: the English changed after it was written.",
        f"{GC} #1: The Shona translation of text, choice 3 is stale: the English changed after it was written.",
    ]
    assert content_problems() == []
    gc = Quiz.objects.get(slug=GC)
    page = editor_client.get(admin_url("quizzes_quiz_change", gc.pk)).text
    assert "Warnings (publishing is allowed):" in page


@pytest.mark.usefixtures("content")
def test_status_page_counts_reviewed_and_machine_made_texts(editor_client):
    gc = Quiz.objects.get(slug=GC)
    first, second = question(GC, 1), question(GC, 2)
    translations_stamp(first, columns=["text_ur"], state=Status.REVIEWED)
    first.save()
    translations_stamp(second, columns=["text_ur", "explanation_ur"], state=Status.MACHINE)
    second.save()

    tree = html_tree(editor_client.get(admin_url("quizzes_quiz_translations", gc.pk)).text)

    urdu = tree.one("tr", id="summary-ur")
    assert urdu.one("td", class_="count-reviewed").text == "1"
    assert urdu.one("td", class_="count-machine").text == "2"
    assert urdu.one("td", class_="count-translated").text == "17 (36%)"
    items = tree.one("section", id="language-ur").one("ul", class_="translation-items machine").find_all("li")
    assert [item.text for item in items] == ["Question 2 : text", "Question 2 : explanation"]


@pytest.mark.usefixtures("content")
def test_filters_by_machine_made_and_reviewed_texts(editor_client):
    machine_made = question(GC, 2)
    reviewed = Choice.objects.exclude(text_sn="").exclude(text_sn=None).exclude(question=machine_made).first()
    translations_stamp(machine_made, columns=["explanation_ur"], state=Status.MACHINE)
    machine_made.save()
    translations_stamp(reviewed, columns=["text_sn"], state=Status.REVIEWED)
    reviewed.save()

    def found(changelist, **params):
        return sorted(str(obj.pk) for obj in changelist_results(editor_client, changelist, **params))

    assert found("quizzes_question_changelist", machine_in="ur") == [str(machine_made.pk)]
    assert found("quizzes_question_changelist", machine_in="sn") == []
    assert found("quizzes_question_changelist", reviewed_in="sn") == [str(reviewed.question_id)]
    assert found("quizzes_quiz_changelist", machine_in="ur") == [str(machine_made.quiz_id)]
    assert found("quizzes_quiz_changelist", reviewed_in="sn") == [str(reviewed.question.quiz_id)]
    assert found("quizzes_quiz_changelist", reviewed_in="ur") == []
