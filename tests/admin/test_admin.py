"""The admin as a content editor uses it, and as a student is refused it."""

import re

import pytest
from django.contrib.staticfiles import finders

from quizzes.models import Answer, Attempt, Choice, Question, Quiz
from tests.admin_forms import admin_url
from tests.factories import AnswerFactory, AttemptFactory, ChoiceFactory, QuestionFactory, QuizFactory

pytestmark = pytest.mark.django_db

LANGUAGES = ("en", "ur", "sn", "id")


@pytest.fixture
def gc_quiz(content):
    return Quiz.objects.get(slug="gradient-checkpointing")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(
    "name",
    [
        "index",
        "quizzes_course_changelist",
        "quizzes_quiz_changelist",
        "quizzes_question_changelist",
        "quizzes_enrollment_changelist",
        "quizzes_attempt_changelist",
        "quizzes_answer_changelist",
    ],
)
def test_editor_opens_every_list_in_every_language(editor_client, content, name, language):
    response = editor_client.get(admin_url(name, language=language))

    assert response.status_code == 200
    assert f'lang="{language}"' in response.text


@pytest.mark.parametrize("language", LANGUAGES)
def test_quiz_and_question_pages_have_offline_language_tabs(editor_client, gc_quiz, language):
    question = gc_quiz.questions.get(position=1)

    for url in (
        admin_url("quizzes_quiz_change", gc_quiz.pk, language=language),
        admin_url("quizzes_question_change", question.pk, language=language),
    ):
        html = editor_client.get(url).text
        assert "modeltranslation/js/tabbed_translation_fields.js" in html
        assert "/static/vendor/jquery-ui/jquery-ui.min.js" in html
        # Nothing loaded from another host (a CDN): every script and stylesheet is served here.
        # (Not a search for "cdn" in the page: a random CSRF token may contain those letters.)
        assert "googleapis" not in html
        assert re.findall(r'<(?:script|link)\b[^>]*\b(?:src|href)="((?:https?:)?//[^"]*)"', html) == []
        assert "/static/quizzes/admin.css" in html


def test_vendored_assets_exist():
    assert finders.find("vendor/jquery-ui/jquery-ui.min.js")
    assert finders.find("vendor/noto-nastaliq-urdu/noto-nastaliq-urdu-arabic-400-normal.woff2")
    css = open(finders.find("quizzes/admin.css"), encoding="utf-8").read()
    assert ".mt-bidi" in css and "direction: rtl" in css


def test_question_page_shows_every_translation_with_urdu_right_to_left(editor_client, gc_quiz):
    question = gc_quiz.questions.get(position=1)

    html = editor_client.get(admin_url("quizzes_question_change", question.pk)).text

    for column in ("text_en", "text_ur", "text_sn", "text_ind", "explanation_ur"):
        assert f'name="{column}"' in html
    assert 'name="choices-0-text_ur"' in html
    assert question.text_ur in html
    # modeltranslation marks bidi languages' inputs; our admin.css makes them rtl.
    assert html.count("mt-bidi") >= 3


def test_quiz_page_lists_its_questions_and_reports_no_problem(editor_client, gc_quiz):
    html = editor_client.get(admin_url("quizzes_quiz_change", gc_quiz.pk)).text

    assert 'name="questions-7-text_en"' in html
    assert "None: every question has one correct choice" in html


def test_search_finds_a_question_by_its_shona_text(editor_client, content):
    response = editor_client.get(admin_url("quizzes_question_changelist"), {"q": "ndangariro"})

    assert list(response.context["cl"].result_list) == [
        Question.objects.get(quiz__slug="gradient-checkpointing", position=1)
    ]


def test_filter_questions_by_quiz(editor_client, gc_quiz):
    response = editor_client.get(admin_url("quizzes_question_changelist"), {"quiz__id__exact": gc_quiz.pk})

    assert response.context["cl"].result_count == 8


def test_preview_in_urdu_marks_english_fallback(editor_client, gc_quiz):
    html = editor_client.get(admin_url("quizzes_quiz_preview", gc_quiz.pk), {"language": "ur"}).text

    assert '<article lang="ur" dir="rtl">' in html
    assert gc_quiz.title_ur in html
    assert gc_quiz.questions.get(position=1).text_ur in html
    # Question 3 has no Urdu: shown in English, marked as such.
    english = gc_quiz.questions.get(position=3).text_en
    assert f'<strong lang="en" dir="ltr">{english}</strong>' in html
    assert "not translated" in html
    # The answer key and explanations, for the editor's eyes.
    assert html.count("✓") == 8
    assert gc_quiz.questions.get(position=1).explanation_ur in html


def test_preview_in_shona_uses_english_title(editor_client, gc_quiz):
    html = editor_client.get(admin_url("quizzes_quiz_preview", gc_quiz.pk), {"language": "sn"}).text

    assert '<article lang="sn" dir="ltr">' in html
    assert '<h2 lang="en" dir="ltr">Gradient Checkpointing Quiz</h2>' in html
    assert gc_quiz.description_sn in html


def test_preview_of_an_unknown_language_shows_english(editor_client, gc_quiz):
    response = editor_client.get(admin_url("quizzes_quiz_preview", gc_quiz.pk), {"language": "xx"})

    assert response.status_code == 200
    assert '<article lang="en" dir="ltr">' in response.text


def test_preview_of_unknown_quiz_is_404(editor_client, content):
    assert editor_client.get(admin_url("quizzes_quiz_preview", 999999)).status_code == 404


