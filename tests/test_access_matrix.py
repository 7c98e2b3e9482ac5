"""Access matrix: every actor against every web page and API endpoint.

One parametrized test per cell of ``MATRIX``: the expected status (and, for a
redirect, where it goes), and that the request changed exactly what it should
(nothing at all when it is refused). The cells share one world, made once: the seed
content, the six actors, and the owner's attempts; each cell runs in a transaction rolled
back after it, so each starts from that world as it was made.

Expected statuses (docs/integrations.md, docs/teachers.md):

- anonymous web pages redirect to the login page (302, ``?next=`` the page);
  the anonymous API answers 401;
- someone else's attempt is 404, on the web and in the API;
- a quiz of a course the user is not enrolled in is 403 (the web shows the
  "not enrolled" page); the editor and the superuser are enrolled nowhere;
- self-enrollment is open to every logged-in user where the course allows it
  and 403 where it does not;
- the admin sends non-staff to the admin login (302); the "Content editors"
  group may see content and attempts but not ``auth.user`` (403);
- the token endpoint is public: good credentials get 200, bad ones 400
  (never 401: there is nothing to authenticate with yet);
- the OpenAPI schema and its docs are public on purpose (drf-spectacular's
  default ``SERVE_PERMISSIONS`` is AllowAny and lms/settings.py keeps it):
  they describe the API's shape and hold no user data, so 200 for everyone.
"""

from dataclasses import dataclass
from urllib.parse import quote

import pytest
from django.db import transaction
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from quizzes.accounts.roles import CONTENT_EDITORS, staff_groups_ensure
from quizzes.models import Answer, Attempt, Course, Enrollment, Quiz
from tests import figures
from tests.conftest import content_load
from tests.factories import DEFAULT_PASSWORD, AttemptFactory, CourseFactory, EnrollmentFactory, UserFactory

ACTORS = ("anonymous", "outsider", "owner", "other", "editor", "superuser")
"""Rows: nobody; a user enrolled nowhere; the enrolled student who owns the
attempts; another enrolled student; staff in "Content editors"; a superuser
(enrolled nowhere)."""

# Redirect targets, resolved per request (see ``World.location``).
LOGIN = (302, "login")
ADMIN_LOGIN = (302, "admin-login")
DASHBOARD = (302, "dashboard")


def row(anonymous, outsider, owner, other, editor, superuser):
    return dict(zip(ACTORS, (anonymous, outsider, owner, other, editor, superuser), strict=True))


# Resource: (actor columns) ------------------------------ anonymous, outsider, owner, other, editor, superuser
ROWS = {
    "web GET dashboard": row(LOGIN, 200, 200, 200, 200, 200),
    "web GET quiz": row(LOGIN, 403, 200, 200, 403, 403),
    "web POST quiz start": row(LOGIN, 403, (302, "attempt"), (302, "new-attempt"), 403, 403),
    "web POST enroll (open course)": row(LOGIN, DASHBOARD, DASHBOARD, DASHBOARD, DASHBOARD, DASHBOARD),
    "web POST enroll (closed course)": row(LOGIN, 403, 403, 403, 403, 403),
    "web GET attempt": row(LOGIN, 404, (302, "question-1"), 404, 404, 404),
    "web GET attempt question": row(LOGIN, 404, 200, 404, 404, 404),
    "web POST attempt question": row(LOGIN, 404, (302, "question-1-feedback"), 404, 404, 404),
    "web POST attempt finish": row(LOGIN, 404, (302, "result"), 404, 404, 404),
    "web GET attempt result": row(LOGIN, 404, 200, 404, 404, 404),
    "web GET login": row(200, DASHBOARD, DASHBOARD, DASHBOARD, DASHBOARD, DASHBOARD),
    "web GET admin index": row(ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, 200, 200),
    "web GET admin quiz list": row(ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, 200, 200),
    "web GET admin quiz change": row(ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, 200, 200),
    "web GET admin quiz preview": row(ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, 200, 200),
    "web GET admin attempt list": row(ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, 200, 200),
    "web GET admin attempt change": row(ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, 200, 200),
    "web GET admin user list": row(ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, ADMIN_LOGIN, 403, 200),
    "api POST auth token": row(400, 200, 200, 200, 200, 200),
    "api GET quizzes": row(401, 200, 200, 200, 200, 200),
    "api GET quiz": row(401, 403, 200, 200, 403, 403),
    "api POST quiz attempts": row(401, 403, 200, 201, 403, 403),
    "api GET attempt": row(401, 404, 200, 404, 404, 404),
    "api POST attempt answers": row(401, 404, 201, 404, 404, 404),
    "api POST attempt finish": row(401, 404, 200, 404, 404, 404),
    "api GET progress": row(401, 200, 200, 200, 200, 200),
    "api GET schema": row(200, 200, 200, 200, 200, 200),
    "api GET docs": row(200, 200, 200, 200, 200, 200),
}

