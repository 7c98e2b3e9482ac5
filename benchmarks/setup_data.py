"""Create the benchmark's students and write what the load generators need.

Run by benchmarks/run.py with the server's environment (same database and
secret key), after migrate and loaddata. Fast on purpose: users, enrollments,
sessions, API tokens and attempts are bulk-inserted, with one password hash
computed once and the session rows encoded directly (what a login would
store). Groups of students, each used by one workload so that every answer
is a fresh (attempt, question):

- ``read``: a session, a CSRF cookie and an attempt in progress; question page and dashboard.
- ``web``: a session, a CSRF cookie and an attempt; answers through the form.
- ``api``: a token and an attempt; answers through the API.
- ``burst``: a token, no attempt (the burst starts them).
- ``two``: a token, no attempt (the two-server check).
- ``past``: a finished attempt with every question answered. A site in use has answers:
  the statistics ``VACUUM ANALYZE`` takes after this (benchmarks/run.py) see the answers
  table as it is in production, not empty, and so do the plans PostgreSQL makes from them.

Writes ``<out>/read.txt``, ``web.txt``, ``api.txt``, ``questions.txt`` (lines of
space-separated fields, for the wrk Lua script) and ``students.json``.
"""

import json
import os
import secrets
import string
import sys
from datetime import timedelta
from importlib import import_module
from pathlib import Path

import django


def main(out: Path, counts: dict[str, int]) -> None:
    django.setup()
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.auth.hashers import make_password
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session
    from django.db import connection, transaction
    from django.db.models import F
    from django.utils import timezone
    from rest_framework.authtoken.models import Token

    from benchmarks.ceiling import TABLE
    from quizzes.models import Answer, Attempt, AttemptQuestion, Course, Enrollment, Quiz

    user_model = get_user_model()
    quiz = Quiz.objects.get(slug="gradient-checkpointing")
    course = Course.objects.get(pk=quiz.course_id)
    questions = list(quiz.questions.filter(is_archived=False).order_by("position").prefetch_related("choices"))
    password = make_password("bench-student-password")
    backend = "quizzes.accounts.backends.StatementModelBackend"
    alphabet = string.ascii_letters + string.digits
    expires = timezone.now() + timedelta(days=1)

    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (id bigserial PRIMARY KEY, note text NOT NULL)")
        users = {}
        for group, count in counts.items():
            users[group] = user_model.objects.bulk_create(
                user_model(username=f"bench-{group}-{number:05d}", password=password) for number in range(count)
            )
        everyone = [user for group in users.values() for user in group]
        Enrollment.objects.bulk_create(Enrollment(user=user, course=course) for user in everyone)

        sessions, csrf, tokens, attempts = {}, {}, {}, {}
        for user in users["read"] + users["web"]:
            key = secrets.token_hex(16)
            data = {
                SESSION_KEY: str(user.pk),
                BACKEND_SESSION_KEY: backend,
                HASH_SESSION_KEY: user.get_session_auth_hash(),
            }
            sessions[user.pk] = (key, SessionStore().encode(data))
            csrf[user.pk] = "".join(secrets.choice(alphabet) for _ in range(32))
        Session.objects.bulk_create(
            Session(session_key=key, session_data=data, expire_date=expires) for key, data in sessions.values()
        )
        for user in users["api"] + users["burst"] + users["two"]:
            tokens[user.pk] = Token.generate_key()
        Token.objects.bulk_create(Token(key=key, user_id=pk) for pk, key in tokens.items())
        started = Attempt.objects.bulk_create(
            Attempt(user=user, quiz=quiz, number=1, max_score=len(questions), pass_mark=quiz.pass_mark)
            for user in users["read"] + users["web"] + users["api"]
        )
        attempts = {attempt.user_id: attempt.pk for attempt in started}
        # Finished ten minutes after they started (started_at is the INSERT's time: moved back below).
        past = Attempt.objects.bulk_create(
            Attempt(
                user=user, quiz=quiz, number=1, state=Attempt.State.FINISHED, score=0, max_score=len(questions),
                pass_mark=quiz.pass_mark, finished_at=timezone.now() + timedelta(minutes=10),
            )
            for user in users.get("past", [])
        )  # fmt: skip
        # Each attempt's layout, as a start draws it with the quiz unshuffled: its questions in
        # position order, each its current version with the choices in their order.
        current = {question.pk: question.versions.order_by("-number").first() for question in questions}
        AttemptQuestion.objects.bulk_create(
            AttemptQuestion(
                attempt=attempt,
                position=position,
                question=question,
                version=current[question.pk],
                choice_order=[choice["id"] for choice in current[question.pk].choices],
            )
            for attempt in [*started, *past]
            for position, question in enumerate(questions, start=1)
        )
        # The first choice of each question, as the workloads answer (right or wrong by the key).
        first = {question.pk: min(question.choices.all(), key=lambda c: c.position).pk for question in questions}
        Answer.objects.bulk_create(
            Answer(
                attempt=attempt, question=question, choice_id=first[question.pk], version=current[question.pk],
                is_correct=first[question.pk] == current[question.pk].correct_choice_id, language="en",
            )
            for attempt in past
            for question in questions
        )  # fmt: skip
        right = sum(first[question.pk] == current[question.pk].correct_choice_id for question in questions)
        day = timedelta(days=1)
        Attempt.objects.filter(pk__in=[attempt.pk for attempt in past]).update(
            score=right, started_at=F("started_at") - day, finished_at=F("started_at") - day + timedelta(minutes=10)
        )

    # A login saves the session to the cache as well as the database (cached_db sessions):
    # load each one once, so that the workloads start as after the students logged in,
    # not with a cache miss on every student's first request.
    cached_store = import_module(settings.SESSION_ENGINE).SessionStore
    for key, _data in sessions.values():
        cached_store(session_key=key).load()

    out.mkdir(parents=True, exist_ok=True)
    # A student's browser holds the CSRF cookie from the first page on: every request sends it.
    for name in ("read", "web"):
        (out / f"{name}.txt").write_text(
            "".join(f"{sessions[u.pk][0]} {csrf[u.pk]} {attempts[u.pk]}\n" for u in users[name]), encoding="ascii"
        )
    (out / "api.txt").write_text("".join(f"{tokens[u.pk]} {attempts[u.pk]}\n" for u in users["api"]), encoding="ascii")
    # The first choice of each question: right or wrong, every answer is a new row.
    (out / "questions.txt").write_text(
        "".join(f"{q.position} {q.pk} {min(q.choices.all(), key=lambda c: c.position).pk}\n" for q in questions),
        encoding="ascii",
    )
    (out / "students.json").write_text(
        json.dumps(
            {
                "quiz": quiz.slug,
                "questions": [
                    {"id": q.pk, "position": q.position, "choices": [c.pk for c in q.choices.all()]} for q in questions
                ],
                "web_attempts": [attempts[u.pk] for u in users["web"]],
                "api_attempts": [attempts[u.pk] for u in users["api"]],
                "burst_tokens": [tokens[u.pk] for u in users["burst"]],
                "two_tokens": [tokens[u.pk] for u in users["two"]],
            }
        ),
        encoding="utf-8",
    )
    print(f"students: {sum(counts.values())} ({', '.join(f'{g} {c}' for g, c in counts.items())})")


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lms.settings")
    main(Path(sys.argv[1]), json.loads(sys.argv[2]))
