"""Item statistics (quizzes/reports/statistics.py and its page): every figure
checked against a seeded pattern whose numbers are worked out by hand below.

The pattern (``seed_pattern``), 300 finished attempts in five blocks of 60,
created in this order (so attempt ids rise block by block), plus 10 attempts
in progress. Choice 1 is right in Q1, choice 2 in Q2 and Q3.

    block  attempts  language        Q1        Q2        Q3 (archived)  score
    A      60        en              c1 right  c2 right  c2 right       3
    B      60        ur              c3 wrong  c2 right  c2 right       2
    C      60        en              c1 right  c3 wrong  -              1
    D      60        ur              c1 right  c1 wrong  -              1
    E      45 + 15   id, then sn     c2 wrong  c4 wrong  -              0
    F      10        id, in progress c4 wrong  -         -              -

Q4 is archived and never answered (not shown); Q5 is asked but never
answered (shown, no data). Q2's choice 4 is archived but was picked (shown);
its choice 5 is archived and never picked (not shown).

Kelley groups: n = 300, group = ceil(27 * 300 / 100) = 81. Ranked by score
(ties: lower id first): A = ranks 1-60, B = 61-120, C = 121-180,
D = 181-240, E = 241-300. Upper = ranks 1-81 = all of A + the first 21 of
B; lower = ranks 220-300 = the last 21 of D + all of E.
"""

import csv
import io
import math

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from quizzes.models import Answer, Attempt, Question
from quizzes.reports.item_measures import kelley_group_size, point_biserial
from quizzes.reports.statistics import quiz_statistics
from quizzes.reports.translation_flags import two_proportion_p_value
from tests.factories import (
    ChoiceFactory,
    CourseFactory,
    QuestionFactory,
    QuizFactory,
    UserFactory,
    answer_rows,
)

User = get_user_model()


# Seeding ---------------------------------------------------------------------------------


def seed_attempts(quiz, blocks, *, max_score: int = 4) -> None:
    """Bulk-create attempts, one user each, in the order given.

    ``blocks``: (count, language, state, {question: choice}, score), where
    ``language`` may be a list of (count, language) to split the block.
    """
    now = timezone.now()
    start = User.objects.count()
    rows = []
    for count, language, state, picks, score in blocks:
        languages = language if isinstance(language, list) else [(count, language)]
        for part_count, part_language in languages:
            rows += [(part_language, state, picks, score)] * part_count
    users = User.objects.bulk_create(
        User(username=f"stat-{quiz.pk}-{start + index}", password="!") for index in range(len(rows))
    )
    finished = Attempt.State.FINISHED
    attempts = Attempt.objects.bulk_create(
        Attempt(
            user=user,
            quiz=quiz,
            number=1,
            state=state,
            finished_at=now if state == finished else None,
            score=score if state == finished else None,
            max_score=max_score,
            pass_mark=50,
        )
        for user, (_language, state, _picks, score) in zip(users, rows, strict=True)
    )
    Answer.objects.bulk_create(
        answer_rows(
            [
                {
                    "attempt": attempt,
                    "question": question,
                    "choice": choice,
                    "is_correct": choice.is_correct,
                    "language": language,
                }
                for attempt, (language, _state, picks, _score) in zip(attempts, rows, strict=True)
                for question, choice in picks.items()
            ]
        )
    )


def make_question(quiz, position, correct, *, choices=4, archived=False, archived_choices=()):
    question = QuestionFactory(quiz=quiz, position=position, is_archived=archived)
    made = {
        number: ChoiceFactory(
            question=question, position=number, is_correct=number == correct, is_archived=number in archived_choices
        )
        for number in range(1, choices + 1)
    }
    return question, made


