"""Enrollment management: the services and their history, bulk enrollment (preview,
confirm, CSV), unenrolling from the admin with attempts kept, and who may do it."""

import pytest
from django import forms
from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from quizzes.admin import enrollment_forms as enrollment_forms
from quizzes.attempts.services import AttemptError, attempt_start
from quizzes.enrollment import services as enrollment_services
from quizzes.enrollment.services import (
    EnrollmentError,
    enrollment_create,
    enrollment_delete,
    enrollment_self_create,
    enrollments_bulk_create,
    enrollments_bulk_plan,
)
from quizzes.models import Answer, Attempt, Enrollment, EnrollmentChange
from tests.factories import AnswerFactory, AttemptFactory, CourseFactory, QuizFactory, UserFactory

pytestmark = pytest.mark.django_db

BULK = "staff:enroll_bulk"
CONFIRM = "staff:enroll_bulk_confirm"
URDU_USERNAME = "علی"


def history(course=None):
    changes = EnrollmentChange.objects.order_by("pk")
    if course is not None:
        changes = changes.filter(course=course)
    return [(change.user.username, change.action, change.source) for change in changes]


def usernames(users) -> list[str]:
    return [user.username for user in users]


@pytest.fixture
def course(db):
    return CourseFactory(slug="bulk-course", title_en="Bulk course")


@pytest.fixture
def people(course):
    """alice, Bob, carol (inactive), dave (enrolled already), Eve and eve (differ only in case), علی."""
    users = {name: UserFactory(username=name) for name in ("alice", "Bob", "dave", "Eve", "eve", URDU_USERNAME)}
    users["carol"] = UserFactory(username="carol", is_active=False)
    enrollment_create(user=users["dave"], course=course)
    return users


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def editor_client(editor):
    return client_for(editor)


def url(name, language="en"):
    with translation.override(language):
        return reverse(name)


# Services -------------------------------------------------------------------------------


def test_enrollment_create_logs_once(course):
    user = UserFactory(username="solo")
    staff = UserFactory(username="staffer", is_staff=True)
    first = enrollment_create(user=user, course=course, changed_by=staff)
    again = enrollment_create(user=user, course=course, changed_by=staff)
    assert first.pk == again.pk
    assert history() == [("solo", "enrolled", "staff")]
    assert EnrollmentChange.objects.get().changed_by == staff


def test_enrollment_create_without_a_person_is_the_system(course):
    enrollment_create(user=UserFactory(username="seeded"), course=course)
    change = EnrollmentChange.objects.get()
    assert (change.source, change.changed_by) == ("system", None)


def test_self_enrollment_logs_the_student(course):
    course.allow_self_enrollment = True
    course.save()
    user = UserFactory(username="keen")
    enrollment_self_create(user=user, course=course)
    change = EnrollmentChange.objects.get()
    assert (change.user, change.source, change.changed_by, change.action) == (user, "self", user, "enrolled")


def test_unenroll_keeps_attempts_and_answers_and_logs_and_reenroll_logs_again(course):
    quiz = QuizFactory(course=course)
    user = UserFactory(username="leaver")
    staff = UserFactory(username="staffer", is_staff=True)
    enrollment_create(user=user, course=course, changed_by=staff)
    attempt = AttemptFactory(user=user, quiz=quiz, number=1)
    AnswerFactory(attempt=attempt)
    AnswerFactory(attempt=attempt)

    assert enrollment_delete(user=user, course=course, changed_by=staff) is True

    assert not Enrollment.objects.filter(user=user).exists()
    assert Attempt.objects.filter(user=user).count() == 1
    assert Answer.objects.filter(attempt__user=user).count() == 2
    with pytest.raises(AttemptError) as refused:
        attempt_start(user=user, quiz=quiz)
    assert refused.value.code == "not_enrolled"
    assert enrollment_delete(user=user, course=course, changed_by=staff) is False  # nothing left to end

    enrollment_create(user=user, course=course, changed_by=staff)
    assert history() == [
        ("leaver", "enrolled", "staff"),
        ("leaver", "unenrolled", "staff"),
        ("leaver", "enrolled", "staff"),
    ]
    assert all(change.changed_by == staff for change in EnrollmentChange.objects.all())


