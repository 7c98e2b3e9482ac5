"""``make bench-stats``: how long the item statistics page takes with 100,000 answers.

Standalone (not a test): ``.venv/bin/python benchmarks/statistics_page.py``.
DATABASE_URL must point to PostgreSQL (default
postgres://postgres@127.0.0.1:5432/lms_bench_stats; the database is created if
missing). The script migrates, loads the fixtures, bulk-inserts 12,500 finished
attempts x 8 questions of the gradient-checkpointing quiz (once: a second run
reuses them), then renders the page through Django's test client, logged in as
a content editor: 2 warm-ups, then ``--runs`` timed requests. It prints the
median and p95 wall time and the number of queries per request, and writes
benchmarks/results/statistics-page.json.

The answers follow a seeded pattern: each student has an ability, each
question a difficulty; languages are 50% English, 25% Urdu, 15% Indonesian,
10% Shona; question 3 is much harder in Urdu (a translation problem the page
should flag).
"""

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

PROJECT_DIR = Path(__file__).resolve().parent.parent
RESULTS = PROJECT_DIR / "benchmarks" / "results" / "statistics-page.json"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/lms_bench_stats"
SLUG = "gradient-checkpointing"
ATTEMPTS = 12_500
USER_PREFIX = "bench-stats-"
EDITOR = "bench-stats-editor"
LANGUAGES = [("en", 50), ("ur", 25), ("id", 15), ("sn", 10)]
BATCH = 5_000


def database_create_if_missing(url: str) -> None:
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin_url = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin_url, autocommit=True) as connection:
        exists = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            connection.execute(f'CREATE DATABASE "{name}"')
            print(f"created database {name}")


def seed(quiz) -> int:
    """Insert the benchmark's attempts and answers unless they are there; the number of answers."""
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction
    from django.utils import timezone

    from quizzes.models import Answer, Attempt

    user_model = get_user_model()
    existing = Attempt.objects.filter(quiz=quiz, user__username__startswith=USER_PREFIX, state="finished").count()
    if existing == ATTEMPTS:
        return Answer.objects.filter(attempt__quiz=quiz, attempt__user__username__startswith=USER_PREFIX).count()
    started = time.perf_counter()
    questions = list(quiz.questions.filter(is_archived=False).order_by("position").prefetch_related("choices"))
    rng = random.Random(20261129)
    difficulty = {question.pk: 0.35 + 0.06 * index for index, question in enumerate(questions)}
    languages = [code for code, weight in LANGUAGES for _ in range(weight)]
    now = timezone.now()
    with transaction.atomic():
        Answer.objects.filter(attempt__user__username__startswith=USER_PREFIX).delete()
        Attempt.objects.filter(user__username__startswith=USER_PREFIX).delete()
        user_model.objects.filter(username__startswith=USER_PREFIX).exclude(username=EDITOR).delete()
        users = user_model.objects.bulk_create(
            (user_model(username=f"{USER_PREFIX}{number:05d}", password="!") for number in range(ATTEMPTS)),
            batch_size=BATCH,
        )
        plans = []
        for _user in users:
            ability = rng.random()
            language = rng.choice(languages)
            picks = []
            for position, question in enumerate(questions, start=1):
                chance = 0.25 + 0.7 * ability * difficulty[question.pk] / 0.8
                if position == 3 and language == "ur":
                    chance *= 0.4
                right = rng.random() < min(chance, 0.97)
                choices = list(question.choices.all())
                pool = [choice for choice in choices if choice.is_correct == right]
                picks.append((question, rng.choice(pool)))
            plans.append((language, picks))
        attempts = Attempt.objects.bulk_create(
            (
                Attempt(
                    user=user,
                    quiz=quiz,
                    number=1,
                    state=Attempt.State.FINISHED,
                    finished_at=now,
                    score=sum(choice.is_correct for _question, choice in picks),
                    max_score=len(questions),
                    pass_mark=quiz.pass_mark,
                )
                for user, (_language, picks) in zip(users, plans, strict=True)
            ),
            batch_size=BATCH,
        )
        answers = Answer.objects.bulk_create(
            (
                Answer(
                    attempt=attempt, question=question, choice=choice, is_correct=choice.is_correct, language=language
                )
                for attempt, (language, picks) in zip(attempts, plans, strict=True)
                for question, choice in picks
            ),
            batch_size=BATCH,
        )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(f"inserted {len(attempts)} attempts and {len(answers)} answers in {time.perf_counter() - started:.1f} s")
    return len(answers)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmups", type=int, default=2)
    args = parser.parse_args()

    url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    if not url.startswith(("postgres://", "postgresql://")):
        print(f"DATABASE_URL must point to PostgreSQL, not {url!r}", file=sys.stderr)
        return 2
    os.environ["DATABASE_URL"] = url
    # The test settings: a throwaway secret, plain http and the test client's host allowed.
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lms.settings_test")
    os.environ["DJANGO_ALLOWED_HOSTS"] = "testserver"
    sys.path.insert(0, str(PROJECT_DIR))
    database_create_if_missing(url)

    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from quizzes.accounts.roles import CONTENT_EDITORS, staff_groups_ensure
    from quizzes.models import Quiz

    call_command("migrate", verbosity=0, interactive=False)
    call_command("loaddata", *sorted(str(path) for path in (PROJECT_DIR / "fixtures").glob("*.json")), verbosity=0)
    quiz = Quiz.objects.get(slug=SLUG)
    answers = seed(quiz)

    editor, _created = get_user_model().objects.get_or_create(username=EDITOR, defaults={"is_staff": True})
    editor.groups.add(staff_groups_ensure()[CONTENT_EDITORS])
    client = Client()
    client.force_login(editor)
    path = reverse("staff:quiz_statistics", args=[quiz.pk])

    for _ in range(args.warmups):
        assert client.get(path).status_code == 200
    timings = []
    for _ in range(args.runs):
        started = time.perf_counter()
        response = client.get(path)
        timings.append(time.perf_counter() - started)
        assert response.status_code == 200, response.status_code
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code == 200
    timings.sort()
    median = statistics.median(timings)
    p95 = timings[math.ceil(0.95 * len(timings)) - 1]  # nearest rank
    result = {
        "page": path,
        "database": connection.vendor + " " + ".".join(map(str, divmod(connection.pg_version, 10000))),
        "attempts": ATTEMPTS,
        "answers": answers,
        "runs": args.runs,
        "warmups": args.warmups,
        "median_ms": round(median * 1000, 1),
        "p95_ms": round(p95 * 1000, 1),
        "min_ms": round(timings[0] * 1000, 1),
        "max_ms": round(timings[-1] * 1000, 1),
        "queries_per_request": len(queries),
        "measured_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"{path}: {answers} answers, {ATTEMPTS} finished attempts")
    print(f"median {result['median_ms']} ms, p95 {result['p95_ms']} ms over {args.runs} runs; {len(queries)} queries")
    print(f"written to {RESULTS.relative_to(PROJECT_DIR)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