@pytest.fixture
def pattern(db):
    quiz = QuizFactory(slug="stats-quiz", title_en="Statistics quiz")
    q1, c1 = make_question(quiz, 1, correct=1)
    q2, c2 = make_question(quiz, 2, correct=2, choices=5, archived_choices=(4, 5))
    q3, c3 = make_question(quiz, 3, correct=2, archived=True)
    q4, _c4 = make_question(quiz, 4, correct=1, archived=True)
    q5, _c5 = make_question(quiz, 5, correct=1)
    finished, in_progress = Attempt.State.FINISHED, Attempt.State.IN_PROGRESS
    seed_attempts(
        quiz,
        [
            (60, "en", finished, {q1: c1[1], q2: c2[2], q3: c3[2]}, 3),
            (60, "ur", finished, {q1: c1[3], q2: c2[2], q3: c3[2]}, 2),
            (60, "en", finished, {q1: c1[1], q2: c2[3]}, 1),
            (60, "ur", finished, {q1: c1[1], q2: c2[1]}, 1),
            (60, [(45, "id"), (15, "sn")], finished, {q1: c1[2], q2: c2[4]}, 0),
            (10, "id", in_progress, {q1: c1[4]}, None),
        ],
    )
    return {"quiz": quiz, "q1": q1, "q2": q2, "q3": q3, "q4": q4, "q5": q5}


def by_position(report):
    return {question.position: question for question in report.questions}


def picked(question):
    return {
        choice.position: (choice.count, None if choice.percent is None else round(choice.percent, 2))
        for choice in question.choices
    }


def languages(question):
    return {
        language.language: (language.answers, language.correct, round(language.facility, 2), language.flagged)
        for language in question.languages
    }


# The figures -------------------------------------------------------------------------------


def test_population_and_questions_shown(pattern):
    report = quiz_statistics(quiz=pattern["quiz"], language="en")
    assert report.finished_attempts == 300  # 5 blocks x 60
    assert report.in_progress_attempts == 10
    assert report.attempts == 300  # finished only by default
    assert report.group_size == 81  # ceil(0.27 * 300) = 81
    # points 60*3 + 60*2 + 60*1 + 60*1 + 60*0 = 420 of 300*4 = 1200 -> 35%
    assert report.mean_score_percent == pytest.approx(35.0)
    # Q4 is archived and unanswered: left out. Q3 archived but answered: kept, marked.
    assert [(q.position, q.is_archived) for q in report.questions] == [(1, False), (2, False), (3, True), (5, False)]


def test_facility_and_choices(pattern):
    questions = by_position(quiz_statistics(quiz=pattern["quiz"], language="en"))
    q1, q2, q3, q5 = questions[1], questions[2], questions[3], questions[5]
    # Q1 right in A, C, D: 180 of 300 = 60%
    assert (q1.answers, q1.correct, q1.facility) == (300, 180, 60.0)
    # c1 = A+C+D = 180 (60%), c2 = E = 60 (20%), c3 = B = 60 (20%), c4 = only in progress: 0
    assert picked(q1) == {1: (180, 60.0), 2: (60, 20.0), 3: (60, 20.0), 4: (0, 0.0)}
    assert [choice.is_correct for choice in q1.choices] == [True, False, False, False]
    # Q2 right in A, B: 120 of 300 = 40%
    assert (q2.answers, q2.correct, q2.facility) == (300, 120, 40.0)
    # c1 = D, c2 = A+B, c3 = C, c4 (archived, picked by E) = 60; c5 archived, never picked: hidden
    assert picked(q2) == {1: (60, 20.0), 2: (120, 40.0), 3: (60, 20.0), 4: (60, 20.0)}
    assert [choice.is_archived for choice in q2.choices] == [False, False, False, True]
    # Q3 answered by A and B only, all right: 120 of 120
    assert (q3.answers, q3.correct, q3.facility) == (120, 120, 100.0)
    assert picked(q3) == {1: (0, 0.0), 2: (120, 100.0), 3: (0, 0.0), 4: (0, 0.0)}
    # Q5: nobody answered
    assert (q5.answers, q5.facility, q5.discrimination, q5.point_biserial) == (0, None, None, None)
    assert picked(q5) == {1: (0, None), 2: (0, None), 3: (0, None), 4: (0, None)}


