"""``make bench-import``: how long a bank of the largest size one import takes (1,000
questions, ``quizzes.content.formats.files.MAX_QUESTIONS``) takes to import, as GIFT and as
Moodle XML with every language, on PostgreSQL.

Standalone (not a test): ``.venv/bin/python benchmarks/import_bank.py``. DATABASE_URL must
point to PostgreSQL (default postgres://postgres@127.0.0.1:5432/lms_bench_import; the database
is dropped and made again, migrated and given the fixtures). Each file is imported with
``manage.py import_quiz`` as a new quiz, ``--runs`` times (each a quiz of its own), and the
median and slowest wall times of the whole command are printed and written to
benchmarks/results/import-bank.json.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

PROJECT_DIR = Path(__file__).resolve().parent.parent
RESULTS = PROJECT_DIR / "benchmarks" / "results" / "import-bank.json"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/lms_bench_import"
QUESTIONS = 1000


def gift(title: str) -> str:
    parts = [f"$CATEGORY: $course$/top/{title}", ""]
    for number in range(1, QUESTIONS + 1):
        parts += [
            f"::Q{number}:: Which number is {number}, in \\\\(x^2\\\\) terms?{{={number} ~{number + 1} ~{number + 2} "
            f"~{number + 3}####Because it is {number}.}}",
            "",
        ]
    return "\n".join(parts)


def moodle_xml(title: str) -> str:
    def multilang(english: str, urdu: str) -> str:
        return (
            f'<![CDATA[<span lang="en" class="multilang">{english}</span>'
            f'<span lang="ur" class="multilang">{urdu}</span>]]>'
        )

    questions = [f'<question type="category"><category><text>$course$/top/{title}</text></category></question>']
    for number in range(1, QUESTIONS + 1):
        answers = "".join(
            f'<answer fraction="{100 if offset == 0 else 0}" format="html">'
            f"<text>{multilang(str(number + offset), str(number + offset) + ' ur')}</text></answer>"
            for offset in range(4)
        )
        questions.append(
            f'<question type="multichoice"><name><text>Q{number}</text></name>'
            f'<questiontext format="html"><text>{multilang(f"Which is {number}?", f"{number} کون سا ہے")}</text>'
            f'</questiontext><generalfeedback format="html"><text>{multilang("Because.", "کیونکہ")}</text>'
            f"</generalfeedback><single>true</single><shuffleanswers>1</shuffleanswers>{answers}</question>"
        )
    return '<?xml version="1.0" encoding="UTF-8"?>\n<quiz>' + "".join(questions) + "</quiz>\n"


def manage(*args: str, env: dict) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=PROJECT_DIR, env=env, check=True, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    url = os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    if not url.startswith("postgres"):
        sys.exit("DATABASE_URL must point to PostgreSQL.")
    name = urlsplit(url).path.lstrip("/")
    admin_url = url.rsplit("/", 1)[0] + "/postgres"
    for statement in (f'DROP DATABASE IF EXISTS "{name}"', f'CREATE DATABASE "{name}"'):
        subprocess.run(["psql", admin_url, "-q", "-c", statement], check=True, capture_output=True)
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_DEBUG": "1"}
    manage("migrate", "-v0", env=env)
    manage("loaddata", *sorted(str(path) for path in (PROJECT_DIR / "fixtures").glob("*.json")), env=env)
    figures = {}
    with tempfile.TemporaryDirectory() as folder:
        for file_format, make in (("gift", gift), ("moodle-xml", moodle_xml)):
            seconds = []
            for run in range(runs):
                path = Path(folder) / f"bank-{file_format}-{run}.txt"
                path.write_text(make(f"Bank {file_format} {run}"), encoding="utf-8")
                started = time.perf_counter()
                manage("import_quiz", str(path), "--format", file_format, env=env)
                seconds.append(time.perf_counter() - started)
            figures[file_format] = {"median_s": round(statistics.median(seconds), 2), "max_s": round(max(seconds), 2)}
            print(
                f"{file_format:11} {QUESTIONS} questions: median {figures[file_format]['median_s']} s, "
                f"slowest {figures[file_format]['max_s']} s ({runs} runs, the whole command)"
            )
    RESULTS.write_text(
        json.dumps(
            {"date": datetime.now(UTC).date().isoformat(), "questions": QUESTIONS, "runs": runs, "figures": figures},
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
