"""The grading rule (quizzes/attempts/grading.py) and every place that shows it.

First the rule itself: its Python functions and its ORM expressions agree on a table of
cases (no questions, score 0, pass marks 0 and 100, rounding down, values past a smallint),
and a quiz's progress is the same from the Python functions, from the database's aggregates
(the gradebook's, the ORM oracle's) and from the fixed statement production reads.

Then the figures: a few students with attempts (one at a quiz whose questions were all
archived, max_score 0), the same percent, verdict, best, attempts and course progress on the
dashboard, the quiz and result pages, the API (progress, quiz list, quiz, attempt, finish),
the gradebook page and its CSV; and again after a regrade changed some of them.
"""

import csv
import io
import re
from typing import NamedTuple

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from quizzes.attempts import grading
from quizzes.attempts.regrade import question_correct_choice_change, question_regrade_plan
from quizzes.attempts.selectors import student_courses, student_quizzes
from quizzes.models import Attempt, Course
from quizzes.reports.gradebook import gradebook_cells
from tests.api import (
    PROGRESS_URL,
    QUIZZES_URL,
    answer,
    attempt_url,
    finish_url,
    quiz_url,
    right,
    start,
    wrong,
)
from tests.api.conftest import token_client
from tests.factories import (
    AttemptFactory,
    ChoiceFactory,
    CourseFactory,
    EnrollmentFactory,
    QuestionFactory,
    QuizFactory,
    UserFactory,
)
from tests.progress_oracle import progress_of, quiz_progress_oracle

GC = "gradient-checkpointing"
AR = "activation-recomputation-tradeoffs"
EMPTY = "all-archived"
COURSE = "memory-efficient-training"


# The rule: Python and SQL -------------------------------------------------------------------

# (score, max_score, pass_mark) -> (percent, passed); a score of None is an attempt in progress.
CASES = [
    ((None, 8, 70), (None, None)),
    ((None, 0, 0), (None, None)),  # in progress at a quiz with no question: still no grade
    ((0, 0, 70), (0, False)),  # no question: 0 %, not passed ...
    ((0, 0, 100), (0, False)),
    ((0, 0, 0), (0, True)),  # ... unless the pass mark is 0
    ((0, 8, 0), (0, True)),  # a pass mark of 0 passes everyone who finished
    ((0, 8, 1), (0, False)),
    ((0, 8, 70), (0, False)),
    ((8, 8, 100), (100, True)),
    ((7, 8, 100), (87, False)),
    ((6, 8, 75), (75, True)),  # exactly at the pass mark
    ((5, 8, 62), (62, True)),  # 62.5 % rounds down to 62, and reaches 62
    ((5, 8, 63), (62, False)),
    ((2, 3, 66), (66, True)),  # 66.7 %: shown as 66, reaches 66 ...
    ((2, 3, 67), (66, False)),  # ... and not 67
    ((1, 3, 33), (33, True)),
    ((1, 3, 34), (33, False)),
    ((1, 1, 100), (100, True)),
    ((400, 500, 80), (80, True)),  # 80 * 500 = 40,000: past a smallint
    ((399, 500, 80), (79, False)),
    ((32767, 32767, 100), (100, True)),  # 32,767 * 100: past a smallint, and a pass mark of 100
    ((32766, 32767, 100), (99, False)),
    ((1, 32767, 0), (0, True)),
    ((32767, 32767, 0), (100, True)),
]


def make_attempt(user, quiz, number: int, score, max_score: int, pass_mark: int) -> Attempt:
    finished = score is not None
    return AttemptFactory(
        user=user,
        quiz=quiz,
        number=number,
        state=Attempt.State.FINISHED if finished else Attempt.State.IN_PROGRESS,
        finished_at=timezone.now() if finished else None,
        score=score,
        max_score=max_score,
        pass_mark=pass_mark,
    )


@pytest.mark.django_db
def test_python_and_sql_agree_on_every_case():
    quiz = QuizFactory()
    made = [make_attempt(UserFactory(), quiz, 1, *case) for case, _expected in CASES]
    in_database = {
        attempt.pk: (attempt.percent_db, attempt.passed_db)
        for attempt in Attempt.objects.filter(quiz=quiz).annotate(
            percent_db=grading.percent_sql(), passed_db=grading.passed_sql()
        )
    }
    passing = set(Attempt.objects.filter(quiz=quiz).filter(grading.passed_sql()).values_list("pk", flat=True))
    for attempt, ((score, max_score, pass_mark), expected) in zip(made, CASES, strict=True):
        python = (grading.percent(score, max_score), grading.passed(score, max_score, pass_mark))
        assert python == expected, (score, max_score, pass_mark)
        assert in_database[attempt.pk] == expected, (score, max_score, pass_mark, connection.vendor)
        assert (attempt.percent, attempt.passed) == expected  # the model delegates
        assert (attempt.pk in passing) is bool(expected[1])