def test_discrimination_upper_and_lower_groups(pattern):
    questions = by_position(quiz_statistics(quiz=pattern["quiz"], language="en"))
    # Q1 upper: A (60, right) + 21 of B (wrong) = 60; lower: 21 of D (right) + E (wrong) = 21
    # D = (60 - 21) / 81 = 0.4815
    d1 = questions[1].discrimination
    assert (d1.group_size, d1.upper_correct, d1.lower_correct) == (81, 60, 21)
    assert d1.index == pytest.approx(39 / 81)
    # Q2 upper: A + 21 of B, all right = 81; lower: D and E wrong = 0 -> D = 1
    d2 = questions[2].discrimination
    assert (d2.upper_correct, d2.lower_correct, d2.index) == (81, 0, 1.0)
    # Q3 (only A and B answered, all right): upper 81, lower 0 (unanswered counts as not right)
    d3 = questions[3].discrimination
    assert (d3.upper_correct, d3.lower_correct, d3.index) == (81, 0, 1.0)


def test_ties_are_broken_by_attempt_id(db):
    # 20 finished attempts all scoring 1: group = ceil(5.4) = 6. The first six
    # (lowest ids) form the upper group, the last six the lower one.
    quiz = QuizFactory()
    question, choices = make_question(quiz, 1, correct=1)
    right, wrong = choices[1], choices[2]
    finished = Attempt.State.FINISHED
    seed_attempts(
        quiz,
        [
            (6, "en", finished, {question: right}, 1),  # ids 1-6: upper, all right
            (8, "en", finished, {question: wrong}, 1),
            (6, "en", finished, {question: wrong}, 1),  # ids 15-20: lower, all wrong
        ],
    )
    (stats,) = quiz_statistics(quiz=quiz, language="en").questions
    assert (stats.discrimination.group_size, stats.discrimination.upper_correct) == (6, 6)
    assert (stats.discrimination.lower_correct, stats.discrimination.index) == (0, 1.0)


def test_discrimination_is_na_below_twenty_finished_attempts(db):
    quiz = QuizFactory()
    question, choices = make_question(quiz, 1, correct=1)
    seed_attempts(quiz, [(19, "en", Attempt.State.FINISHED, {question: choices[1]}, 1)])
    report = quiz_statistics(quiz=quiz, language="en")
    assert not report.discrimination_available
    assert report.questions[0].discrimination is None
    assert report.questions[0].facility == 100.0


def test_item_rest_correlation(pattern):
    questions = by_position(quiz_statistics(quiz=pattern["quiz"], language="en"))
    # Q1: x = 1 for A, C, D; y = score - x: A 2, B 2, C 0, D 0, E 0.
    # n = 300, Σx = 180, Σy = 120 + 120 = 240, Σxy = 120, Σy² = 240 + 240 = 480
    # r = (300*120 - 180*240) / sqrt((300*180 - 180²)(300*480 - 240²))
    #   = -7200 / sqrt(21600 * 86400) = -7200 / 43200 = -1/6
    assert questions[1].point_biserial == pytest.approx(-1 / 6)
    # Q2: x = 1 for A, B; y: A 2, B 1, C 1, D 1, E 0.
    # Σx = 120, Σy = 120 + 60 + 60 + 60 = 300, Σxy = 120 + 60 = 180, Σy² = 240 + 60 + 60 + 60 = 420
    # r = (54000 - 36000) / sqrt((36000 - 14400)(126000 - 90000)) = 18000 / sqrt(21600 * 36000) = 0.645497
    assert questions[2].point_biserial == pytest.approx(0.645497, abs=1e-6)
    # Q3: everyone who answered got it right: no variance in x, n/a
    assert questions[3].point_biserial is None


def test_facility_by_language_and_flags(pattern):
    questions = by_position(quiz_statistics(quiz=pattern["quiz"], language="en"))
    # Q1: en = A+C: 120 of 120; ur = B+D: 60 of 120 (50 points below: flagged);
    # id = 45 of E: 0 (flagged); sn = 15 of E: 0 (100 points below, but 15 < 20 answers: not flagged)
    assert languages(questions[1]) == {
        "en": (120, 120, 100.0, False),
        "ur": (120, 60, 50.0, True),
        "sn": (15, 0, 0.0, False),
        "id": (45, 0, 0.0, True),
    }
    urdu = next(language for language in questions[1].languages if language.language == "ur")
    assert urdu.points_below_english == 50.0
    # pooled 180/240 = .75; se = sqrt(.75*.25*(1/120 + 1/120)) = 0.0559017; z = .5/.0559017 = 8.944
    assert urdu.p_value == pytest.approx(math.erfc(8.94427191 / math.sqrt(2)))
    # Q2: en = A right + C wrong: 60/120 = 50%; ur = B right + D wrong: 60/120 = 50% (0 below)
    assert languages(questions[2]) == {
        "en": (120, 60, 50.0, False),
        "ur": (120, 60, 50.0, False),
        "sn": (15, 0, 0.0, False),
        "id": (45, 0, 0.0, True),
    }
    # Q3: en = A 60/60, ur = B 60/60
    assert languages(questions[3]) == {"en": (60, 60, 100.0, False), "ur": (60, 60, 100.0, False)}
    assert [language.language for language in questions[1].flagged_languages] == ["ur", "id"]


