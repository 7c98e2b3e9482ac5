"""The staff groups exist after migrations, with exactly their permissions."""

import pytest
from django.contrib.auth.models import Group, Permission

from quizzes.accounts.roles import CONTENT_EDITORS, GROUP_PERMISSIONS, TEACHERS, staff_groups_ensure
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def codenames(group: Group) -> set[str]:
    return set(group.permissions.values_list("codename", flat=True))


def test_groups_exist_after_migrations():
    assert set(Group.objects.values_list("name", flat=True)) >= {CONTENT_EDITORS, TEACHERS}


@pytest.mark.parametrize("name", [CONTENT_EDITORS, TEACHERS])
def test_group_permissions(name):
    group = Group.objects.get(name=name)
    assert codenames(group) == set(GROUP_PERMISSIONS[name])
    assert set(group.permissions.values_list("content_type__app_label", flat=True)) == {"quizzes"}


def test_every_listed_permission_exists():
    # A misspelt codename would silently give the group less than intended.
    for names in GROUP_PERMISSIONS.values():
        assert Permission.objects.filter(content_type__app_label="quizzes", codename__in=names).count() == len(names)


def test_content_editors_edit_content_and_read_records():
    editors = codenames(Group.objects.get(name=CONTENT_EDITORS))
    for model in ("course", "quiz", "question", "choice", "enrollment"):
        assert {f"add_{model}", f"change_{model}", f"delete_{model}", f"view_{model}"} <= editors
    assert {"view_attempt", "view_answer"} <= editors
    assert not {"change_attempt", "delete_attempt", "add_answer", "change_answer"} & editors


def test_teachers_read_content_and_enroll():
    teachers = codenames(Group.objects.get(name=TEACHERS))
    assert {"view_quiz", "view_question", "view_choice", "view_course", "view_attempt", "view_answer"} <= teachers
    assert {"add_enrollment", "delete_enrollment"} <= teachers
    assert not {"change_quiz", "change_question", "change_choice", "add_quiz"} & teachers


def test_ensure_restores_exactly_the_permissions():
    group = Group.objects.get(name=TEACHERS)
    group.permissions.add(Permission.objects.get(codename="change_quiz"))
    group.permissions.remove(Permission.objects.get(codename="view_attempt"))
    staff_groups_ensure()
    assert codenames(group) == set(GROUP_PERMISSIONS[TEACHERS])
    assert Group.objects.filter(name=TEACHERS).count() == 1


def test_teacher_permissions_apply_to_members():
    teacher = UserFactory(is_staff=True)
    teacher.groups.add(Group.objects.get(name=TEACHERS))
    assert teacher.has_perm("quizzes.view_question")
    assert teacher.has_perm("quizzes.add_enrollment")
    assert not teacher.has_perm("quizzes.change_question")


def test_editor_fixture(editor):
    assert editor.is_staff
    assert not editor.is_superuser
    assert editor.has_perm("quizzes.change_question")


def test_student_fixture(student):
    assert not student.is_staff
    assert student.enrollments.get().course.slug == "memory-efficient-training"
    assert not student.has_perm("quizzes.view_question")
