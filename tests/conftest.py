"""Shared fixtures: the seed content, and a student and an editor."""

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from quizzes.models import Course, Quiz
from quizzes.roles import CONTENT_EDITORS, staff_groups_ensure
from tests.factories import EnrollmentFactory, UserFactory

PROJECT_DIR = Path(__file__).resolve().parent.parent
FIXTURES_DIR = PROJECT_DIR / "fixtures"
SEEDS_DIR = Path(__file__).resolve().parent / "seeds"
FIXTURE_FILES = sorted(FIXTURES_DIR.glob("*.json"))


def load_fixtures() -> None:
    call_command("loaddata", *(str(path) for path in FIXTURE_FILES), verbosity=0)


def fixture_records(model: str) -> list[dict]:
    """The fixture objects of ``model`` ("quizzes.question"...), as in the JSON files."""
    records = []
    for path in FIXTURE_FILES:
        records += [record for record in json.loads(path.read_text(encoding="utf-8")) if record["model"] == model]
    return records


@pytest.fixture
def content(db) -> dict[str, Quiz]:
    """Every fixture loaded; the quizzes by slug."""
    load_fixtures()
    return {quiz.slug: quiz for quiz in Quiz.objects.all()}


@pytest.fixture
def course(content) -> Course:
    return Course.objects.get(slug="memory-efficient-training")


@pytest.fixture
def student(content):
    """A plain user enrolled in memory-efficient-training."""
    user = UserFactory(username="student-1")
    EnrollmentFactory(user=user, course=Course.objects.get(slug="memory-efficient-training"))
    return user


@pytest.fixture
def editor(db):
    """Staff in the Content editors group, not a superuser."""
    user = UserFactory(username="editor-1", is_staff=True)
    user.groups.add(staff_groups_ensure()[CONTENT_EDITORS])
    return user