def test_twenty_points_lower_but_not_significant_is_not_flagged(db):
    # en 16/20 = 80%, ur 12/20 = 60%: 20 points, n = 20 each, but
    # pooled .7, se = sqrt(.7*.3*(2/20)) = 0.144914, z = .2/.144914 = 1.380, p = 0.1675 >= 0.05
    quiz = QuizFactory()
    question, choices = make_question(quiz, 1, correct=1)
    finished = Attempt.State.FINISHED
    seed_attempts(
        quiz,
        [
            (16, "en", finished, {question: choices[1]}, 1),
            (4, "en", finished, {question: choices[2]}, 0),
            (12, "ur", finished, {question: choices[1]}, 1),
            (8, "ur", finished, {question: choices[2]}, 0),
        ],
    )
    (stats,) = quiz_statistics(quiz=quiz, language="en").questions
    assert languages(stats) == {"en": (20, 16, 80.0, False), "ur": (20, 12, 60.0, False)}
    assert stats.languages[1].p_value == pytest.approx(0.1675, abs=1e-4)


@pytest.mark.parametrize(
    ("urdu_right", "flagged"),
    [
        # en 40/40 = 100%, ur 32/40 = 80%: exactly 20 points below; pooled 72/80 = .9,
        # se = sqrt(.9*.1*(2/40)) = 0.06708, z = .2/.06708 = 2.98, p = 0.0029 < 0.05: flagged
        (32, True),
        # ur 33/40 = 82.5%: 17.5 points below (< 20) although p = 0.0056: not flagged
        (33, False),
    ],
)
def test_flag_boundary_of_twenty_points(db, urdu_right, flagged):
    quiz = QuizFactory()
    question, choices = make_question(quiz, 1, correct=1)
    finished = Attempt.State.FINISHED
    seed_attempts(
        quiz,
        [
            (40, "en", finished, {question: choices[1]}, 1),
            (urdu_right, "ur", finished, {question: choices[1]}, 1),
            (40 - urdu_right, "ur", finished, {question: choices[3]}, 0),
        ],
    )
    (stats,) = quiz_statistics(quiz=quiz, language="en").questions
    urdu = stats.languages[1]
    assert (urdu.language, urdu.answers, urdu.correct, urdu.flagged) == ("ur", 40, urdu_right, flagged)
    assert urdu.p_value < 0.05


def test_p_value_and_group_size_by_hand():
    # 16/20 vs 12/20 as above; identical proportions give p = 1
    assert two_proportion_p_value(16, 20, 12, 20) == pytest.approx(0.1675, abs=1e-4)
    assert two_proportion_p_value(10, 20, 10, 20) == 1.0
    assert two_proportion_p_value(20, 20, 20, 20) == 1.0
    # ceil(0.27 n): 100 -> 27 (floats say 27.000000000000004 -> 28), 10 -> 3, 300 -> 81, 301 -> 82
    assert [kelley_group_size(n) for n in (100, 10, 300, 301, 1)] == [27, 3, 81, 82, 1]
    assert point_biserial(1, 1, 0, 0, 0) is None


