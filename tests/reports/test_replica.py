"""The staff reports against a real streaming replica (tests/postgres_cluster.py) behind a live
gunicorn with ``DATABASE_REPLICA_URL``: while the replica's replay is paused a student's answer is
on the student's own pages at once and not yet in the reports, which say the replica is behind;
once it has caught up the reports show the answer and say it is up to date. An admin edit lands
on the primary, and with the replica stopped the reports are read from the primary and say so."""

import json
import os
import re
import secrets
import subprocess
import sys
import time

import pytest
import requests

from tests import postgres_cluster
from tests.concurrency import requires_postgresql
from tests.concurrency.conftest import PROJECT_DIR, RaceDatabase, serving

pytestmark = [
    requires_postgresql,
    pytest.mark.xdist_group("replica"),  # one xdist worker: the cluster and the server are made once
    pytest.mark.skipif(postgres_cluster.unavailable() is not None, reason=str(postgres_cluster.unavailable())),
]

DBNAME = "lms_replica"
QUIZ = "gradient-checkpointing"
TIMEOUT = 15
BEHIND = re.compile(r"Read from a copy of the database, \d+ seconds? behind\.")
UP_TO_DATE = "Read from a copy of the database, up to date."
UNAVAILABLE = "The copy of the database is unavailable; read from the main database."
MISSING = "The copy of the database does not have this yet; read from the main database."
# A quiz made on the primary (manage.py with the site's settings): its statistics page.
NEW_QUIZ = """
from django.urls import reverse
from django.utils import translation
from quizzes.models import Course
from tests.factories import QuizFactory
quiz = QuizFactory(course=Course.objects.get(slug="memory-efficient-training"), slug="made-just-now")
with translation.override("en"):
    print("URL=" + reverse("staff:quiz_statistics", args=[quiz.pk]))
"""
CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')

# One manage.py process: the fixtures, a student with an API token, a teacher and an admin
# logged in on the web (sessions as the login view leaves them), a group the admin renames.
SITE = """
import json, os
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.auth.models import Group
from django.contrib.sessions.backends.db import SessionStore
from django.core.management import call_command
from django.urls import reverse
from django.utils import translation
from rest_framework.authtoken.models import Token
from quizzes.accounts.roles import TEACHERS, staff_groups_ensure
from quizzes.enrollment.services import enrollment_create
from quizzes.models import Course, Quiz

call_command("loaddata", *json.loads(os.environ["SITE_FIXTURES"]), verbosity=0)
course = Course.objects.get(slug="memory-efficient-training")
quiz = Quiz.objects.get(slug=os.environ["SITE_QUIZ"])
User = get_user_model()

def logged_in(user):
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "quizzes.accounts.backends.StatementModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key

student = User(username="replica-student")
student.set_unusable_password()
student.save()
enrollment_create(user=student, course=course)
teacher = User.objects.create_user("replica-teacher", is_staff=True)
teacher.groups.add(staff_groups_ensure()[TEACHERS])
boss = User.objects.create_superuser("replica-admin", "admin@example.org", None)
group = Group.objects.create(name="Markers")
question = quiz.questions.order_by("position").first()
with translation.override("en"):
    urls = {
        "gradebook": reverse("staff:gradebook", args=[course.slug]),
        "index": reverse("staff:statistics_index"),
        "statistics": reverse("staff:quiz_statistics", args=[quiz.pk]),
        "group": reverse("admin:auth_group_change", args=[group.pk]),
    }
print("SITE=" + json.dumps({
    "token": Token.objects.create(user=student).key,
    "teacher": logged_in(teacher),
    "admin": logged_in(boss),
    "group": group.pk,
    "question": question.pk,
    "choice": question.choices.order_by("position").first().pk,
    "urls": urls,
}))
"""


