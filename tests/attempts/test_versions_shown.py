"""An edit after students were shown a question leaves what each of them saw on record.

A student answers question 2 of the seed quiz; an editor then edits its English and Urdu texts,
one of its choices and its explanation. The student's question page, result page and the API's
attempt detail still show what they were shown (version 1), in English and in Urdu; a new
attempt shows the edit (version 2).
"""

import pytest
from django.test import Client

from quizzes.models import Answer, Attempt, Choice, Question, QuestionVersion, Quiz
from tests.api import answers_url, attempt_url, start_url
from tests.api.conftest import token_client
from tests.factories import EnrollmentFactory, UserFactory, current_version

GC = "gradient-checkpointing"
ART = "activation-recomputation-tradeoffs"
LANGUAGES = ["en", "ur"]

NEW = {
    "text_en": "Why does the forward pass keep its activations (edited)?",
    "text_ur": "فارورڈ پاس ایکٹیویشنز کیوں رکھتا ہے؟ (ترمیم شدہ)",
    "explanation_en": "Edited: the backward pass reads them.",
    "explanation_ur": "ترمیم شدہ: بیک ورڈ پاس انہیں پڑھتا ہے",
    "choice_en": "To show them on screen (edited)",
    "choice_ur": "انہیں اسکرین پر دکھانے کے لیے (ترمیم شدہ)",
}


@pytest.fixture
def question_2(content) -> Question:
    return Question.objects.get(quiz__slug=GC, position=2)


def old_texts(question: Question, language: str) -> dict:
    """What a reader of ``language`` is shown of question 2 now: text, explanation, choices."""
    suffix = language  # the column suffix of both languages is their code
    return {
        "text": getattr(question, f"text_{suffix}"),
        "explanation": getattr(question, f"explanation_{suffix}"),
        "choices": [getattr(choice, f"text_{suffix}") for choice in question.choices.order_by("position")],
    }


def new_texts(question: Question, language: str) -> dict:
    suffix = language  # the column suffix of both languages is their code
    choices = [getattr(choice, f"text_{suffix}") for choice in question.choices.order_by("position")]
    return {"text": NEW[f"text_{suffix}"], "explanation": NEW[f"explanation_{suffix}"], "choices": choices}


def edit(question: Question) -> None:
    """An editor's edit of question 2 (model saves, as the admin's forms make them): its
    English and Urdu texts and explanations, and the text of its first (wrong) choice."""
    question.text_en, question.text_ur = NEW["text_en"], NEW["text_ur"]
    question.explanation_en, question.explanation_ur = NEW["explanation_en"], NEW["explanation_ur"]
    question.save()
    choice = question.choices.get(position=1)
    choice.text_en, choice.text_ur = NEW["choice_en"], NEW["choice_ur"]
    choice.save()


def student_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def enrolled_student(username: str):
    from quizzes.models import Course

    user = UserFactory(username=username)
    EnrollmentFactory(user=user, course=Course.objects.get(slug="memory-efficient-training"))
    return user


def web_start(client, language: str) -> Attempt:
    response = client.post(f"/{language}/quizzes/{GC}/start/")
    assert response.status_code == 302, response.content[:500]
    return Attempt.objects.filter(quiz__slug=GC).order_by("-pk").first()


def web_answer(client, language: str, attempt: Attempt, position: int, choice: Choice):
    response = client.post(
        f"/{language}/attempts/{attempt.pk}/questions/{position}/",
        {"question": choice.question_id, "choice": choice.pk},
    )
    assert response.status_code == 302, response.content[:800]
    return response


def answered_shown(tree) -> dict:
    """Question text, explanation and choice texts of an answered question's page."""
    section = tree.one("section", class_="question")
    return {
        "text": section.one(class_="question-text").text,
        "explanation": section.one("p", class_="explanation").text,
        "choices": [choice_text(li) for li in section.find_all("li", class_="choice")],
    }


def review_shown(tree, number: int) -> dict:
    item = tree.one("ol", class_="review").find_all("li", class_="card")[number - 1]
    return {
        "text": item.one(class_="question-text").text,
        "explanation": item.one("p", class_="explanation").text,
        "choices": [choice_text(li) for li in item.find_all("li", class_="choice")],
    }


def choice_text(li) -> str:
    # The choice's own span: neither the mark nor a tag ("your answer").
    (span,) = [child for child in li.find_all("span") if not child.classes & {"mark", "tag"}]
    return span.text


def form_shown(tree) -> dict:
    form = tree.one("form", class_="question")
    return {
        "text": form.one(class_="question-text").text,
        "choices": [label.text for label in form.find_all("label")],
    }


def api_shown(body: dict, question_id: int) -> dict:
    (item,) = [item for item in body["questions"] if item["id"] == question_id]
    shown = {
        "text": item["text"],
        "choices": [choice["text"] for choice in item["choices"]],
        "version": item["version"],
    }
    if item["feedback"] is not None:
        shown["explanation"] = item["feedback"]["explanation"]
    return shown


