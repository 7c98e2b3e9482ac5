"""The gradebook: every cell checked against numbers worked out by hand, the CSV
export byte for byte where it matters, who may see it, and a fixed query count."""

import csv
import io

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone, translation

from quizzes.enrollment.services import enrollment_create, enrollment_delete
from quizzes.models import Attempt
from quizzes.reports import gradebook_views
from quizzes.reports.gradebook import GradebookFilters, gradebook_cells, gradebook_students
from tests.factories import AttemptFactory, CourseFactory, QuizFactory, UserFactory

pytestmark = pytest.mark.django_db

BOM = b"\xef\xbb\xbf"
URDU_NAME = "علی"


def url(name, *args, language="en", **query):
    with translation.override(language):
        path = reverse(f"staff:{name}", args=args)
    if query:
        from urllib.parse import urlencode

        path += "?" + urlencode(query)
    return path


def finished(user, quiz, number, score, *, max_score=8, pass_mark=None):
    return AttemptFactory(
        user=user,
        quiz=quiz,
        number=number,
        state=Attempt.State.FINISHED,
        finished_at=timezone.now(),
        score=score,
        max_score=max_score,
        pass_mark=quiz.pass_mark if pass_mark is None else pass_mark,
    )


def in_progress(user, quiz, number):
    return AttemptFactory(user=user, quiz=quiz, number=number, state=Attempt.State.IN_PROGRESS, max_score=8)


@pytest.fixture
def book(db):
    """A course with two published quizzes and an unpublished one, and a known pattern of attempts.

    quiz-1 (pass mark 50), quiz-2 (pass mark 80), quiz-3 (unpublished).
    alice  quiz-1: 3/8 (37 %, fails 50), 6/8 (75 %, passes)      -> best 75, 2 attempts, passed
           quiz-2: 7/8 (87 %) with pass mark 90 copied, 1 in progress -> best 87, 2 attempts, not passed
    bob    quiz-1: 4/8 = 50 % exactly at pass mark 50          -> best 50, 1 attempt, passed
    carol  nothing                                            -> empty cells
    gina   quiz-1: 6/8 (75 %) with pass mark 80 (fails), 5/8 (62 %) with pass mark 50 (passes)
                                                              -> best 75 (the best is not the one that passed), passed
           quiz-3: 2/8 (25 %)                                  -> only with unpublished quizzes
    dave   quiz-1: 8/8, then unenrolled                        -> a former student, 100, passed
    erin   enrolled in another course, with attempts there      -> never in this gradebook
    """
    course = CourseFactory(slug="grading-course", title_en="Grading course")
    quiz1 = QuizFactory(course=course, slug="quiz-1", position=1, title_en="Quiz one", pass_mark=50)
    quiz2 = QuizFactory(course=course, slug="quiz-2", position=2, title_en="Quiz two", pass_mark=80)
    quiz3 = QuizFactory(course=course, slug="quiz-3", position=3, title_en="Quiz three", is_published=False)
    other_course = CourseFactory(slug="other-course")
    other_quiz = QuizFactory(course=other_course, slug="other-quiz")

    users = {}
    for username, first, last in [
        ("alice", "Alice", "Zephyr"),
        ("bob", "Bob", "Young"),
        ("carol", "=SUM(1+1)", URDU_NAME),
        ("gina", "Gina", "Adams"),
        ("dave", "Dave", "Brown"),
    ]:
        users[username] = UserFactory(username=username, first_name=first, last_name=last)
        enrollment_create(user=users[username], course=course)
    users["erin"] = UserFactory(username="erin")
    enrollment_create(user=users["erin"], course=other_course)

    finished(users["alice"], quiz1, 1, 3)
    finished(users["alice"], quiz1, 2, 6)
    finished(users["alice"], quiz2, 1, 7, pass_mark=90)
    in_progress(users["alice"], quiz2, 2)
    finished(users["bob"], quiz1, 1, 4)
    finished(users["gina"], quiz1, 1, 6, pass_mark=80)
    finished(users["gina"], quiz1, 2, 5, pass_mark=50)
    finished(users["gina"], quiz3, 1, 2)
    finished(users["dave"], quiz1, 1, 8)
    enrollment_delete(user=users["dave"], course=course)
    finished(users["erin"], other_quiz, 1, 8)
    return {"course": course, "quizzes": [quiz1, quiz2, quiz3], "users": users}


