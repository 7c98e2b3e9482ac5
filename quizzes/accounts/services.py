"""Development accounts."""

from django.contrib.auth import get_user_model
from django.db import transaction

from quizzes.accounts.roles import CONTENT_EDITORS, staff_groups_ensure
from quizzes.enrollment.services import enrollment_create
from quizzes.models import Course


def demo_accounts_create() -> dict[str, object]:
    """Development accounts: ``student``/``student`` enrolled in every course,
    ``editor``/``editor`` staff in the Content editors group (not a superuser)."""
    User = get_user_model()
    groups = staff_groups_ensure()
    with transaction.atomic():
        student, _created = User.objects.get_or_create(username="student", defaults={"first_name": "Demo student"})
        student.set_password("student")
        student.save()
        for course in Course.objects.all():
            enrollment_create(user=student, course=course)
        editor, _created = User.objects.get_or_create(username="editor", defaults={"first_name": "Demo editor"})
        editor.set_password("editor")
        editor.is_staff = True
        editor.is_superuser = False
        editor.save()
        editor.groups.add(groups[CONTENT_EDITORS])
    return {"student": student, "editor": editor}