def collapse(texts: dict) -> dict:
    """Whitespace as the page tree collapses it."""
    return {
        name: [" ".join(v.split()) for v in value] if isinstance(value, list) else " ".join(value.split())
        for name, value in texts.items()
    }


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_edit_after_an_answer_leaves_the_review_as_the_student_saw_it(student, question_2, parse_html, language):
    before = old_texts(question_2, language)
    client = student_client(student)
    attempt = web_start(client, language)
    chosen = question_2.choices.get(position=1)  # the choice the edit changes
    for position in (1, 2):
        question = Question.objects.get(quiz__slug=GC, position=position)
        choice = chosen if position == 2 else question.choices.get(is_correct=True)
        web_answer(client, language, attempt, position, choice)

    edit(question_2)
    question_2.refresh_from_db()
    after = new_texts(question_2, language)
    assert after != collapse(before)

    answer = Answer.objects.get(attempt=attempt, question=question_2)
    assert (answer.version.number, answer.language) == (1, language)
    assert current_version(question_2).number == 2
    assert QuestionVersion.objects.filter(question=question_2).count() == 2
    assert answer.version.texts[f"text_{language}"] == before["text"]

    # The question's page, as the student reloads it.
    page = parse_html(client.get(f"/{language}/attempts/{attempt.pk}/questions/2/"))
    assert answered_shown(page) == collapse(before)
    chosen_li = page.one("section", class_="question").one("li", class_="chosen")
    assert choice_text(chosen_li) == " ".join(before["choices"][0].split())

    # The API's attempt detail, in progress.
    api = token_client(student)
    body = api.get(attempt_url(attempt.pk), {"lang": language}).json()
    assert api_shown(body, question_2.pk) == {**before, "version": 1}

    # The result page, once finished.
    assert client.post(f"/{language}/attempts/{attempt.pk}/finish/").status_code == 302
    result = parse_html(client.get(f"/{language}/attempts/{attempt.pk}/result/"))
    assert review_shown(result, 2) == collapse(before)
    body = api.get(attempt_url(attempt.pk), {"lang": language}).json()
    assert api_shown(body, question_2.pk) == {**before, "version": 1}
    (feedback,) = [item for item in body["answers"] if item["question"] == question_2.pk]
    assert feedback["explanation"] == before["explanation"]

    # A new attempt shows the edit: on its page, in its feedback, in the API.
    second = web_start(client, language)
    assert second.pk != attempt.pk
    web_answer(client, language, second, 1, Question.objects.get(quiz__slug=GC, position=1).choices.first())
    page = parse_html(client.get(f"/{language}/attempts/{second.pk}/questions/2/"))
    assert form_shown(page) == {"text": after["text"], "choices": [" ".join(c.split()) for c in after["choices"]]}
    web_answer(client, language, second, 2, chosen)
    page = parse_html(client.get(f"/{language}/attempts/{second.pk}/questions/2/"))
    assert answered_shown(page) == collapse(after)
    assert Answer.objects.get(attempt=second, question=question_2).version.number == 2
    body = api.get(attempt_url(second.pk), {"lang": language}).json()
    assert api_shown(body, question_2.pk) == {**after, "version": 2}

    # And the first attempt's pages still show version 1.
    result = parse_html(client.get(f"/{language}/attempts/{attempt.pk}/result/"))
    assert review_shown(result, 2) == collapse(before)


def test_english_and_urdu_students_each_keep_what_they_read(content, question_2, parse_html):
    """Two students answer in their languages; after the edit each one's review is theirs."""
    readers = {language: enrolled_student(f"reader-{language}") for language in LANGUAGES}
    attempts = {}
    for language, user in readers.items():
        client = student_client(user)
        attempts[language] = web_start(client, language)
        web_answer(
            client, language, attempts[language], 1, Question.objects.get(quiz__slug=GC, position=1).choices.first()
        )
        web_answer(client, language, attempts[language], 2, question_2.choices.get(position=1))
    before = {language: old_texts(question_2, language) for language in LANGUAGES}
    edit(question_2)
    for language, user in readers.items():
        client = student_client(user)
        page = parse_html(client.get(f"/{language}/attempts/{attempts[language].pk}/questions/2/"))
        assert answered_shown(page) == collapse(before[language])
        answer = Answer.objects.get(attempt=attempts[language], question=question_2)
        assert (answer.version.number, answer.language) == (1, language)


def test_editing_a_question_nobody_was_shown_keeps_one_version(student, question_2):
    # The other quiz: nobody has started it.
    untouched = Question.objects.get(quiz__slug=ART, position=2)
    assert not Attempt.objects.exists()
    untouched.text_en = "Edited before anyone saw it?"
    untouched.save()
    choice = untouched.choices.get(position=1)
    choice.text_en = "An edited choice"
    choice.save()
    (version,) = QuestionVersion.objects.filter(question=untouched)
    assert version.number == 1
    assert version.texts["text_en"] == "Edited before anyone saw it?"
    assert [c["text_en"] for c in version.choices if c["id"] == choice.pk] == ["An edited choice"]

    # Nor does a save that changes nothing make a version, even of a question students were shown.
    client = student_client(student)
    web_start(client, "en")
    token = current_version(question_2).token
    question_2.save()
    question_2.choices.first().save()
    assert QuestionVersion.objects.filter(question=question_2).count() == 1
    assert current_version(question_2).token == token