@pytest.fixture
def editor_client(editor):
    client = Client()
    client.force_login(editor)
    return client


def grid(tree) -> dict[str, list[str]]:
    """The gradebook table as {username: [cell text, ...]} (name column first)."""
    table = tree.one("table", class_="gradebook-table")
    rows = {}
    for tr in table.one("tbody").find_all("tr"):
        header = tr.one("th")
        username = header.one("a").text
        rows[username] = [td.text for td in tr.find_all("td")]
    return rows


def column_titles(tree) -> list[str]:
    heads = tree.one("table", class_="gradebook-table").one("thead").find_all("th", class_="quiz-column")
    return [th.find("span").text for th in heads]


# The numbers --------------------------------------------------------------------------


def test_cells_match_the_hand_computed_pattern(book):
    quiz1, quiz2, quiz3 = book["quizzes"]
    users = book["users"]
    cells = gradebook_cells(student_ids=[user.pk for user in users.values()], quizzes=[quiz1, quiz2, quiz3])

    def cell(name, quiz):
        found = cells[(users[name].pk, quiz.pk)]
        return (found.best_percent, found.attempts, found.passed, found.in_progress)

    assert cell("alice", quiz1) == (75, 2, True, False)
    assert cell("alice", quiz2) == (87, 2, False, True)
    assert cell("bob", quiz1) == (50, 1, True, False)
    assert cell("gina", quiz1) == (75, 2, True, False)
    assert cell("gina", quiz3) == (25, 1, False, False)
    assert cell("dave", quiz1) == (100, 1, True, False)
    assert (users["bob"].pk, quiz2.pk) not in cells
    assert not any(user_id == users["carol"].pk for user_id, _quiz in cells)
    assert not any(user_id == users["erin"].pk for user_id, _quiz in cells)


def test_an_in_progress_attempt_alone_has_no_grade(book):
    quiz2 = book["quizzes"][1]
    bob = book["users"]["bob"]
    in_progress(bob, quiz2, 1)
    found = gradebook_cells(student_ids=[bob.pk], quizzes=[quiz2])[(bob.pk, quiz2.pk)]
    assert (found.best_percent, found.attempts, found.finished, found.passed, found.in_progress) == (
        None,
        1,
        0,
        False,
        True,
    )


def test_a_score_too_big_for_smallint_arithmetic_still_counts(book):
    # 400 * 100 overflows a smallint product on PostgreSQL unless cast first.
    quiz1 = book["quizzes"][0]
    carol = book["users"]["carol"]
    finished(carol, quiz1, 1, 400, max_score=500, pass_mark=80)
    found = gradebook_cells(student_ids=[carol.pk], quizzes=[quiz1])[(carol.pk, quiz1.pk)]
    assert (found.best_percent, found.passed) == (80, True)


def test_rows_are_the_enrolled_students_sorted_by_username(book):
    course = book["course"]
    usernames = list(gradebook_students(course=course, filters=GradebookFilters()).values_list("username", flat=True))
    assert usernames == ["alice", "bob", "carol", "gina"]
    with_former = gradebook_students(course=course, filters=GradebookFilters(include_former=True))
    assert [(user.username, user.is_enrolled) for user in with_former] == [
        ("alice", True),
        ("bob", True),
        ("carol", True),
        ("dave", False),
        ("gina", True),
    ]


# The page ------------------------------------------------------------------------------


def test_page_shows_each_cell(book, editor_client, parse_html):
    response = editor_client.get(url("gradebook", "grading-course"))
    assert response.status_code == 200
    tree = parse_html(response)
    assert column_titles(tree) == ["Quiz one", "Quiz two"]
    rows = grid(tree)
    assert list(rows) == ["alice", "bob", "carol", "gina"]
    alice_name, alice_q1, alice_q2 = rows["alice"]
    assert alice_name == "Alice Zephyr"
    assert "75%" in alice_q1 and "2 attempts" in alice_q1 and "✓ passed" in alice_q1
    assert "87%" in alice_q2 and "2 attempts" in alice_q2 and "not passed" in alice_q2 and "in progress" in alice_q2
    assert "50%" in rows["bob"][1] and "1 attempt" in rows["bob"][1] and "✓ passed" in rows["bob"][1]
    assert rows["bob"][2] == "not attempted"
    assert rows["carol"][1:] == ["not attempted", "not attempted"]
    assert "75%" in rows["gina"][1] and "✓ passed" in rows["gina"][1]
    # How many passed each quiz, over every student shown: alice, bob, gina; nobody.
    passed = [th.one("span", class_="quiz-passed").text for th in tree.find_all("th", class_="quiz-column")]
    assert passed == ["3 passed", "0 passed"]


