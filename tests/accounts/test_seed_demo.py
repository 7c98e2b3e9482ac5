"""seed_demo: development accounts, never without DEBUG."""

import io

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.models import Group
from django.core.management import CommandError, call_command
from django.http import HttpRequest
from django.urls import reverse

from quizzes.accounts.roles import CONTENT_EDITORS, TEACHERS
from quizzes.models import Course, Enrollment
from tests.factories import CourseFactory

DEMO_ACCOUNTS = ("student", "editor", "teacher")


def seed_demo() -> str:
    buf = io.StringIO()
    call_command("seed_demo", stdout=buf)
    return buf.getvalue()


@pytest.mark.django_db
def test_refused_without_debug(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DJANGO_DEBUG"):
        seed_demo()
    assert not get_user_model().objects.filter(username__in=DEMO_ACCOUNTS).exists()


@pytest.fixture
def debug(settings):
    settings.DEBUG = True


@pytest.mark.usefixtures("content", "debug")
class TestAccounts:
    def test_student(self):
        other_course = CourseFactory()
        assert "student / student" in seed_demo()
        student = authenticate(HttpRequest(), username="student", password="student")
        assert student is not None
        assert not student.is_staff
        assert not student.is_superuser
        assert set(Course.objects.filter(enrollments__user=student)) == {
            Course.objects.get(slug="memory-efficient-training"),
            other_course,
        }
        assert not student.has_perm("quizzes.view_quiz")

    def test_editor(self):
        seed_demo()
        editor = authenticate(HttpRequest(), username="editor", password="editor")
        assert editor is not None
        assert editor.is_staff
        assert not editor.is_superuser
        assert list(editor.groups.values_list("name", flat=True)) == [CONTENT_EDITORS]
        for permission in ("change_question", "add_choice", "change_quiz", "add_enrollment", "view_attempt"):
            assert editor.has_perm(f"quizzes.{permission}"), permission
        assert not editor.has_perm("quizzes.change_attempt")
        assert not editor.has_perm("quizzes.delete_answer")
        assert not editor.has_perm("auth.change_user")

    def test_teacher(self, client):
        assert "teacher / teacher" in seed_demo()
        teacher = authenticate(HttpRequest(), username="teacher", password="teacher")
        assert teacher is not None
        assert teacher.is_staff
        assert not teacher.is_superuser
        assert list(teacher.groups.values_list("name", flat=True)) == [TEACHERS]
        for permission in ("change_quizoverride", "add_enrollment", "view_attempt", "view_quiz"):
            assert teacher.has_perm(f"quizzes.{permission}"), permission
        for permission in ("change_quiz", "change_question", "change_choice", "change_attempt"):
            assert not teacher.has_perm(f"quizzes.{permission}"), permission
        # Logged in through the admin's form, the admin and the staff reports let the teacher in.
        login = client.post("/en/admin/login/", {"username": "teacher", "password": "teacher", "next": "/en/admin/"})
        assert (login.status_code, login["Location"]) == (302, "/en/admin/")
        for path in ("/en/admin/", reverse("staff:gradebook_courses"), reverse("staff:statistics_index")):
            assert client.get(path).status_code == 200, path

    def test_running_twice_changes_nothing(self):
        def accounts():
            return [
                (user.username, user.is_staff, user.is_superuser, sorted(user.groups.values_list("name", flat=True)))
                for user in get_user_model().objects.filter(username__in=DEMO_ACCOUNTS).order_by("username")
            ]

        seed_demo()
        first = accounts()
        seed_demo()
        assert accounts() == first
        assert first == [
            ("editor", True, False, [CONTENT_EDITORS]),
            ("student", False, False, []),
            ("teacher", True, False, [TEACHERS]),
        ]
        assert Enrollment.objects.filter(user__username="student").count() == 1
        for name in DEMO_ACCOUNTS:
            assert authenticate(HttpRequest(), username=name, password=name) is not None, name

    def test_resets_passwords_and_privileges(self):
        seed_demo()
        User = get_user_model()
        editor = User.objects.get(username="editor")
        editor.set_password("changed")
        editor.is_superuser = True
        editor.save()
        seed_demo()
        editor = authenticate(HttpRequest(), username="editor", password="editor")
        assert editor is not None
        assert not editor.is_superuser

    def test_keeps_the_teacher_out_of_content_editing(self):
        seed_demo()
        User = get_user_model()
        teacher = User.objects.get(username="teacher")
        teacher.groups.add(Group.objects.get(name=CONTENT_EDITORS))
        teacher.is_superuser = True
        teacher.save()
        seed_demo()
        teacher = User.objects.get(username="teacher")
        assert list(teacher.groups.values_list("name", flat=True)) == [TEACHERS]
        assert not teacher.is_superuser
        assert not teacher.has_perm("quizzes.change_quiz")