class Progress(NamedTuple):
    attempts_used: int
    best_percent: int | None
    passed: bool


# A student's attempts at one quiz -> the quiz's progress.
GROUPS = {
    "nothing": ([], Progress(0, None, False)),
    "in progress only": ([(None, 8, 70)], Progress(1, None, False)),
    "no question": ([(0, 0, 70)], Progress(1, 0, False)),
    "no question, pass mark 0": ([(0, 0, 0)], Progress(1, 0, True)),
    "no question, then a real attempt": ([(0, 0, 70), (3, 8, 70)], Progress(2, 37, False)),
    "the best is not the one that passed": ([(6, 8, 80), (5, 8, 50)], Progress(2, 75, True)),
    "passed once, whatever came after": ([(8, 8, 70), (0, 8, 70), (None, 8, 70)], Progress(3, 100, True)),
    "rounded down, and not passed": ([(2, 3, 67)], Progress(1, 66, False)),
    "large": ([(32766, 32767, 100), (400, 500, 80), (None, 32767, 100)], Progress(3, 99, True)),
}


@pytest.mark.django_db
def test_a_quizs_progress_is_the_same_from_python_the_aggregates_and_the_statement():
    course = CourseFactory()
    quiz = QuizFactory(course=course)
    users = {}
    for name, (attempts, _expected) in GROUPS.items():
        users[name] = UserFactory()
        EnrollmentFactory(user=users[name], course=course)
        for number, case in enumerate(attempts, start=1):
            make_attempt(users[name], quiz, number, *case)
    cells = gradebook_cells(student_ids=[user.pk for user in users.values()], quizzes=[quiz])
    for name, (_attempts, expected) in GROUPS.items():
        user = users[name]
        python = grading.quiz_progress(Attempt.objects.filter(user=user, quiz=quiz))
        assert Progress(*python[:3]) == expected, name
        (production,) = student_quizzes(user=user)  # the fixed statement, graded in Python
        assert progress_of(production) == python, name
        (oracle,) = quiz_progress_oracle(user=user)  # the database adding up the ORM expressions
        assert progress_of(oracle) == python, name
        cell = cells.get((user.pk, quiz.pk))
        if cell is None:
            assert expected.attempts_used == 0, name
        else:
            assert Progress(cell.attempts, cell.best_percent, cell.passed) == expected, name
        (with_progress,) = student_courses(user=user)
        assert with_progress.progress == grading.CourseProgress(passed=int(expected.passed), total=1)


def test_best_attempt_and_course_progress():
    attempts = [
        grading.AttemptScore(1, grading.FINISHED, 6, 8, 80),
        grading.AttemptScore(2, grading.FINISHED, 3, 4, 50),  # 75 % too: the first started is the best
        grading.AttemptScore(3, grading.IN_PROGRESS, None, 8, 50),
    ]
    assert grading.best_attempt(attempts).id == 1
    assert grading.best_attempt(attempts[2:]) is None
    assert grading.quiz_progress(attempts) == grading.QuizProgress(3, 75, True, 3)

    class Quiz(NamedTuple):
        passed: bool

    assert grading.course_progress([Quiz(True), Quiz(False), Quiz(True)]) == (2, 3)
    assert grading.course_progress([]) == (0, 0)


# Every place that shows the figures -------------------------------------------------------


class Figures(NamedTuple):
    """What one surface shows of one student: some of these may be left empty."""

    course: tuple[int, int] | None  # (quizzes passed, quizzes)
    quizzes: dict[str, Progress]
    attempts: dict[int, tuple[int, int, int, bool]]  # id -> (score, max_score, percent, passed)


def take(client, quiz, right_positions: set[int], *, finish: bool = True) -> int:
    """An attempt through the API, right at ``right_positions`` and wrong elsewhere; its id."""
    attempt_id = start(client, quiz.slug)
    for position in range(1, quiz.questions.filter(is_archived=False).count() + 1):
        choice = right(quiz, position) if position in right_positions else wrong(quiz, position)
        assert answer(client, attempt_id, choice).status_code == 201
    if finish:
        assert client.post(finish_url(attempt_id)).status_code == 200
    return attempt_id