def test_student_rows_link_to_their_attempts(book, editor_client, parse_html):
    tree = parse_html(editor_client.get(url("gradebook", "grading-course")))
    alice = book["users"]["alice"]
    link = next(a for a in tree.find_all("a") if a.text == "alice")
    assert link["href"] == (
        f"{reverse('admin:quizzes_attempt_changelist')}?user__id__exact={alice.pk}"
        f"&quiz__course__id__exact={book['course'].pk}"
    )
    # The link works: the admin lists exactly alice's attempts in this course.
    listed = editor_client.get(link["href"])
    assert listed.status_code == 200
    assert "4 attempts" in listed.text


def test_former_students_and_unpublished_quizzes_on_request(book, editor_client, parse_html):
    tree = parse_html(editor_client.get(url("gradebook", "grading-course", former="on", unpublished="on")))
    assert column_titles(tree) == ["Quiz one", "Quiz two", "Quiz three"]
    rows = grid(tree)
    assert list(rows) == ["alice", "bob", "carol", "dave", "gina"]
    dave_row = next(tr for tr in tree.find_all("tr") if tr.find("a") and tr.find("a").text == "dave")
    assert "former" in dave_row.classes
    assert "former student" in dave_row.one("th").text
    assert "100%" in rows["dave"][1]
    assert "25%" in rows["gina"][3]


def test_filter_by_quiz_and_search(book, editor_client, parse_html):
    tree = parse_html(editor_client.get(url("gradebook", "grading-course", quiz="quiz-2")))
    assert column_titles(tree) == ["Quiz two"]
    assert grid(tree)["alice"][1].startswith("87%")

    tree = parse_html(editor_client.get(url("gradebook", "grading-course", q="zeph")))
    assert list(grid(tree)) == ["alice"]
    tree = parse_html(editor_client.get(url("gradebook", "grading-course", q="gina adams")))
    assert list(grid(tree)) == ["gina"]
    tree = parse_html(editor_client.get(url("gradebook", "grading-course", q="nobody-like-this")))
    assert tree.find("table", class_="gradebook-table") is None
    assert "No student matches this search." in tree.text


def test_sort_and_bad_filters_never_fail(book, editor_client, parse_html):
    tree = parse_html(editor_client.get(url("gradebook", "grading-course", sort="-username")))
    assert list(grid(tree)) == ["gina", "carol", "bob", "alice"]
    tree = parse_html(editor_client.get(url("gradebook", "grading-course", sort="name")))
    assert list(grid(tree)) == ["gina", "bob", "alice", "carol"]  # Adams, Young, Zephyr, then the Urdu name

    for query in ({"quiz": "no-such-quiz"}, {"sort": "password"}, {"page": "x"}, {"page": "999"}, {"q": "x" * 500}):
        response = editor_client.get(url("gradebook", "grading-course", **query))
        assert response.status_code == 200, query
    tree = parse_html(editor_client.get(url("gradebook", "grading-course", quiz="no-such-quiz")))
    assert column_titles(tree) == ["Quiz one", "Quiz two"]
    assert editor_client.get(url("gradebook", "no-such-course")).status_code == 404


def test_students_are_paginated(book, editor_client, parse_html, monkeypatch):
    monkeypatch.setattr(gradebook_views, "STUDENTS_PER_PAGE", 3)
    first = parse_html(editor_client.get(url("gradebook", "grading-course")))
    assert list(grid(first)) == ["alice", "bob", "carol"]
    assert "4 students" in first.one("p", class_="gradebook-summary").text
    second = parse_html(editor_client.get(url("gradebook", "grading-course", page=2)))
    assert list(grid(second)) == ["gina"]
    previous = second.one("a", rel="prev")
    assert "page=1" in previous["href"]