def test_bulk_plan_sorts_every_name(course, people):
    names = ["alice", " alice ", "BOB", "carol", "dave", "ghost", "EVE", "eve", "Alice", "", URDU_USERNAME]
    plan = enrollments_bulk_plan(course=course, usernames=names)

    assert usernames(plan.to_enroll) == ["alice", "Bob", "eve", URDU_USERNAME]
    assert usernames(plan.already_enrolled) == ["dave"]
    assert usernames(plan.inactive) == ["carol"]
    assert plan.unknown == ["ghost"]
    assert plan.ambiguous == ["EVE"]  # Eve and eve both exist; an exact "eve" is not ambiguous
    assert plan.case_matched == [("BOB", "Bob"), ("Alice", "alice")]
    assert plan.duplicates == ["alice", "Alice"]  # " alice " once stripped, and Alice -> alice


def test_bulk_create_writes_the_plan_and_logs_each_as_bulk(course, people, editor):
    before = Enrollment.objects.count()
    plan = enrollments_bulk_create(
        course=course, usernames=["alice", "BOB", "ghost", "carol", "dave"], changed_by=editor
    )
    assert usernames(plan.to_enroll) == ["alice", "Bob"]
    assert Enrollment.objects.count() == before + 2
    assert set(Enrollment.objects.filter(course=course).values_list("user__username", flat=True)) == {
        "alice",
        "Bob",
        "dave",
    }
    bulk = EnrollmentChange.objects.filter(source="bulk")
    assert sorted(bulk.values_list("user__username", "action")) == [("Bob", "enrolled"), ("alice", "enrolled")]
    assert set(bulk.values_list("changed_by", flat=True)) == {editor.pk}