@pytest.fixture
def school(content, editor):
    """Five students enrolled in memory-efficient-training, whose third quiz (pass mark 50)
    had its only question archived before anyone started it. Pass marks are 70 unless said.

    ayesha  GC 6/8 (75 %, passes), then 1/8 (12 %); AR 5/8 (62 %)
    bilal   GC 5/8 (62 %, wrong at question 6); AR in progress
    chen    GC 8/8; the empty quiz: 0 of 0, 0 %, not passed
    dina    GC 7/8 (87 %) against a pass mark of 90, then 5/8 (62 %) against 50: her best
            attempt is not the one that passed
    emma    nothing
    """
    course = Course.objects.get(slug=COURSE)
    empty = QuizFactory(course=course, slug=EMPTY, position=3, title_en="All archived", pass_mark=50)
    archived = QuestionFactory(quiz=empty, position=1, is_archived=True)
    ChoiceFactory(question=archived, position=1, is_correct=True)
    users, api = {}, {}
    for name in ("ayesha", "bilal", "chen", "dina", "emma"):
        users[name] = UserFactory(username=name)
        EnrollmentFactory(user=users[name], course=course)
        api[name] = token_client(users[name])
    gc, ar = content[GC], content[AR]
    ids = {
        "ayesha": [take(api["ayesha"], gc, {1, 2, 3, 4, 5, 6}), take(api["ayesha"], gc, {1})],
        "bilal": [take(api["bilal"], gc, {1, 2, 3, 4, 5})],
        "chen": [take(api["chen"], gc, set(range(1, 9))), take(api["chen"], empty, set())],
    }
    ids["ayesha"].append(take(api["ayesha"], ar, {1, 2, 3, 4, 5}))
    ids["bilal"].append(take(api["bilal"], ar, {1}, finish=False))
    ids["dina"] = []
    for pass_mark, right_positions in ((90, set(range(1, 8))), (50, {1, 2, 3, 4, 5})):
        gc.pass_mark = pass_mark  # copied onto the attempt when it starts
        gc.save()
        ids["dina"].append(take(api["dina"], gc, right_positions))
    gc.pass_mark = 70
    gc.save()
    return {"users": users, "api": api, "ids": ids, "course": course, "editor": editor}


def expected_before(ids) -> dict[str, Figures]:
    none = Progress(0, None, False)
    a, b, c, d = ids["ayesha"], ids["bilal"], ids["chen"], ids["dina"]
    return {
        "ayesha": Figures(
            (1, 3),
            {GC: Progress(2, 75, True), AR: Progress(1, 62, False), EMPTY: none},
            {a[0]: (6, 8, 75, True), a[1]: (1, 8, 12, False), a[2]: (5, 8, 62, False)},
        ),
        "bilal": Figures(
            (0, 3), {GC: Progress(1, 62, False), AR: Progress(1, None, False), EMPTY: none}, {b[0]: (5, 8, 62, False)}
        ),
        "chen": Figures(
            (1, 3),
            {GC: Progress(1, 100, True), AR: none, EMPTY: Progress(1, 0, False)},
            {c[0]: (8, 8, 100, True), c[1]: (0, 0, 0, False)},
        ),
        "dina": Figures(
            (1, 3),
            {GC: Progress(2, 87, True), AR: none, EMPTY: none},
            {d[0]: (7, 8, 87, False), d[1]: (5, 8, 62, True)},
        ),
        "emma": Figures((0, 3), {GC: none, AR: none, EMPTY: none}, {}),
    }


def expected_after_regrade(ids) -> dict[str, Figures]:
    """Question 6 of GC regraded: its first wrong choice is now the right one."""
    before = expected_before(ids)
    a, b, c, d = ids["ayesha"], ids["bilal"], ids["chen"], ids["dina"]
    return {
        "ayesha": Figures(
            (0, 3),
            {**before["ayesha"].quizzes, GC: Progress(2, 62, False)},
            {**before["ayesha"].attempts, a[0]: (5, 8, 62, False), a[1]: (2, 8, 25, False)},
        ),
        "bilal": Figures((1, 3), {**before["bilal"].quizzes, GC: Progress(1, 75, True)}, {b[0]: (6, 8, 75, True)}),
        "chen": Figures(
            (1, 3),
            {**before["chen"].quizzes, GC: Progress(1, 87, True)},
            {**before["chen"].attempts, c[0]: (7, 8, 87, True)},
        ),
        "dina": Figures(
            (1, 3),
            {**before["dina"].quizzes, GC: Progress(2, 75, True)},
            {d[0]: (6, 8, 75, False), d[1]: (6, 8, 75, True)},
        ),
        "emma": before["emma"],
    }