def test_course_picker_lists_courses_with_their_counts(book, editor_client, parse_html):
    tree = parse_html(editor_client.get(url("gradebook_courses")))
    rows = {tr.one("th").text: [td.text for td in tr.find_all("td")] for tr in tree.one("tbody").find_all("tr")}
    assert rows["Grading course"] == ["4", "3"]  # dave left; three quizzes
    link = tree.one("a", href=url("gradebook", "grading-course"))
    assert link.text == "Grading course"


def test_urdu_page_is_right_to_left_and_shows_urdu_names(book, editor_client, parse_html):
    quiz1 = book["quizzes"][0]
    quiz1.title_ur = "پہلا کوئز"
    quiz1.save()
    response = editor_client.get(url("gradebook", "grading-course", language="ur"))
    assert response.status_code == 200
    tree = parse_html(response)
    assert tree.one("html")["dir"] == "rtl"
    assert column_titles(tree) == ["پہلا کوئز", "Quiz two"]
    quiz_two = [th for th in tree.find_all("th", class_="quiz-column")][1].find("span")
    assert (quiz_two.get("lang"), quiz_two.get("dir")) == ("en", "ltr")
    assert URDU_NAME in grid(tree)["carol"][0]


# The CSV export ---------------------------------------------------------------------------


def export(client, language="en", **query):
    response = client.get(url("gradebook_export", "grading-course", language=language, **query))
    assert response.status_code == 200
    assert response.streaming
    body = b"".join(response.streaming_content)
    return response, body


def test_csv_export_is_utf8_with_bom_one_row_per_student(book, editor_client):
    response, body = export(editor_client)
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    today = timezone.localdate().isoformat()
    assert response["Content-Disposition"] == f'attachment; filename="gradebook-grading-course-{today}.csv"'
    assert body.startswith(BOM)
    assert body.count(BOM) == 1
    rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
    assert rows[0] == [
        "username",
        "full name",
        "email",
        "Quiz one: best %",
        "Quiz one: attempts",
        "Quiz one: passed",
        "Quiz two: best %",
        "Quiz two: attempts",
        "Quiz two: passed",
    ]
    assert rows[1:] == [
        ["alice", "Alice Zephyr", "alice@example.com", "75", "2", "yes", "87", "2", "no"],
        ["bob", "Bob Young", "bob@example.com", "50", "1", "yes", "", "0", ""],
        ["carol", f"'=SUM(1+1) {URDU_NAME}", "carol@example.com", "", "0", "", "", "0", ""],
        ["gina", "Gina Adams", "gina@example.com", "75", "2", "yes", "", "0", ""],
    ]
    # The Urdu name is in the file as UTF-8 bytes, as a spreadsheet reads them.
    assert URDU_NAME.encode("utf-8") in body


def test_csv_export_keeps_the_filters_and_streams_in_chunks(book, editor_client, monkeypatch):
    monkeypatch.setattr(gradebook_views, "EXPORT_CHUNK", 2)
    _response, body = export(editor_client, former="on", quiz="quiz-1")
    rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
    assert rows[0] == [
        "username",
        "full name",
        "email",
        "enrollment",
        "Quiz one: best %",
        "Quiz one: attempts",
        "Quiz one: passed",
    ]
    assert [(row[0], row[3], row[4], row[6]) for row in rows[1:]] == [
        ("alice", "enrolled", "75", "yes"),
        ("bob", "enrolled", "50", "yes"),
        ("carol", "enrolled", "", ""),
        ("dave", "former student", "100", "yes"),
        ("gina", "enrolled", "75", "yes"),
    ]
    _response, body = export(editor_client, q="bob")
    assert [row[0] for row in csv.reader(io.StringIO(body.decode("utf-8-sig")))] == ["username", "bob"]