def test_in_progress_attempts_can_be_included(pattern):
    report = quiz_statistics(quiz=pattern["quiz"], language="en", include_in_progress=True)
    assert report.attempts == 310  # 300 finished + 10 in progress
    q1 = by_position(report)[1]
    # F adds 10 wrong answers (c4, Indonesian): 180 of 310 = 58.06%
    assert (q1.answers, q1.correct, round(q1.facility, 2)) == (310, 180, 58.06)
    # c1 180/310 = 58.06%, c2 60/310 = 19.35%, c3 60/310 = 19.35%, c4 10/310 = 3.23%
    assert picked(q1) == {1: (180, 58.06), 2: (60, 19.35), 3: (60, 19.35), 4: (10, 3.23)}
    assert languages(q1)["id"] == (55, 0, 0.0, True)  # 45 + 10
    # Discrimination still ranks the finished attempts only.
    assert (q1.discrimination.upper_correct, q1.discrimination.lower_correct) == (60, 21)


def test_a_fixed_number_of_queries_whatever_the_number_of_answers(pattern):
    with CaptureQueriesContext(connection) as big:
        quiz_statistics(quiz=pattern["quiz"], language="en")
    quiz = QuizFactory()
    question, choices = make_question(quiz, 1, correct=1)
    seed_attempts(quiz, [(25, "en", Attempt.State.FINISHED, {question: choices[1]}, 1)])
    with CaptureQueriesContext(connection) as small:
        quiz_statistics(quiz=quiz, language="en")
    # attempts summary, questions, choices, versions, regrades, and one grouped pass over the
    # answers (the upper and lower groups are subqueries of it and of the versions')
    assert len(big) == len(small) == 6


def test_texts_in_the_page_language_with_english_fallback(pattern):
    Question.objects.filter(pk=pattern["q1"].pk).update(text_ur="سوال ایک")
    questions = by_position(quiz_statistics(quiz=pattern["quiz"], language="ur"))
    assert (questions[1].text.text, questions[1].text.is_fallback) == ("سوال ایک", False)
    assert questions[2].text.is_fallback


# The pages --------------------------------------------------------------------------------


def url(quiz, language="en"):
    return f"/{language}/admin/reports/quizzes/{quiz.pk}/statistics/"


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_url_names():
    assert reverse("staff:statistics_index") == "/en/admin/reports/statistics/"
    assert reverse("staff:quiz_statistics", args=[7]) == "/en/admin/reports/quizzes/7/statistics/"


def test_anonymous_goes_to_the_admin_login(pattern):
    response = Client().get(url(pattern["quiz"]))
    assert response.status_code == 302
    assert response["Location"].startswith("/en/admin/login/?next=")


def test_a_student_is_refused(pattern):
    student = UserFactory(username="plain-student")
    for path in (url(pattern["quiz"]), "/en/admin/reports/statistics/"):
        response = client_for(student).get(path)
        assert response.status_code == 302 and "/admin/login/" in response["Location"]
    # Staff without the permission: 403
    bare_staff = UserFactory(username="bare-staff", is_staff=True)
    assert client_for(bare_staff).get(url(pattern["quiz"])).status_code == 403


@pytest.mark.parametrize("who", ["editor", "teacher"])
def test_staff_see_the_report(pattern, editor, teacher, who, parse_html):
    user = {"editor": editor, "teacher": teacher}[who]
    response = client_for(user).get(url(pattern["quiz"]))
    assert response.status_code == 200
    page = parse_html(response)
    summary = page.one("table", class_="statistics-summary")
    rows = summary.find("tbody").find_all("tr")
    assert len(rows) == 4  # Q1, Q2, Q3 (archived), Q5
    cells = [cell.text for cell in rows[0].find_all("td")]
    assert cells[:4] == ["300", "60.0%", "0.48", "-0.17"]
    assert "archived" in rows[2].find("th").text
    assert "The statistics count the 300 finished attempts" in page.one("section", class_="population").text
    index = client_for(user).get("/en/admin/reports/statistics/")
    assert index.status_code == 200
    assert parse_html(index).find("a", href=url(pattern["quiz"])) is not None


def test_flags_link_to_the_question_admin(pattern, editor, parse_html):
    page = parse_html(client_for(editor).get(url(pattern["quiz"])))
    flags = page.one("ul", class_="translation-flags").find_all("li")
    # Q1 ur, Q1 id, Q2 id
    assert len(flags) == 3
    expected = "question 1 in Urdu: 50% correct (120 answers to translation revision 1), 50 points below English"
    assert expected in flags[0].text
    q1_admin = reverse("admin:quizzes_question_change", args=[pattern["q1"].pk])
    q2_admin = reverse("admin:quizzes_question_change", args=[pattern["q2"].pk])
    assert [flag.find("a")["href"] for flag in flags] == [q1_admin, q1_admin, q2_admin]


