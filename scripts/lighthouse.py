"""Lighthouse on the student pages as production serves them (``make lighthouse``).

A throwaway SQLite database with the fixtures, one logged-in student per page (each page needs
its attempt in its own state), the static files collected as for production (hashed,
gzip and Brotli; into STATIC_ROOT, staticfiles/), gunicorn on a free port with debug off, then
Lighthouse's mobile preset (simulated throttling) on the dashboard, a question, its feedback and
a result page in English and Urdu. Prints the scores against the targets and writes the reports
to artifacts/lighthouse/; exits non-zero when a page misses one.

Lighthouse comes from npm into .lighthouse/ (make lighthouse installs it) and drives Debian's
chromium (CHROME_PATH). Run from the project directory with the project's Python.
"""

import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
LIGHTHOUSE = PROJECT_DIR / ".lighthouse" / "node_modules" / "lighthouse" / "cli" / "index.js"
REPORTS_DIR = PROJECT_DIR / "artifacts" / "lighthouse"
CHROME_FLAGS = "--headless --no-sandbox --disable-gpu --disable-background-networking"
LIGHTHOUSE_TRIES = 3
TARGETS = {"performance": 95, "accessibility": 100, "best-practices": 95}
LANGUAGES = ["en", "ur"]
STATES = ["dashboard", "question", "feedback", "result"]
QUIZ = "gradient-checkpointing"
OTHER_QUIZ = "activation-recomputation-tradeoffs"
# The question page shown: the third, two answered before it.
QUESTION = 3


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def production_environment(work: Path) -> dict:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "lms.settings",
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": f"sqlite:///{work / 'lighthouse.sqlite3'}",
        # Plain http on 127.0.0.1, no TLS proxy in front.
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DJANGO_NUM_PROXIES": "0",
        "REDIS_URL": "",
    }


def pages_prepare() -> dict[str, tuple[str, str]]:
    """The database, the static files and one student per page: {name: (path, session cookie)}."""
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.test import Client

    from quizzes.attempts.services import attempt_answer_submit, attempt_finish, attempt_start
    from quizzes.enrollment.services import enrollment_create
    from quizzes.models import Course, Question, Quiz

    call_command("migrate", interactive=False, verbosity=0)
    call_command("loaddata", *sorted(str(path) for path in (PROJECT_DIR / "fixtures").glob("*.json")), verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)

    from django.contrib.auth import get_user_model

    quiz, other_quiz = Quiz.objects.get(slug=QUIZ), Quiz.objects.get(slug=OTHER_QUIZ)
    questions = {
        question.position: question
        for question in Question.objects.filter(quiz=quiz).prefetch_related("choices").order_by("position")
    }

    def answered(user, language: str, count: int):
        attempt, _created = attempt_start(user=user, quiz=quiz)
        for position in range(1, count + 1):
            right = position % 2 == 1
            choice = next(choice for choice in questions[position].choices.all() if choice.is_correct == right)
            attempt_answer_submit(
                user=user,
                attempt_id=attempt.pk,
                question_id=questions[position].pk,
                choice_id=choice.pk,
                language=language,
            )
        return attempt

    pages = {}
    for language in LANGUAGES:
        for state in STATES:
            user = get_user_model().objects.create_user(username=f"lighthouse-{language}-{state}")
            for course in Course.objects.all():
                enrollment_create(user=user, course=course)
            if state == "dashboard":
                attempt_finish(attempt=answered(user, language, len(questions)))
                attempt_start(user=user, quiz=other_quiz)
                path = f"/{language}/"
            elif state == "question":
                attempt = answered(user, language, QUESTION - 1)
                path = f"/{language}/attempts/{attempt.pk}/questions/{QUESTION}/"
            elif state == "feedback":
                attempt = answered(user, language, QUESTION)
                path = f"/{language}/attempts/{attempt.pk}/questions/{QUESTION}/#feedback"
            else:
                attempt = attempt_finish(attempt=answered(user, language, len(questions)))
                path = f"/{language}/attempts/{attempt.pk}/result/"
            client = Client()
            client.force_login(user)
            cookie = f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
            pages[f"{language}-{state}"] = (path, cookie)
    return pages


def wait_for(url: str) -> None:
    for _attempt in range(100):
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"gunicorn did not answer {url}")


def lighthouse(url: str, cookie: str, name: str) -> dict[str, int]:
    # On a busy machine Lighthouse sometimes loses the page load's trace (NO_NAVSTART): tried again.
    for attempt in range(1, LIGHTHOUSE_TRIES + 1):
        try:
            return lighthouse_run(url, cookie, name)
        except subprocess.CalledProcessError:
            if attempt == LIGHTHOUSE_TRIES:
                raise
            print(f"{name}: Lighthouse failed, trying again", file=sys.stderr)


def lighthouse_run(url: str, cookie: str, name: str) -> dict[str, int]:
    subprocess.run(
        [
            "node",
            str(LIGHTHOUSE),
            url,
            "--quiet",
            "--only-categories=performance,accessibility,best-practices",
            f"--chrome-flags={CHROME_FLAGS}",
            f"--extra-headers={json.dumps({'Cookie': cookie})}",
            "--output=json",
            "--output=html",
            f"--output-path={REPORTS_DIR / name}",
        ],
        check=True,
        env={**os.environ, "CHROME_PATH": "/usr/bin/chromium"},
    )
    report = json.loads((REPORTS_DIR / f"{name}.report.json").read_text(encoding="utf-8"))
    return {key: round(category["score"] * 100) for key, category in report["categories"].items()}


def main() -> int:
    if not LIGHTHOUSE.exists():
        print(f"Lighthouse is missing ({LIGHTHOUSE}): make lighthouse installs it", file=sys.stderr)
        return 2
    REPORTS_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work_dir:
        work = Path(work_dir)
        environment = production_environment(work)
        os.environ.update(environment)
        sys.path.insert(0, str(PROJECT_DIR))
        pages = pages_prepare()
        port = free_port()
        origin = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "lms.wsgi:application",
                f"--bind=127.0.0.1:{port}",
                "--workers=2",
                "--no-control-socket",
                f"--error-logfile={work / 'gunicorn.log'}",
            ],
            cwd=PROJECT_DIR,
            env=environment,
        )
        try:
            wait_for(f"{origin}/favicon.ico")
            scores = {name: lighthouse(origin + path, cookie, name) for name, (path, cookie) in pages.items()}
        finally:
            server.terminate()
            server.wait(timeout=30)
    missed = []
    print(f"{'page':14} " + " ".join(f"{key:>15}" for key in TARGETS))
    for name, score in scores.items():
        print(f"{name:14} " + " ".join(f"{score[key]:>15}" for key in TARGETS))
        missed += [f"{name} {key} {score[key]} < {target}" for key, target in TARGETS.items() if score[key] < target]
    (REPORTS_DIR / "scores.json").write_text(json.dumps(scores, indent=2) + "\n", encoding="utf-8")
    print(f"Reports: {REPORTS_DIR.relative_to(PROJECT_DIR)}/")
    if missed:
        print("Below target:\n  " + "\n  ".join(missed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