def test_bulk_create_is_all_or_nothing(course, people, editor, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(EnrollmentChange.objects, "bulk_create", broken)
    before = (Enrollment.objects.count(), EnrollmentChange.objects.count())
    with pytest.raises(RuntimeError):
        enrollments_bulk_create(course=course, usernames=["alice", "Bob"], changed_by=editor)
    assert (Enrollment.objects.count(), EnrollmentChange.objects.count()) == before


def test_bulk_create_refuses_a_plan_that_changed_since_the_preview(course, people, editor):
    preview = enrollments_bulk_plan(course=course, usernames=["alice", "Bob"])
    enrollment_create(user=people["alice"], course=course)  # someone else, meanwhile
    before = (Enrollment.objects.count(), EnrollmentChange.objects.count())
    with pytest.raises(EnrollmentError) as error:
        enrollments_bulk_create(
            course=course, usernames=["alice", "Bob"], changed_by=editor, expected_user_ids=preview.user_ids
        )
    assert error.value.code == "bulk_plan_changed"
    assert (Enrollment.objects.count(), EnrollmentChange.objects.count()) == before


def test_bulk_create_plans_again_after_a_concurrent_enrollment(course, people, editor, monkeypatch):
    # The first plan is stale (dave enrolled meanwhile): the insert fails on the unique
    # constraint, everything is rolled back, and the second plan sees dave enrolled.
    real_plan = enrollment_services.enrollments_bulk_plan
    calls = []

    def stale_then_real(*, course, usernames):
        plan = real_plan(course=course, usernames=usernames)
        if not calls:
            plan.to_enroll += plan.already_enrolled
            plan.already_enrolled = []
        calls.append(plan)
        return plan

    monkeypatch.setattr(enrollment_services, "enrollments_bulk_plan", stale_then_real)
    plan = enrollments_bulk_create(course=course, usernames=["alice", "dave"], changed_by=editor)
    assert len(calls) == 2
    assert usernames(plan.to_enroll) == ["alice"]
    assert usernames(plan.already_enrolled) == ["dave"]
    assert history(course) == [("dave", "enrolled", "system"), ("alice", "enrolled", "bulk")]


# The bulk page: preview, confirm --------------------------------------------------------------


def preview(client, course, text="", csv_file=None, language="en"):
    data = {"course": course.pk, "usernames": text}
    if csv_file is not None:
        data["csv_file"] = csv_file
    return client.post(url(BULK, language), data)


def token_of(tree) -> str:
    return tree.one("input", type="hidden", name="token")["value"]


def test_form_preselects_the_course(course, editor_client, parse_html):
    response = editor_client.get(url(BULK) + f"?course={course.pk}")
    assert response.status_code == 200
    select = parse_html(response).one("select", name="course")
    assert select.one("option", selected=True)["value"] == str(course.pk)
    for junk in ("x", "0", "99999999999999999999999", ""):
        assert editor_client.get(url(BULK) + f"?course={junk}").status_code == 200


def test_preview_lists_everyone_and_writes_nothing(course, people, editor_client, parse_html):
    before = (Enrollment.objects.count(), EnrollmentChange.objects.count())
    response = preview(editor_client, course, "alice, BOB\ncarol; dave ghost alice\n\nEVE")
    assert response.status_code == 200
    assert (Enrollment.objects.count(), EnrollmentChange.objects.count()) == before

    tree = parse_html(response)
    tables = {table.one("caption").text: table for table in tree.find_all("table", class_="enroll-list")}
    will = [tr.one("th").text for tr in tables["Will be enrolled"].one("tbody").find_all("tr")]
    assert will == ["alice", "Bob"]
    already = [tr.one("th").text for tr in tables["Already enrolled"].one("tbody").find_all("tr")]
    assert already == ["dave"]
    problems = tree.one("section", class_="enroll-problems").text
    assert "ghost" in problems and "carol" in problems and "EVE" in problems
    assert "BOB → Bob" in tree.text
    summary = tree.one("dl", class_="summary")
    figures = dict(
        zip([dt.text for dt in summary.find_all("dt")], [dd.text for dd in summary.find_all("dd")], strict=True)
    )
    assert figures["Will be enrolled"] == "2"
    assert figures["Already enrolled"] == "1"
    assert figures["Inactive accounts (skipped)"] == "1"
    assert figures["Unknown usernames (skipped)"] == "1"
    assert figures["Given more than once"] == "1"
    button = tree.one("form", class_="confirm-enroll").one("input", type="submit")
    assert button["value"] == "Confirm: enroll 2 students"


def test_confirm_enrolls_reports_and_returns_to_the_course_enrollments(
    course, people, editor, editor_client, parse_html
):
    tree = parse_html(preview(editor_client, course, "alice BOB ghost dave carol"))
    response = editor_client.post(url(CONFIRM), {"token": token_of(tree)})

    changelist = reverse("admin:quizzes_enrollment_changelist")
    assert response.status_code == 302
    assert response["Location"] == f"{changelist}?course__id__exact={course.pk}"
    assert set(Enrollment.objects.filter(course=course).values_list("user__username", flat=True)) == {
        "alice",
        "Bob",
        "dave",
    }
    assert history(course)[1:] == [("alice", "enrolled", "bulk"), ("Bob", "enrolled", "bulk")]
    texts = [str(message) for message in get_messages(response.wsgi_request)]
    assert "2 students enrolled in Bulk course." in texts
    assert "1 was already enrolled: dave." in texts
    assert "1 unknown username skipped: ghost." in texts
    assert "1 inactive account skipped: carol." in texts

    # Confirming the same preview again writes nothing more: the plan changed.
    again = editor_client.post(url(CONFIRM), {"token": token_of(tree)})
    assert again.status_code == 200
    assert Enrollment.objects.filter(course=course).count() == 3
    assert str(enrollment_services.BULK_PLAN_CHANGED) in again.text


def test_confirm_after_a_change_shows_a_new_preview_and_writes_nothing(course, people, editor_client, parse_html):
    tree = parse_html(preview(editor_client, course, "alice Bob"))
    people["Bob"].is_active = False
    people["Bob"].save()
    before = (Enrollment.objects.count(), EnrollmentChange.objects.count())

    response = editor_client.post(url(CONFIRM), {"token": token_of(tree)})

    assert response.status_code == 200
    assert (Enrollment.objects.count(), EnrollmentChange.objects.count()) == before
    fresh = parse_html(response)
    assert (
        fresh.one("form", class_="confirm-enroll").one("input", type="submit")["value"] == "Confirm: enroll 1 student"
    )
    # The new preview confirms.
    assert editor_client.post(url(CONFIRM), {"token": token_of(fresh)}).status_code == 302
    assert list(
        Enrollment.objects.filter(course=course).values_list("user__username", flat=True).order_by("user__username")
    ) == ["alice", "dave"]


@pytest.mark.parametrize("token", ["", "garbage", "a" * 5000])
def test_a_forged_token_writes_nothing(course, people, editor_client, token):
    before = (Enrollment.objects.count(), EnrollmentChange.objects.count())
    response = editor_client.post(url(CONFIRM), {"token": token})
    assert response.status_code == 302
    assert response["Location"] == url(BULK)
    assert (Enrollment.objects.count(), EnrollmentChange.objects.count()) == before
    assert str(enrollment_forms.EXPIRED) in [str(message) for message in get_messages(response.wsgi_request)]


def test_a_token_is_only_good_for_the_staff_member_who_previewed(course, people, editor_client, teacher, parse_html):
    tree = parse_html(preview(editor_client, course, "alice"))
    response = client_for(teacher).post(url(CONFIRM), {"token": token_of(tree)})
    assert response.status_code == 302
    assert not Enrollment.objects.filter(user=people["alice"]).exists()


def test_nothing_to_enroll_has_no_confirm_button(course, people, editor_client, parse_html):
    tree = parse_html(preview(editor_client, course, "dave ghost carol"))
    assert tree.find("form", class_="confirm-enroll") is None
    assert "Nobody to enroll" in tree.text


@pytest.mark.parametrize(
    ("text", "message"),
    [("", enrollment_forms.NOTHING_GIVEN), (" ,;\n ", enrollment_forms.NO_NAMES)],
)
def test_an_empty_list_is_refused_on_the_form(course, editor_client, text, message):
    response = preview(editor_client, course, text)
    assert response.status_code == 200
    assert str(message) in response.text


def test_too_many_pasted_names_are_refused(course, editor_client, monkeypatch):
    monkeypatch.setattr(enrollment_forms, "MAX_NAMES", 3)
    response = preview(editor_client, course, "a b c d")
    assert response.status_code == 200
    assert "At most 3 usernames at a time; this list has 4." in response.text


# CSV upload -------------------------------------------------------------------------------------


def upload(content: bytes, name="students.csv", content_type="text/csv"):
    return SimpleUploadedFile(name, content, content_type=content_type)


def will_be_enrolled(tree) -> list[str]:
    table = next(t for t in tree.find_all("table", class_="enroll-list") if t.one("caption").text == "Will be enrolled")
    return [tr.one("th").text for tr in table.one("tbody").find_all("tr")]


def test_csv_with_bom_and_a_username_column(course, people, editor_client, parse_html):
    content = "\ufeffemail,username\r\na@example.com,alice\r\nu@example.com,علی\r\n".encode()
    response = preview(editor_client, course, csv_file=upload(content))
    assert response.status_code == 200
    assert will_be_enrolled(parse_html(response)) == ["alice", URDU_USERNAME]


def test_csv_without_header_uses_the_first_column_and_any_delimiter(course, people, editor_client, parse_html):
    content = b"alice;Alice Smith\nBob;Bob Jones\n"
    tree = parse_html(preview(editor_client, course, csv_file=upload(content, content_type="application/vnd.ms-excel")))
    assert will_be_enrolled(tree) == ["alice", "Bob"]


def test_csv_and_pasted_names_are_combined(course, people, editor_client, parse_html):
    tree = parse_html(preview(editor_client, course, "Bob", csv_file=upload(b"username\nalice\n")))
    assert will_be_enrolled(tree) == ["Bob", "alice"]


@pytest.mark.parametrize(
    ("file", "message"),
    [
        (upload(b"\x89PNG\r\n\x1a\n\x00\x00", name="photo.png", content_type="image/png"), enrollment_forms.NOT_CSV),
        (upload(b"PK\x03\x04\x14\x00\x00\x00\xff\xfe", name="students.csv"), enrollment_forms.NOT_UTF8),
        (upload("alice\n".encode("utf-16"), name="students.csv"), enrollment_forms.NOT_UTF8),
        (upload(b"alice\n" * 200_000, name="students.csv"), enrollment_forms.TOO_BIG),
        (upload(b"", name="students.csv"), forms.FileField.default_error_messages["empty"]),
        (upload(b",,\n , x\n", name="students.csv"), enrollment_forms.NO_NAMES),
    ],
    ids=["image", "zip-as-csv", "utf-16", "over-1-MB", "empty", "no-names"],
)
def test_a_bad_file_is_a_clear_error_not_a_500(course, people, editor_client, file, message):
    before = (Enrollment.objects.count(), EnrollmentChange.objects.count())
    response = preview(editor_client, course, csv_file=file)
    assert response.status_code == 200
    assert str(message) in response.text
    assert (Enrollment.objects.count(), EnrollmentChange.objects.count()) == before


def test_a_csv_over_5000_rows_is_refused(course, editor_client):
    content = "\n".join(f"user{n}" for n in range(5001)).encode()
    response = preview(editor_client, course, csv_file=upload(content))
    assert response.status_code == 200
    assert "At most 5000 usernames at a time" in response.text


def test_the_bulk_form_errors_in_urdu(course, editor_client, parse_html):
    response = preview(editor_client, course, csv_file=upload(b"\x00\x01", name="x.png"), language="ur")
    assert response.status_code == 200
    tree = parse_html(response)
    assert tree.one("html")["dir"] == "rtl"
    with translation.override("ur"):
        assert str(enrollment_forms.NOT_CSV) in response.text


# The Enrollment admin: link, unenroll action, add, delete, history ----------------------------


def test_enrollment_changelist_links_to_bulk_enroll_and_history(course, people, editor_client, parse_html):
    response = editor_client.get(reverse("admin:quizzes_enrollment_changelist") + f"?course__id__exact={course.pk}")
    assert response.status_code == 200
    tree = parse_html(response)
    tools = tree.one("ul", class_="object-tools")
    hrefs = [a["href"] for a in tools.find_all("a")]
    assert f"{reverse('staff:enroll_bulk')}?course={course.pk}" in hrefs
    assert reverse("admin:quizzes_enrollmentchange_changelist") in hrefs
    actions = [option["value"] for option in tree.one("select", name="action").find_all("option")]
    assert "unenroll_selected" in actions
    assert "delete_selected" not in actions


def test_unenroll_action_confirms_then_keeps_attempts_and_logs(course, people, editor, editor_client, parse_html):
    quiz = QuizFactory(course=course)
    dave = people["dave"]
    attempt = AttemptFactory(user=dave, quiz=quiz, number=1)
    AnswerFactory(attempt=attempt)
    AttemptFactory(
        user=dave, quiz=quiz, number=2, state=Attempt.State.FINISHED, score=3, finished_at="2026-01-01T00:00Z"
    )
    enrollment = Enrollment.objects.get(user=dave, course=course)
    changelist = reverse("admin:quizzes_enrollment_changelist")

    confirm = editor_client.post(changelist, {"action": "unenroll_selected", "_selected_action": [enrollment.pk]})
    assert confirm.status_code == 200
    tree = parse_html(confirm)
    row = tree.one("tbody").one("tr")
    assert row.one("th").text == "dave"
    assert row.find_all("td")[-1].text == "2"  # attempts kept
    assert Enrollment.objects.filter(pk=enrollment.pk).exists()  # nothing yet

    done = editor_client.post(
        changelist, {"action": "unenroll_selected", "_selected_action": [enrollment.pk], "post": "yes"}
    )
    assert done.status_code == 302
    assert not Enrollment.objects.filter(pk=enrollment.pk).exists()
    assert Attempt.objects.filter(user=dave).count() == 2
    assert Answer.objects.filter(attempt__user=dave).count() == 1
    change = EnrollmentChange.objects.filter(action="unenrolled").get()
    assert (change.user, change.course, change.source, change.changed_by) == (dave, course, "staff", editor)
    assert "1 student unenrolled; their attempts are kept." in [str(m) for m in get_messages(done.wsgi_request)]


def test_the_admin_delete_page_goes_through_the_service(course, people, editor, editor_client):
    enrollment = Enrollment.objects.get(user=people["dave"], course=course)
    response = editor_client.post(reverse("admin:quizzes_enrollment_delete", args=[enrollment.pk]), {"post": "yes"})
    assert response.status_code == 302
    assert not Enrollment.objects.filter(pk=enrollment.pk).exists()
    assert history(course)[-1] == ("dave", "unenrolled", "staff")


def test_the_admin_add_form_goes_through_the_service(course, people, editor, editor_client):
    response = editor_client.post(
        reverse("admin:quizzes_enrollment_add"), {"user": people["alice"].pk, "course": course.pk}
    )
    assert response.status_code == 302
    assert Enrollment.objects.filter(user=people["alice"], course=course).exists()
    change = EnrollmentChange.objects.filter(user=people["alice"]).get()
    assert (change.source, change.changed_by) == ("staff", editor)
    # A second identical enrollment is a form error, not a 500 and not a second log line.
    again = editor_client.post(
        reverse("admin:quizzes_enrollment_add"), {"user": people["alice"].pk, "course": course.pk}
    )
    assert again.status_code == 200
    assert EnrollmentChange.objects.filter(user=people["alice"]).count() == 1


def test_an_enrollment_cannot_be_moved_to_another_student(course, people, editor_client):
    enrollment = Enrollment.objects.get(user=people["dave"], course=course)
    editor_client.post(
        reverse("admin:quizzes_enrollment_change", args=[enrollment.pk]),
        {"user": people["alice"].pk, "course": course.pk},
    )
    enrollment.refresh_from_db()
    assert enrollment.user == people["dave"]


@pytest.mark.parametrize("who", ["editor", "teacher"])
def test_history_is_read_only_with_filters_and_search(course, people, editor, teacher, who, parse_html):
    client = client_for({"editor": editor, "teacher": teacher}[who])
    enrollment_delete(user=people["dave"], course=course, changed_by=editor)
    changelist = reverse("admin:quizzes_enrollmentchange_changelist")
    response = client.get(changelist, {"q": "dave", "action__exact": "unenrolled"})
    assert response.status_code == 200
    rows = parse_html(response).one("table", id="result_list").one("tbody").find_all("tr")
    assert len(rows) == 1 and "dave" in rows[0].text
    assert client.get(changelist, {"source__exact": "bulk"}).status_code == 200
    assert client.get(reverse("admin:quizzes_enrollmentchange_add")).status_code == 403
    change = EnrollmentChange.objects.first()
    assert (
        client.post(reverse("admin:quizzes_enrollmentchange_delete", args=[change.pk]), {"post": "yes"}).status_code
        == 403
    )
    assert EnrollmentChange.objects.filter(pk=change.pk).exists()


# Who may do it ---------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "ur"])
def test_permissions(course, people, editor, teacher, student, language):
    path = url(BULK, language)
    login = url("admin:login", language)
    anonymous = Client().get(path)
    assert anonymous.status_code == 302 and login in anonymous["Location"]
    refused = client_for(student).get(path)
    assert refused.status_code == 302 and login in refused["Location"]
    assert client_for(editor).get(path).status_code == 200
    assert client_for(teacher).get(path).status_code == 200
    bare = UserFactory(username="bare-staff", is_staff=True)
    assert client_for(bare).get(path).status_code == 403
    assert client_for(bare).post(url(CONFIRM, language), {"token": "x"}).status_code == 403
    viewer = UserFactory(username="viewer-staff", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_enrollment"))
    assert client_for(viewer).get(path).status_code == 403
    # Without the delete permission, no unenroll action.
    response = client_for(viewer).get(reverse("admin:quizzes_enrollment_changelist"))
    assert response.status_code == 200 and "unenroll_selected" not in response.text


def test_a_teacher_enrolls_in_bulk(course, people, teacher, parse_html):
    client = client_for(teacher)
    tree = parse_html(preview(client, course, "alice"))
    assert client.post(url(CONFIRM), {"token": token_of(tree)}).status_code == 302
    change = EnrollmentChange.objects.filter(source="bulk").get()
    assert (change.user, change.changed_by) == (people["alice"], teacher)


# Queries --------------------------------------------------------------------------------------


def test_bulk_plan_and_create_use_a_fixed_number_of_queries(course, editor):
    for n in range(60):
        UserFactory(username=f"many-{n:02d}")

    def measure(names):
        with CaptureQueriesContext(connection) as planned:
            enrollments_bulk_plan(course=course, usernames=names)
        return len(planned)

    few = [f"many-{n:02d}" for n in range(3)] + ["MANY-03", "ghost"]
    lots = [f"many-{n:02d}" for n in range(50)] + [f"MANY-{n}" for n in range(50, 60)] + ["ghost", "ghoul"]
    assert measure(few) == measure(lots) <= 4

    def write(names, target):
        with CaptureQueriesContext(connection) as written:
            enrollments_bulk_create(course=target, usernames=names, changed_by=editor)
        return len(written)

    assert write(few, CourseFactory()) == write(lots, CourseFactory())


def test_the_case_match_arrow_points_the_reading_way(course, people, editor_client, parse_html):
    assert "BOB → Bob" in parse_html(preview(editor_client, course, "BOB")).text
    assert "BOB ← Bob" in parse_html(preview(editor_client, course, "BOB", language="ur")).text