def test_csv_header_follows_the_request_language(book, editor_client):
    quiz1 = book["quizzes"][0]
    quiz1.title_ur = "پہلا کوئز"
    quiz1.save()
    _response, body = export(editor_client, language="ur")
    header = next(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
    with translation.override("ur"):
        expected_first = translation.gettext("username")
        expected_quiz = translation.gettext("%(quiz)s: best %%") % {"quiz": "پہلا کوئز"}
    assert header[0] == expected_first
    assert header[3] == expected_quiz
    assert header[6].startswith("Quiz two")  # no Urdu title: the English one


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("=1+1", "'=1+1"),
        ("+49 30", "'+49 30"),
        ("-2", "'-2"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("plain", "plain"),
        (URDU_NAME, URDU_NAME),
        (75, "75"),
        (None, ""),
    ],
)
def test_formula_cells_are_made_text(value, written):
    assert gradebook_views.csv_safe(value) == written


def test_a_username_starting_with_a_sign_is_guarded_in_the_export(book, editor_client):
    user = UserFactory(username="+danger", first_name="@evil", last_name="x")
    enrollment_create(user=user, course=book["course"])
    _response, body = export(editor_client, q="danger")
    rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
    assert rows[1][:2] == ["'+danger", "'@evil x"]


# Who may see it ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["gradebook_courses", "gradebook", "gradebook_export"])
def test_permissions(book, editor, teacher, student, name):
    args = () if name == "gradebook_courses" else ("grading-course",)
    path = url(name, *args)
    login = reverse("admin:login")

    anonymous = Client().get(path)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith(login)

    as_student = Client()
    as_student.force_login(student)
    refused = as_student.get(path)
    assert refused.status_code == 302 and refused["Location"].startswith(login)

    for user in (editor, teacher):
        client = Client()
        client.force_login(user)
        assert client.get(path).status_code == 200, user

    bare_staff = UserFactory(username="staff-without-perms", is_staff=True)
    client = Client()
    client.force_login(bare_staff)
    assert client.get(path).status_code == 403
    # One of the two permissions is not enough.
    bare_staff.user_permissions.add(Permission.objects.get(codename="view_attempt"))
    client.force_login(bare_staff)
    assert client.get(path).status_code == 403


# A fixed number of queries -------------------------------------------------------------------


def grow(course, quizzes, *, students: int, start: int) -> None:
    for index in range(start, start + students):
        user = UserFactory(username=f"grow-{index:03d}")
        enrollment_create(user=user, course=course)
        for number, quiz in enumerate(quizzes, start=1):
            finished(user, quiz, 1, index % 9)
            if index % 3 == 0:
                in_progress(user, quiz, number + 1)


def count_queries(client, path) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
        if response.streaming:
            b"".join(response.streaming_content)
    assert response.status_code == 200
    return len(queries)


@pytest.mark.parametrize("name", ["gradebook", "gradebook_export"])
def test_query_count_does_not_grow_with_students_or_quizzes(book, editor_client, name):
    course = book["course"]
    path = url(name, "grading-course", unpublished="on", former="on")
    small = count_queries(editor_client, path)

    more_quizzes = [QuizFactory(course=course, slug=f"extra-{n}", title_en=f"Extra {n}") for n in range(6)]
    grow(course, [*book["quizzes"], *more_quizzes], students=40, start=1)
    large = count_queries(editor_client, path)

    assert large == small
    assert small <= 12


def test_export_query_count_grows_only_per_chunk_of_students(book, editor_client, monkeypatch):
    monkeypatch.setattr(gradebook_views, "EXPORT_CHUNK", 50)
    path = url("gradebook_export", "grading-course")
    grow(book["course"], book["quizzes"][:2], students=45, start=1)  # 49 students: one chunk
    one_chunk = count_queries(editor_client, path)
    grow(book["course"], book["quizzes"][:2], students=10, start=100)  # 59 students: two chunks
    assert count_queries(editor_client, path) == one_chunk + 1


def test_a_course_without_published_quizzes_still_lists_its_students(editor_client, parse_html):
    course = CourseFactory(slug="draft-course")
    QuizFactory(course=course, slug="draft-quiz", title_en="Draft quiz", is_published=False)
    enrollment_create(user=UserFactory(username="early"), course=course)
    tree = parse_html(editor_client.get(url("gradebook", "draft-course")))
    assert "This course has no published quiz yet." in tree.text
    assert list(grid(tree)) == ["early"]
    assert column_titles(tree) == []
    tree = parse_html(editor_client.get(url("gradebook", "draft-course", unpublished="on")))
    assert column_titles(tree) == ["Draft quiz"]
    assert "not published" in tree.one("th", class_="quiz-column").text