MATRIX: dict[tuple[str, str], int | tuple[int, str]] = {
    (actor, resource): expected for resource, columns in ROWS.items() for actor, expected in columns.items()
}

# What an allowed request changes: (attempts, finished attempts, answers, enrollments).
# Every cell not listed here (every refusal, every read) must change nothing.
EFFECTS: dict[tuple[str, str], tuple[int, int, int, int]] = {
    ("other", "web POST quiz start"): (1, 0, 0, 0),
    ("other", "api POST quiz attempts"): (1, 0, 0, 0),
    ("owner", "web POST attempt question"): (0, 0, 1, 0),
    ("owner", "api POST attempt answers"): (0, 0, 1, 0),
    ("owner", "web POST attempt finish"): (0, 1, 0, 0),
    ("owner", "api POST attempt finish"): (0, 1, 0, 0),
    **{(actor, "web POST enroll (open course)"): (0, 0, 0, 1) for actor in ACTORS if actor != "anonymous"},
}

# Cells where the app answers wrongly today: the table keeps the right status.
KNOWN_HOLES: dict[tuple[str, str], str] = {}


@dataclass
class World:
    users: dict  # actor -> User (no "anonymous")
    quiz: object
    attempt: object  # the owner's attempt in progress
    finished: object  # the owner's finished attempt
    open_course: object
    closed_course: object

    def request(self, actor: str, resource: str):
        """(client, method, url, data, kwargs) for one cell."""
        quiz, attempt, question = self.quiz, self.attempt, self.quiz.questions.get(position=1)
        choice = question.choices.get(is_correct=True)
        web = {
            "web GET dashboard": ("get", "/en/", None),
            "web GET quiz": ("get", f"/en/quizzes/{quiz.slug}/", None),
            "web POST quiz start": ("post", f"/en/quizzes/{quiz.slug}/start/", {}),
            "web POST enroll (open course)": ("post", f"/en/courses/{self.open_course.slug}/enroll/", {}),
            "web POST enroll (closed course)": ("post", f"/en/courses/{self.closed_course.slug}/enroll/", {}),
            "web GET attempt": ("get", f"/en/attempts/{attempt.pk}/", None),
            "web GET attempt question": ("get", f"/en/attempts/{attempt.pk}/questions/1/", None),
            "web POST attempt question": (
                "post",
                f"/en/attempts/{attempt.pk}/questions/1/",
                {"question": question.pk, "choice": choice.pk},
            ),
            "web POST attempt finish": ("post", f"/en/attempts/{attempt.pk}/finish/", {}),
            "web GET attempt result": ("get", f"/en/attempts/{self.finished.pk}/result/", None),
            "web GET login": ("get", "/en/accounts/login/", None),
            "web GET admin index": ("get", "/en/admin/", None),
            "web GET admin quiz list": ("get", "/en/admin/quizzes/quiz/", None),
            "web GET admin quiz change": ("get", f"/en/admin/quizzes/quiz/{quiz.pk}/change/", None),
            "web GET admin quiz preview": ("get", f"/en/admin/quizzes/quiz/{quiz.pk}/preview/", None),
            "web GET admin attempt list": ("get", "/en/admin/quizzes/attempt/", None),
            "web GET admin attempt change": ("get", f"/en/admin/quizzes/attempt/{attempt.pk}/change/", None),
            "web GET admin user list": ("get", "/en/admin/auth/user/", None),
        }
        if resource in web:
            method, url, data = web[resource]
            return self.web_client(actor), method, url, data, {}
        user = self.users.get(actor)
        credentials = (
            {"username": user.username, "password": DEFAULT_PASSWORD}
            if user
            else {"username": "nobody", "password": "not-a-password"}
        )
        api = {
            "api POST auth token": ("post", "/api/v1/auth/token/", credentials),
            "api GET quizzes": ("get", "/api/v1/quizzes/", None),
            "api GET quiz": ("get", f"/api/v1/quizzes/{quiz.slug}/", None),
            "api POST quiz attempts": ("post", f"/api/v1/quizzes/{quiz.slug}/attempts/", None),
            "api GET attempt": ("get", f"/api/v1/attempts/{attempt.pk}/", None),
            "api POST attempt answers": (
                "post",
                f"/api/v1/attempts/{attempt.pk}/answers/",
                {"question": question.pk, "choice": choice.pk},
            ),
            "api POST attempt finish": ("post", f"/api/v1/attempts/{attempt.pk}/finish/", None),
            "api GET progress": ("get", "/api/v1/progress/", None),
            "api GET schema": ("get", "/api/v1/schema/", None),
            "api GET docs": ("get", "/api/v1/docs/", None),
        }
        method, url, data = api[resource]
        return self.api_client(actor), method, url, data, {"format": "json"} if method == "post" else {}

    def web_client(self, actor: str) -> Client:
        client = Client()
        if actor != "anonymous":
            client.force_login(self.users[actor])
        return client

    def api_client(self, actor: str) -> APIClient:
        client = APIClient()
        if actor != "anonymous":
            token, _created = Token.objects.get_or_create(user=self.users[actor])
            client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        return client

    def location(self, target: str, actor: str, url: str) -> str:
        """Where a 302 of ``target`` must point, after the request."""
        next_ = quote(url, safe="/")
        if target == "login":
            return f"/en/accounts/login/?next={next_}"
        if target == "admin-login":
            return f"/en/admin/login/?next={next_}"
        if target == "dashboard":
            return "/en/"
        if target == "attempt":
            return f"/en/attempts/{self.attempt.pk}/"
        if target == "new-attempt":
            new = Attempt.objects.get(user=self.users[actor], quiz=self.quiz, state=Attempt.State.IN_PROGRESS)
            return f"/en/attempts/{new.pk}/"
        if target == "question-1":
            return f"/en/attempts/{self.attempt.pk}/questions/1/"
        if target == "question-1-feedback":
            return f"/en/attempts/{self.attempt.pk}/questions/1/#feedback"
        if target == "result":
            return f"/en/attempts/{self.attempt.pk}/result/"
        raise AssertionError(f"unknown redirect target {target!r}")