def test_an_attempt_in_progress_keeps_its_versions_after_an_edit(student, question_2):
    """Started before the edit (its layout holds version 1), answered after it: the old texts,
    the old key and the old feedback. A student who starts after the edit gets version 2."""
    api = token_client(student)
    response = api.post(start_url(GC), format="json")
    assert response.status_code == 201
    attempt_id = response.json()["id"]
    old_right = question_2.choices.get(is_correct=True)
    old_explanation = question_2.explanation_en

    edit(question_2)
    # The key moves too: the old right choice is now wrong.
    new_right = question_2.choices.get(position=3)
    old_right.is_correct = False
    old_right.save()
    new_right.is_correct = True
    new_right.save()
    versions = QuestionVersion.objects.filter(question=question_2).order_by("number")
    assert [v.number for v in versions] == [1, 2]  # the edits after the first made no version 3
    assert (versions[0].correct_choice_id, versions[1].correct_choice_id) == (old_right.pk, new_right.pk)

    response = api.post(answers_url(attempt_id), {"question": question_2.pk, "choice": old_right.pk}, format="json")
    assert response.status_code == 201, response.content
    feedback = response.json()
    assert (feedback["correct"], feedback["correct_choice"]) == (True, old_right.pk)
    assert feedback["explanation"] == old_explanation
    answer = Answer.objects.get(attempt_id=attempt_id, question=question_2)
    assert (answer.is_correct, answer.version.number) == (True, 1)
    detail = api.get(attempt_url(attempt_id), {"lang": "en"}).json()
    shown = api_shown(detail, question_2.pk)
    assert (shown["text"], shown["version"]) == (versions[0].texts["text_en"], 1)

    # Someone starting now is shown version 2 and graded by its key.
    other = enrolled_student("late-student")
    other_api = token_client(other)
    other_id = other_api.post(start_url(GC), format="json").json()["id"]
    response = other_api.post(answers_url(other_id), {"question": question_2.pk, "choice": old_right.pk}, format="json")
    assert response.status_code == 201, response.content
    assert (response.json()["correct"], response.json()["correct_choice"]) == (False, new_right.pk)
    assert response.json()["explanation"] == NEW["explanation_en"]
    assert Answer.objects.get(attempt_id=other_id, question=question_2).version.number == 2


def test_the_quiz_title_is_not_versioned_an_edit_reaches_attempts_already_started(student, parse_html):
    """Only questions are versioned: a fixed quiz title shows at once on the pages of an attempt
    started before the fix, and of a new one with the same layout."""
    client = student_client(student)
    attempt = web_start(client, "ur")

    def crumbs(attempt_id: int) -> str:
        return parse_html(client.get(f"/ur/attempts/{attempt_id}/questions/1/")).one("p", class_="crumbs").text

    assert crumbs(attempt.pk) == " ".join(Quiz.objects.get(slug=GC).title_ur.split())
    quiz = Quiz.objects.get(slug=GC)
    quiz.title_ur = "درست کیا گیا عنوان"
    quiz.save()
    assert crumbs(attempt.pk) == "درست کیا گیا عنوان"
    assert client.post(f"/ur/attempts/{attempt.pk}/finish/").status_code == 302
    second = web_start(client, "ur")
    assert crumbs(second.pk) == "درست کیا گیا عنوان"


def test_each_answer_records_the_translation_revision_its_reader_saw(student):
    """An English fix changes what Urdu readers see only where Urdu falls back to English."""
    api = token_client(student)
    api.post(start_url(GC), format="json")  # every question's version 1 is held now
    translated_q, untranslated_q = (Question.objects.get(quiz__slug=GC, position=p) for p in (2, 3))
    assert translated_q.text_ur and not untranslated_q.text_ur
    for question in (translated_q, untranslated_q):
        question.text_en = f"{question.text_en} (fixed)"
        question.save()
    translated, untranslated = current_version(translated_q), current_version(untranslated_q)
    assert translated.number == untranslated.number == 2
    # English readers: a new revision of both.
    assert translated.revisions["en"]["texts"]["text"] == untranslated.revisions["en"]["texts"]["text"] == 2
    # Urdu readers of the translated question read the same Urdu text: still revision 1.
    assert translated.revisions["ur"] == {"question": 1, "texts": dict.fromkeys(translated.revisions["ur"]["texts"], 1)}
    # Urdu readers of the untranslated one read the English text: revision 2.
    assert (untranslated.revisions["ur"]["question"], untranslated.revisions["ur"]["texts"]["text"]) == (2, 2)
    assert untranslated.revisions["ur"]["texts"]["explanation"] == 1