def web_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def percent_of(text: str) -> int | None:
    found = re.match(r"\s*(\d+)%", text)
    return int(found.group(1)) if found else None


def dashboard(client, parse_html) -> Figures:
    page = parse_html(client.get("/en/"))
    (section,) = page.find_all("section", class_="course")
    progress = section.one("progress")
    quizzes = {}
    for item in section.find_all("li", class_="quiz-item"):
        slug = item.one("a")["href"].rstrip("/").rsplit("/", 1)[-1]
        attempts, best, status = item.find_all("dd")
        quizzes[slug] = Progress(
            int(attempts.text), percent_of(best.text), status.find("span", class_="pass") is not None
        )
    return Figures((int(progress["value"]), int(progress["max"])), quizzes, {})


def attempt_row(text_score: str, text_result: str) -> tuple[int, int, int, bool]:
    score, max_score, percent = map(int, re.fullmatch(r"(\d+)/(\d+) \((\d+)%\)", text_score).groups())
    return score, max_score, percent, text_result.startswith("✓")


def quiz_pages(client, parse_html, slugs) -> Figures:
    """Each quiz's page: its grade, and the table of attempts."""
    quizzes, attempts = {}, {}
    for slug in slugs:
        page = parse_html(client.get(f"/en/quizzes/{slug}/"))
        grade = page.one("dl", class_="facts").find_all("dd")[3]
        rows = page.find("tbody").find_all("tr") if page.find("tbody") else []
        for row in rows:
            _started, score, result, link = row.find_all("td")
            if score.text != "in progress":
                attempt_id = int(re.search(r"/attempts/(\d+)/result/", link.one("a")["href"]).group(1))
                attempts[attempt_id] = attempt_row(score.text, result.text)
        quizzes[slug] = Progress(len(rows), percent_of(grade.text), grade.find("span", class_="pass") is not None)
    return Figures(None, quizzes, attempts)


def result_pages(client, parse_html, attempt_ids) -> Figures:
    attempts = {}
    for attempt_id in attempt_ids:
        page = parse_html(client.get(f"/en/attempts/{attempt_id}/result/"))
        section = page.one("section", class_="result")
        score, max_score, percent = map(
            int, re.fullmatch(r"(\d+) of (\d+) correct \((\d+)%\)", section.one("p", id="score").text).groups()
        )
        attempts[attempt_id] = (score, max_score, percent, "passed" in section.classes)
    return Figures(None, {}, attempts)


def api_quiz(data) -> Progress:
    return Progress(data["attempts_used"], data["best_percent"], data["passed"])


def api_progress(client) -> Figures:
    (course,) = client.get(PROGRESS_URL).json()["results"]
    quizzes = {quiz["slug"]: api_quiz(quiz) for quiz in course["quizzes"]}
    return Figures((course["quizzes_passed"], course["quizzes_total"]), quizzes, {})


def api_quizzes(client) -> Figures:
    listed = {quiz["slug"]: api_quiz(quiz) for quiz in client.get(QUIZZES_URL).json()["results"]}
    one_by_one = {slug: api_quiz(client.get(quiz_url(slug)).json()) for slug in listed}
    assert one_by_one == listed
    return Figures(None, listed, {})


def api_attempts(client, attempt_ids, *, finish: bool) -> Figures:
    """Each attempt as GET /attempts/<id>/ gives it, or (``finish``) a repeated finish."""
    attempts = {}
    for attempt_id in attempt_ids:
        body = client.post(finish_url(attempt_id)).json() if finish else client.get(attempt_url(attempt_id)).json()
        if body["score"] is not None:
            attempts[attempt_id] = (body["score"], body["max_score"], body["percent"], body["passed"])
    return Figures(None, {}, attempts)


def gradebook_url(name: str) -> str:
    with translation.override("en"):
        return reverse(f"staff:{name}", args=[COURSE])