@pytest.fixture(scope="module")
def shared_world(django_db_setup, django_db_blocker):
    """The world of every cell, made once in a transaction that stays open while the cells run
    and is rolled back after them (as Django's ``setUpTestData``): each cell's own transaction
    (the ``db`` fixture's) is a savepoint inside it, rolled back after the cell."""
    with django_db_blocker.unblock(), transaction.atomic():
        content_load()
        course = Course.objects.get(slug="memory-efficient-training")
        quiz = Quiz.objects.get(slug="gradient-checkpointing")
        student, other = UserFactory(username="student-1"), UserFactory(username="student-2")
        for enrolled in (student, other):
            EnrollmentFactory(user=enrolled, course=course)
        editor = UserFactory(username="editor-1", is_staff=True)
        editor.groups.add(staff_groups_ensure()[CONTENT_EDITORS])
        yield World(
            users={
                "outsider": UserFactory(username="outsider-1"),
                "owner": student,
                "other": other,
                "editor": editor,
                "superuser": UserFactory(username="superuser-1", is_staff=True, is_superuser=True),
            },
            quiz=quiz,
            finished=AttemptFactory(user=student, quiz=quiz, number=1, finished=True),
            attempt=AttemptFactory(user=student, quiz=quiz, number=2),
            open_course=CourseFactory(slug="open-course", allow_self_enrollment=True),
            closed_course=CourseFactory(slug="closed-course", allow_self_enrollment=False),
        )
        transaction.set_rollback(True)


@pytest.fixture
def world(shared_world, db) -> World:
    return shared_world


def counts() -> tuple[int, int, int, int]:
    return (
        Attempt.objects.count(),
        Attempt.objects.filter(state=Attempt.State.FINISHED).count(),
        Answer.objects.count(),
        Enrollment.objects.count(),
    )


def cell_params():
    for (actor, resource), expected in MATRIX.items():
        marks = []
        if (actor, resource) in KNOWN_HOLES:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_HOLES[actor, resource]))
        yield pytest.param(actor, resource, expected, id=f"{actor}-{resource}", marks=marks)


def test_every_cell_has_a_row_for_every_actor():
    assert len(MATRIX) == len(ROWS) * len(ACTORS)
    assert set(EFFECTS) <= set(MATRIX)
    assert set(KNOWN_HOLES) <= set(MATRIX)


@pytest.mark.parametrize(("actor", "resource", "expected"), list(cell_params()))
def test_access(world, actor, resource, expected):
    figures.add("access-matrix cells checked")
    client, method, url, data, kwargs = world.request(actor, resource)
    before = counts()
    owner_attempt_state = Attempt.objects.get(pk=world.attempt.pk).state

    response = getattr(client, method)(url, data, **kwargs) if data is not None else getattr(client, method)(url)

    status, target = expected if isinstance(expected, tuple) else (expected, None)
    assert response.status_code == status, (actor, resource, response.status_code, response.content[:300])
    if target is not None:
        assert response["Location"] == world.location(target, actor, url)
    if resource.startswith("web") and status == 403 and "quiz" in resource:
        assert "quizzes/not_enrolled.html" in [t.name for t in response.templates]
    if resource.startswith("api") and status >= 400:
        assert response["Content-Type"].startswith("application/json")
        assert response.json()["detail"]
    if status == 401:
        assert response["WWW-Authenticate"].startswith("Token")

    delta = tuple(after - before for after, before in zip(counts(), before, strict=True))
    assert delta == EFFECTS.get((actor, resource), (0, 0, 0, 0)), (actor, resource, delta)
    if EFFECTS.get((actor, resource), (0, 0, 0, 0))[1] == 0:
        assert Attempt.objects.get(pk=world.attempt.pk).state == owner_attempt_state