def _manage(env: dict, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, f"manage.py {args[0]} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def cluster():
    with postgres_cluster.primary_and_replica() as cluster:
        cluster.create_database(DBNAME)
        yield cluster


@pytest.fixture(scope="module")
def site(cluster, tmp_path_factory):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.concurrency.live_settings",  # static files from the apps
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": f"replica-{secrets.token_urlsafe(48)}",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DATABASE_URL": cluster.primary.url(DBNAME),
        "DATABASE_REPLICA_URL": cluster.replica.url(DBNAME),
        "SITE_FIXTURES": json.dumps(sorted(str(path) for path in (PROJECT_DIR / "fixtures").glob("*.json"))),
        "SITE_QUIZ": QUIZ,
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("REDIS_URL", None)
    _manage(env, "migrate", "--noinput", "-v0")
    output = _manage(env, "shell", "-v0", "-c", SITE)
    found = json.loads(next(line for line in output.splitlines() if line.startswith("SITE="))[5:])
    cluster.wait_replayed()
    database = RaceDatabase(dbname=DBNAME, env=env, tokens={"replica-student": found["token"]}, sessions={}, quizzes={})
    with serving(database, tmp_path_factory.mktemp("replica") / "gunicorn.log") as server:
        server.site = found
        yield server


def _staff_get(site, name: str, *, session: str = "teacher", **params) -> requests.Response:
    response = requests.get(
        site.page(site.site["urls"][name]),
        params=params,
        cookies={"sessionid": site.site[session]},
        timeout=TIMEOUT,
        allow_redirects=False,
    )
    assert response.status_code == 200, (name, response.status_code, site.log_since(0)[-3000:])
    return response


def _api(site, method: str, path: str, **options) -> requests.Response:
    headers = {"Authorization": f"Token {site.site['token']}"}
    return requests.request(method, site.api(path), headers=headers, timeout=TIMEOUT, **options)


def _received(cluster) -> None:
    """Wait until the replica has received all the primary wrote (replayed or not)."""
    target = cluster.primary.scalar("SELECT pg_current_wal_lsn()::text")
    deadline = time.monotonic() + TIMEOUT
    while not cluster.replica.scalar("SELECT pg_last_wal_receive_lsn() >= %s::pg_lsn", (target,)):
        assert time.monotonic() < deadline, "the replica did not receive the primary's changes"
        time.sleep(0.02)


def test_the_reports_read_the_replica_and_say_how_far_behind(site, cluster):
    attempt_link = "/attempt/{}/change/"
    csv_before = _staff_get(site, "statistics", format="csv").text
    assert UP_TO_DATE in _staff_get(site, "index").text

    cluster.pause_replay()
    try:
        started = _api(site, "POST", f"quizzes/{QUIZ}/attempts/")
        assert started.status_code == 201, started.text
        attempt = started.json()["id"]
        body = {"question": site.site["question"], "choice": site.site["choice"]}
        assert _api(site, "POST", f"attempts/{attempt}/answers/", json=body).status_code == 201
        assert _api(site, "POST", f"attempts/{attempt}/finish/").status_code == 200
        # The student's own reads are the primary's: the answer is there at once.
        detail = _api(site, "GET", f"attempts/{attempt}/")
        assert [answer["question"] for answer in detail.json()["answers"]] == [site.site["question"]]
        _received(cluster)

        gradebook = _staff_get(site, "gradebook").text
        assert attempt_link.format(attempt) not in gradebook
        assert BEHIND.search(gradebook), gradebook[:2000]
        assert BEHIND.search(_staff_get(site, "statistics").text)
        assert _staff_get(site, "statistics", format="csv").text == csv_before
    finally:
        cluster.resume_replay()
    cluster.wait_replayed()

    gradebook = _staff_get(site, "gradebook").text
    assert attempt_link.format(attempt) in gradebook
    assert UP_TO_DATE in gradebook
    assert UP_TO_DATE in _staff_get(site, "statistics").text
    csv_after = _staff_get(site, "statistics", format="csv")
    assert csv_after.text != csv_before and "copy of the database" not in csv_after.text


def test_a_quiz_the_replica_does_not_have_yet_is_reported_from_the_primary(site, cluster):
    cluster.pause_replay()
    try:
        output = _manage(site.database.env, "shell", "-v0", "-c", NEW_QUIZ)
        url = next(line for line in output.splitlines() if line.startswith("URL="))[4:]
        _received(cluster)
        response = requests.get(
            site.page(url), cookies={"sessionid": site.site["teacher"]}, timeout=TIMEOUT, allow_redirects=False
        )
        assert response.status_code == 200, site.log_since(0)[-3000:]
        assert MISSING in response.text
        # A quiz that is nowhere is still not found.
        nowhere = requests.get(
            site.page(re.sub(r"/\d+/", "/987654/", url)), cookies={"sessionid": site.site["teacher"]}, timeout=TIMEOUT
        )
        assert nowhere.status_code == 404
    finally:
        cluster.resume_replay()
    cluster.wait_replayed()


def test_an_admin_edit_lands_on_the_primary(site, cluster):
    cluster.pause_replay()
    try:
        # A CSRF cookie of the client's own, as a browser keeps one (the server's is Secure: not over http).
        headers = {"Cookie": f"sessionid={site.site['admin']}; csrftoken={secrets.token_hex(16)}"}
        url = site.page(site.site["urls"]["group"])
        form = requests.get(url, headers=headers, timeout=TIMEOUT)
        assert form.status_code == 200
        token = CSRF_FIELD.search(form.text).group(1)
        saved = requests.post(
            url,
            data={"csrfmiddlewaretoken": token, "name": "Markers 2"},
            headers=headers,
            timeout=TIMEOUT,
            allow_redirects=False,
        )
        assert saved.status_code == 302, saved.text[:2000]
        name = "SELECT name FROM auth_group WHERE id = %s"
        with cluster.primary.connect(DBNAME) as primary:
            assert primary.execute(name, (site.site["group"],)).fetchone() == ("Markers 2",)
        with cluster.replica.connect(DBNAME) as replica:
            assert replica.execute(name, (site.site["group"],)).fetchone() == ("Markers",)
    finally:
        cluster.resume_replay()
    cluster.wait_replayed()


def test_without_the_replica_the_reports_read_the_primary_and_say_so(site, cluster):
    cluster.stop_replica()
    try:
        for name in ("index", "statistics", "gradebook"):
            assert UNAVAILABLE in _staff_get(site, name).text
        assert _staff_get(site, "statistics", format="csv").text.startswith("question,")
    finally:
        cluster.start_replica()
    cluster.wait_replayed()
    page = _staff_get(site, "index").text
    assert UP_TO_DATE in page, re.findall(r"replica-status[^<]*<", page)  # the next report tries the replica again