@pytest.mark.parametrize(
    "url",
    [
        lambda quiz: admin_url("index"),
        lambda quiz: admin_url("quizzes_quiz_changelist"),
        lambda quiz: admin_url("quizzes_quiz_change", quiz.pk),
        lambda quiz: admin_url("quizzes_quiz_preview", quiz.pk),
        lambda quiz: admin_url("quizzes_attempt_changelist"),
    ],
)
def test_student_is_refused_the_admin(client, student, gc_quiz, url):
    client.force_login(student)

    response = client.get(url(gc_quiz))

    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_anonymous_is_sent_to_login(client, gc_quiz):
    response = client.get(admin_url("quizzes_quiz_preview", gc_quiz.pk))

    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_editor_may_not_manage_users(editor_client):
    assert editor_client.get(admin_url("auth_user_changelist")).status_code == 403


def test_attempts_and_answers_are_read_only(editor_client, content, student):
    quiz = Quiz.objects.get(slug="gradient-checkpointing")
    attempt = AttemptFactory(user=student, quiz=quiz)
    question = quiz.questions.get(position=1)
    answer = AnswerFactory(attempt=attempt, question=question, choice=question.choices.get(position=2))

    page = editor_client.get(admin_url("quizzes_attempt_change", attempt.pk))
    assert page.status_code == 200
    assert 'name="_save"' not in page.text

    assert editor_client.get(admin_url("quizzes_attempt_add")).status_code == 403
    assert editor_client.post(admin_url("quizzes_attempt_change", attempt.pk), {"score": 8}).status_code == 403
    assert editor_client.post(admin_url("quizzes_answer_delete", answer.pk), {"post": "yes"}).status_code == 403
    assert Attempt.objects.filter(pk=attempt.pk).exists() and Answer.objects.filter(pk=answer.pk).exists()


def _question_form_data(question, correct=None):
    data = {"quiz": question.quiz_id, "position": question.position, "kind": question.kind}
    for column in ("text_en", "text_ur", "text_sn", "text_ind", "explanation_en"):
        data[column] = getattr(question, column) or ""
    for column in ("explanation_ur", "explanation_sn", "explanation_ind"):
        data[column] = getattr(question, column) or ""
    choices = list(question.choices.order_by("position"))
    data.update(
        {
            "choices-TOTAL_FORMS": len(choices),
            "choices-INITIAL_FORMS": len(choices),
            "choices-MIN_NUM_FORMS": 2,
            "choices-MAX_NUM_FORMS": 1000,
        }
    )
    for index, choice in enumerate(choices):
        prefix = f"choices-{index}-"
        data[prefix + "id"] = choice.pk
        data[prefix + "question"] = question.pk
        data[prefix + "position"] = choice.position
        for column in ("text_en", "text_ur", "text_sn", "text_ind"):
            data[prefix + column] = getattr(choice, column) or ""
        if choice.is_correct if correct is None else correct[index]:
            data[prefix + "is_correct"] = "on"
    return data


def test_editor_fixes_a_translation_and_it_is_saved(editor_client, gc_quiz):
    question = gc_quiz.questions.get(position=3)
    data = _question_form_data(question)
    data["text_sn"] = "Mubvunzo wakashandurwa"

    response = editor_client.post(admin_url("quizzes_question_change", question.pk), data)

    assert response.status_code == 302, response.context and response.context["errors"]
    question.refresh_from_db()
    assert question.text_sn == "Mubvunzo wakashandurwa"
    assert question.text_en.startswith("In a simplified chain")


@pytest.mark.parametrize(
    ("correct", "message"),
    [
        ((True, True, False, False), "Only one choice may be marked correct."),
        ((False, False, False, False), "Mark one choice as correct."),
    ],
)
def test_a_question_must_keep_exactly_one_correct_choice(editor_client, gc_quiz, correct, message):
    question = gc_quiz.questions.get(position=1)
    before = list(question.choices.values_list("is_correct", flat=True))

    response = editor_client.post(
        admin_url("quizzes_question_change", question.pk), _question_form_data(question, correct)
    )

    assert response.status_code == 200
    assert message in response.text
    assert list(question.choices.values_list("is_correct", flat=True)) == before


def test_a_quiz_with_content_problems_cannot_be_published(editor_client, content):
    quiz = QuizFactory(course=Quiz.objects.get(slug="gradient-checkpointing").course, is_published=False)
    question = QuestionFactory(quiz=quiz, position=1)
    ChoiceFactory(question=question, position=1, is_correct=False)
    ChoiceFactory(question=question, position=2, is_correct=False)
    html = editor_client.get(admin_url("quizzes_quiz_change", quiz.pk)).text
    assert "No choice is marked correct." in html

    data = {
        "course": quiz.course_id,
        "slug": quiz.slug,
        "position": quiz.position,
        "title_en": quiz.title_en,
        "pass_mark": 70,
        "max_attempts": 0,
        "is_published": "on",
        "questions-TOTAL_FORMS": 0,
        "questions-INITIAL_FORMS": 0,
        "questions-MIN_NUM_FORMS": 0,
        "questions-MAX_NUM_FORMS": 1000,
    }
    # An inline form left out of the POST is simply not edited.
    response = editor_client.post(admin_url("quizzes_quiz_change", quiz.pk), data)

    assert response.status_code == 200
    assert "can&#x27;t be published" in response.text or "can't be published" in response.text
    quiz.refresh_from_db()
    assert quiz.is_published is False


def test_choice_inline_lists_choices_in_order(editor_client, gc_quiz):
    question = gc_quiz.questions.get(position=5)

    html = editor_client.get(admin_url("quizzes_question_change", question.pk)).text

    positions = [html.index(choice.text_en) for choice in Choice.objects.filter(question=question).order_by("position")]
    assert positions == sorted(positions)
