"""Item statistics per question version and per translation revision
(quizzes/reports/statistics.py, translation_flags.py and the page)."""

import pytest

from quizzes.attempts.regrade import question_correct_choice_change
from quizzes.models import Attempt
from quizzes.reports.statistics import quiz_statistics
from tests.factories import ChoiceFactory, QuizFactory
from tests.reports.test_item_statistics import client_for, make_question, seed_attempts, url

pytestmark = pytest.mark.django_db
FINISHED = Attempt.State.FINISHED


def picked(stats) -> dict[int, int]:
    return {choice.position: choice.count for choice in stats.choices}


@pytest.fixture
def edited(db):
    """Q answered on version 1 (choice 1 right), then edited (reworded, choice 2 renamed,
    choice 5 added): version 2, answered too. Scores: 1 right, 0 wrong.

    v1: 10 en choice 1 (right), 10 en choice 2
    v2: 10 en choice 1 (right), 5 en choice 5, 5 en choice 3

    40 finished, groups of ceil(0.27 * 40) = 11. Upper (score 1, lower id first): the 10 of
    v1 and 1 of v2, all right. Lower (score 0, higher id first): the 10 wrong of v2 and 1
    of v1, none right.
    """
    quiz = QuizFactory()
    question, choices = make_question(quiz, 1, correct=1)
    seed_attempts(
        quiz, [(10, "en", FINISHED, {question: choices[1]}, 1), (10, "en", FINISHED, {question: choices[2]}, 0)]
    )
    original_choice_2 = choices[2].text_en
    question.text_en = "Reworded?"
    question.save()
    choices[2].text_en = "Renamed choice"
    choices[2].save()
    choices[5] = ChoiceFactory(question=question, position=5, text_en="Added choice")
    seed_attempts(
        quiz,
        [
            (10, "en", FINISHED, {question: choices[1]}, 1),
            (5, "en", FINISHED, {question: choices[5]}, 0),
            (5, "en", FINISHED, {question: choices[3]}, 0),
        ],
    )
    return {"quiz": quiz, "question": question, "choices": choices, "original_choice_2": original_choice_2}


def test_figures_per_version_and_combined(edited):
    (stats,) = quiz_statistics(quiz=edited["quiz"], language="en").questions

    assert (stats.answers, stats.correct, stats.facility) == (40, 20, 50.0)
    assert picked(stats) == {1: 20, 2: 10, 3: 5, 4: 0, 5: 5}
    assert (stats.discrimination.upper_correct, stats.discrimination.lower_correct, stats.discrimination.index) == (
        11,
        0,
        1.0,
    )
    v1, v2 = stats.versions
    assert stats.shows_versions
    assert [(v.number, v.is_current, v.answers, v.correct, v.facility) for v in stats.versions] == [
        (1, False, 20, 10, 50.0),
        (2, True, 20, 10, 50.0),
    ]
    # Version 1 did not offer choice 5: no count for it there.
    assert picked(v1) == {1: 10, 2: 10, 3: 0, 4: 0}
    assert picked(v2) == {1: 10, 2: 0, 3: 5, 4: 0, 5: 5}
    # Choice texts as each version showed them.
    assert str(v1.choices[1].text) == edited["original_choice_2"]
    assert str(v2.choices[1].text) == "Renamed choice"
    assert [choice.is_correct for choice in v2.choices] == [True, False, False, False, False]
    # Discrimination within each group's attempts shown the version.
    d1, d2 = v1.discrimination, v2.discrimination
    assert (d1.upper_size, d1.upper_correct, d1.lower_size, d1.lower_correct, d1.index) == (10, 10, 1, 0, 1.0)
    assert (d2.upper_size, d2.upper_correct, d2.lower_size, d2.lower_correct, d2.index) == (1, 1, 10, 0, 1.0)
    assert [(language.language, language.answers, language.correct) for language in v1.languages] == [("en", 20, 10)]


def test_version_texts_fall_back_to_english_in_the_report_language(edited):
    (stats,) = quiz_statistics(quiz=edited["quiz"], language="ur").questions
    text = stats.versions[1].choices[1].text
    assert (str(text), text.language, text.is_fallback) == ("Renamed choice", "en", True)


def test_a_version_regraded_marks_its_new_key(edited, editor):
    question, choices = edited["question"], edited["choices"]
    question_correct_choice_change(question=question, new_correct=choices[2], changed_by=editor, versions=[1])

    (stats,) = quiz_statistics(quiz=edited["quiz"], language="en").questions

    v1, v2 = stats.versions  # version 3 (the new key) has no answers yet
    assert [choice.is_correct for choice in v1.choices] == [False, True, False, False]
    assert [choice.is_correct for choice in v2.choices] == [True, False, False, False, False]
    assert (v1.correct, v2.correct) == (10, 10)  # v1: the 10 who chose choice 2


