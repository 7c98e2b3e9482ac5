"""The staff groups and what each may do.

"Content editors" edit every quiz, question, choice and translation, enroll
students and read attempts; "Teachers" enroll students and read content and
attempts. Both manage accommodations: course groups and quiz overrides.
Neither is a superuser: the admin shows each only what its permissions allow.
"""

from django.contrib.auth.models import Group, Permission

CONTENT_EDITORS = "Content editors"
TEACHERS = "Teachers"

_CONTENT_MODELS = ("course", "quiz", "question", "choice")
_RECORD_MODELS = ("attempt", "answer")
_ALL_ACTIONS = ("add", "change", "delete", "view")
_ACCOMMODATION_MODELS = ("coursegroup", "quizoverride")

GROUP_PERMISSIONS = {
    CONTENT_EDITORS: (
        [
            f"{action}_{model}"
            for model in (*_CONTENT_MODELS, "enrollment", *_ACCOMMODATION_MODELS)
            for action in _ALL_ACTIONS
        ]
        + [f"view_{model}" for model in _RECORD_MODELS]
        # Whether machine translations reach students: the editors' choice, read by teachers.
        + ["change_languagesetting", "view_languagesetting"]
    ),
    TEACHERS: (
        [f"view_{model}" for model in _CONTENT_MODELS]
        + [f"{action}_{model}" for model in ("enrollment", *_ACCOMMODATION_MODELS) for action in _ALL_ACTIONS]
        + [f"view_{model}" for model in _RECORD_MODELS]
        + ["view_languagesetting"]
    ),
}


def staff_groups_ensure(*, using: str = "default") -> dict[str, Group]:
    """Create the staff groups if needed and set exactly their permissions."""
    groups = {}
    for name, codenames in GROUP_PERMISSIONS.items():
        group, _created = Group.objects.using(using).get_or_create(name=name)
        permissions = Permission.objects.using(using).filter(content_type__app_label="quizzes", codename__in=codenames)
        group.permissions.set(permissions)
        groups[name] = group
    return groups


def staff_groups_on_migrate(sender, using, **kwargs) -> None:
    staff_groups_ensure(using=using)