def gradebook_page(client, parse_html) -> tuple[dict[str, Figures], dict[str, int]]:
    """Each student's cells, and how many students passed each quiz."""
    table = parse_html(client.get(gradebook_url("gradebook"))).one("table", class_="gradebook-table")
    slugs = [GC, AR, EMPTY]  # the columns, in the course's order
    heads = table.one("thead").find_all("th", class_="quiz-column")
    passed_counts = {
        slug: int(head.one("span", class_="quiz-passed").text.split()[0])
        for slug, head in zip(slugs, heads, strict=True)
    }
    found = {}
    for row in table.one("tbody").find_all("tr"):
        cells = row.find_all("td")[1:]
        quizzes = {}
        for slug, cell in zip(slugs, cells, strict=True):
            count = cell.find("a", class_="attempt-count")
            best = cell.find("span", class_="best")
            quizzes[slug] = Progress(
                int(count.text.split()[0]) if count else 0,
                percent_of(best.text) if best else None,
                "passed" in cell.classes,
            )
        found[row.one("th").one("a").text] = Figures(None, quizzes, {})
    return found, passed_counts


def gradebook_csv(client) -> dict[str, Figures]:
    response = client.get(gradebook_url("gradebook_export"))
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    found = {}
    for row in rows[1:]:
        quizzes = {}
        for index, slug in enumerate([GC, AR, EMPTY]):
            best, attempts, passed = row[3 + 3 * index : 6 + 3 * index]
            quizzes[slug] = Progress(int(attempts), int(best) if best else None, passed == "yes")
        found[row[0]] = Figures(None, quizzes, {})
    return found


def assert_everywhere(school, expected: dict[str, Figures], parse_html) -> None:
    editor = web_client(school["editor"])
    book, passed_counts = gradebook_page(editor, parse_html)
    exported = gradebook_csv(editor)
    assert set(book) == set(exported) == set(expected)
    for slug in (GC, AR, EMPTY):
        assert passed_counts[slug] == sum(figures.quizzes[slug].passed for figures in expected.values()), slug
    for name, figures in expected.items():
        user, api = school["users"][name], school["api"][name]
        web = web_client(user)
        ids = school["ids"].get(name, [])
        finished = list(figures.attempts)  # the finished attempts' ids
        surfaces = {
            "dashboard": dashboard(web, parse_html),
            "quiz pages": quiz_pages(web, parse_html, [GC, AR, EMPTY]),
            "result pages": result_pages(web, parse_html, finished),
            "API progress": api_progress(api),
            "API quizzes": api_quizzes(api),
            "API attempts": api_attempts(api, ids, finish=False),
            "API finish": api_attempts(api, finished, finish=True),
            "gradebook": book[name],
            "gradebook CSV": exported[name],
        }
        for surface, shown in surfaces.items():
            if shown.course is not None:
                assert shown.course == figures.course, (name, surface)
            if shown.quizzes:
                assert shown.quizzes == figures.quizzes, (name, surface)
            if surface in ("quiz pages", "result pages", "API attempts", "API finish"):
                assert shown.attempts == figures.attempts, (name, surface)
        # And the one definition says so too, from the rows.
        for slug, progress in figures.quizzes.items():
            attempts = Attempt.objects.filter(user=user, quiz__slug=slug)
            assert Progress(*grading.quiz_progress(attempts)[:3]) == progress, (name, slug)


def test_the_same_figures_everywhere_and_after_a_regrade(school, content, parse_html):
    ids = school["ids"]
    empty_attempt = Attempt.objects.get(pk=ids["chen"][1])
    assert (empty_attempt.max_score, empty_attempt.score) == (0, 0)  # its only question was archived
    assert_everywhere(school, expected_before(ids), parse_html)

    gc = content[GC]
    question = gc.questions.get(position=6)
    new_key = wrong(gc, 6)
    plan = question_regrade_plan(question=question, new_correct=new_key)
    # Every GC attempt; ayesha falls below the pass mark and bilal reaches it.
    assert sorted((change.old_score, change.new_score) for change in plan.scores) == [
        (1, 2),
        (5, 6),
        (5, 6),
        (6, 5),
        (7, 6),
        (8, 7),
    ]
    assert plan.pass_changes == 2
    assert sorted((c.passed_before, c.passed_after) for c in plan.scores if c.passed_before != c.passed_after) == [
        (False, True),
        (True, False),
    ]
    regrade = question_correct_choice_change(question=question, new_correct=new_key, changed_by=school["editor"])
    assert regrade.attempts_regraded == 6

    assert_everywhere(school, expected_after_regrade(ids), parse_html)