def test_chart_is_inline_accessible_svg(pattern, editor, parse_html):
    page = parse_html(client_for(editor).get(url(pattern["quiz"])))
    section = page.one("section", id="question-1")
    svg = section.one("svg")
    assert svg["role"] == "img" and svg["aria-label"].startswith("Question 1")
    assert svg.one("title").text.startswith("Question 1")
    assert "Choice 1: 180 answers, 60% (correct answer)" in svg.one("desc").text
    bars = svg.find_all("g", class_="bar")
    assert [bar.find_all("text")[1].text for bar in bars] == ["60% (180)", "20% (60)", "20% (60)", "0% (0)"]
    correct = svg.one("g", class_="correct")
    assert correct.find("text").text == "✓ Choice 1"
    assert correct.find("rect")["fill"].startswith("url(#chart-q")
    assert not page.find_all(style=True)  # the CSP forbids inline styles


def test_urdu_page_mirrors_the_chart(pattern, editor, parse_html):
    response = client_for(editor).get(url(pattern["quiz"], "ur"))
    assert response.status_code == 200
    page = parse_html(response)
    assert page.one("html")["dir"] == "rtl"
    svg = page.one("section", id="question-1").one("svg")
    assert svg["direction"] == "rtl"
    label = svg.one("g", class_="correct").find("text")
    assert (label["direction"], label["text-anchor"]) == ("rtl", "start")
    assert "Noto Nastaliq Urdu" in label["font-family"]
    # The label sits on the right, the bar grows leftwards from the axis at 480 - 120 = 360.
    rect = svg.one("g", class_="correct").find("rect")
    assert float(label["x"]) > float(rect["x"]) + float(rect["width"]) - 0.01


def test_include_in_progress_option(pattern, editor, parse_html):
    page = parse_html(client_for(editor).get(url(pattern["quiz"]) + "?include=in_progress"))
    row = page.one("table", class_="statistics-summary").find("tbody").find("tr")
    assert [cell.text for cell in row.find_all("td")][:2] == ["310", "58.1%"]


def test_csv_download(pattern, editor):
    response = client_for(editor).get(url(pattern["quiz"]) + "?format=csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [row["question"] for row in rows] == ["1", "2", "3", "5"]
    assert rows[0]["facility_percent"] == "60.0"
    assert (rows[0]["upper_correct"], rows[0]["lower_correct"], rows[0]["group_size"]) == ("60", "21", "81")
    assert rows[0]["choice_counts"] == "1*:180 2:60 3:60 4:0"
    assert rows[0]["flagged_languages"] == "ur id"


def test_quiz_without_attempts_says_no_data_yet(db, editor, parse_html):
    quiz = QuizFactory(course=CourseFactory())
    make_question(quiz, 1, correct=1)
    response = client_for(editor).get(url(quiz))
    assert response.status_code == 200
    page = parse_html(response)
    assert "No data yet" in page.one("p", class_="no-data").text
    assert page.find("svg", class_="chart") is None


@pytest.mark.parametrize(
    "path",
    [
        "/en/admin/reports/quizzes/999999/statistics/",
        "/en/admin/reports/quizzes/0/statistics/",
        "/en/admin/reports/quizzes/123456789012345678901234567890/statistics/",
        "/en/admin/reports/quizzes/abc/statistics/",
        "/en/admin/reports/quizzes/-1/statistics/",
    ],
)
def test_bad_ids_are_404(editor, path):
    assert client_for(editor).get(path).status_code == 404


def test_page_queries_do_not_grow_with_answers(pattern, editor):
    client = client_for(editor)
    quiz = QuizFactory()
    question, choices = make_question(quiz, 1, correct=1)
    seed_attempts(quiz, [(25, "en", Attempt.State.FINISHED, {question: choices[1]}, 1)])
    counts = []
    for target in (quiz, pattern["quiz"]):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url(target)).status_code == 200
        counts.append(len(queries))
    # session, user, user and group permissions, quiz, the 6 statistics queries
    assert counts == [11, 11]
