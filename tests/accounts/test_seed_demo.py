"""seed_demo: development accounts, never without DEBUG."""

import io

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import CommandError, call_command
from django.http import HttpRequest

from quizzes.accounts.roles import CONTENT_EDITORS
from quizzes.models import Course, Enrollment
from tests.factories import CourseFactory


def seed_demo() -> str:
    buf = io.StringIO()
    call_command("seed_demo", stdout=buf)
    return buf.getvalue()


@pytest.mark.django_db
def test_refused_without_debug(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DJANGO_DEBUG"):
        seed_demo()
    assert not get_user_model().objects.filter(username__in=["student", "editor"]).exists()


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

    def test_running_twice_is_fine(self):
        seed_demo()
        seed_demo()
        User = get_user_model()
        assert User.objects.filter(username__in=["student", "editor"]).count() == 2
        assert Enrollment.objects.filter(user__username="student").count() == 1
        assert authenticate(HttpRequest(), username="editor", password="editor").groups.count() == 1

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