def test_one_version_answered_shows_no_version_rows(edited, editor):
    quiz = QuizFactory()
    question, choices = make_question(quiz, 1, correct=1)
    seed_attempts(quiz, [(3, "en", FINISHED, {question: choices[1]}, 1)])
    (stats,) = quiz_statistics(quiz=quiz, language="en").questions
    assert len(stats.versions) == 1 and not stats.shows_versions
    page = client_for(editor).get(url(quiz))
    assert "version-statistics" not in page.text


def test_the_page_shows_each_version_in_accessible_tables(edited, editor, parse_html):
    page = parse_html(client_for(editor).get(url(edited["quiz"])).text)

    table = page.one("table", class_="version-statistics")
    assert table.one("caption").text.strip() == "Question 1 by version"
    assert [th.get("scope") for th in table.one("thead").find_all("th")] == ["col"] * 6
    rows = table.one("tbody").find_all("tr")
    assert [" ".join(row.one("th").text.split()) for row in rows] == ["Version 1", "Version 2 current"]
    assert [row.find_all("td")[:2] and [td.text.strip() for td in row.find_all("td")[:2]] for row in rows] == [
        ["20", "50.0%"],
        ["20", "50.0%"],
    ]
    captions = [table.one("caption").text.strip() for table in page.find_all("table", class_="version-choices")]
    assert captions == [
        "Choices of question 1 as version 1 showed them",
        "Choices of question 1 as version 2 showed them",
    ]


# The translation-problem flag, per revision ---------------------------------------------------


@pytest.fixture
def mistranslated(db):
    """Urdu reads a wrong translation of the question: en 27 of 30 right, ur 12 of 30."""
    quiz = QuizFactory()
    question, choices = make_question(quiz, 1, correct=1)
    question.text_ur = "غلط ترجمہ"
    question.save()
    answer = {True: {question: choices[1]}, False: {question: choices[2]}}
    seed_attempts(
        quiz,
        [
            (27, "en", FINISHED, answer[True], 1),
            (3, "en", FINISHED, answer[False], 0),
            (12, "ur", FINISHED, answer[True], 1),
            (18, "ur", FINISHED, answer[False], 0),
        ],
    )
    return {"quiz": quiz, "question": question, "answer": answer}


def language(quiz, code):
    (stats,) = quiz_statistics(quiz=quiz, language="en").questions
    return next(found for found in stats.languages if found.language == code)


def judged(found) -> tuple:
    return (found.revision, found.judged_answers, found.earlier_answers, found.flagged)


def test_a_fixed_translation_starts_a_fresh_count(mistranslated, editor, parse_html):
    quiz, question, answer = mistranslated["quiz"], mistranslated["question"], mistranslated["answer"]
    assert judged(language(quiz, "ur")) == (1, 30, 0, True)

    question.text_ur = "درست ترجمہ"  # the fix: version 2, Urdu revision 2, English still revision 1
    question.save()

    urdu, english = language(quiz, "ur"), language(quiz, "en")
    assert judged(urdu) == (2, 0, 30, False)  # its old answers no longer flag it
    assert (urdu.answers, urdu.correct) == (30, 12)  # still in the language's figures
    assert judged(english) == (1, 30, 0, False)

    # New answers to the fixed translation, and English answers to version 2 (same English).
    seed_attempts(quiz, [(23, "ur", FINISHED, answer[True], 1), (2, "ur", FINISHED, answer[False], 0)])
    seed_attempts(quiz, [(10, "en", FINISHED, answer[True], 1)])
    assert judged(language(quiz, "ur")) == (2, 25, 30, False)
    assert judged(language(quiz, "en")) == (1, 40, 0, False)

    # ... until new answers show a problem again: ur 23 of 50 (46%) against en 37 of 40.
    seed_attempts(quiz, [(25, "ur", FINISHED, answer[False], 0)])
    urdu = language(quiz, "ur")
    assert judged(urdu) == (2, 50, 30, True)
    assert round(urdu.judged_facility) == 46

    page = parse_html(client_for(editor).get(url(quiz)).text)
    flag = " ".join(page.one("ul", class_="translation-flags").text.split())
    assert "46% correct (50 answers to translation revision 2)" in flag
    assert "30 answers to an earlier translation not counted." in flag


def test_english_answers_count_only_for_the_current_english_text(mistranslated):
    quiz, question = mistranslated["quiz"], mistranslated["question"]

    question.text_en = "A new English wording?"  # Urdu has its own text: its revision stays 1
    question.save()

    english, urdu = language(quiz, "en"), language(quiz, "ur")
    assert judged(english) == (2, 0, 30, False)
    # Nothing to compare with until English answers the new wording.
    assert judged(urdu) == (1, 30, 0, False) and urdu.points_below_english is None
