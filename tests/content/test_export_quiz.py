"""export_quiz reproduces every seed file byte for byte."""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from quizzes.models import Question
from tests.conftest import PROJECT_DIR, SEEDS_DIR

SEEDS = [
    ("000_7cee97ce0cfcf411.txt", "gradient-checkpointing", "ur"),
    ("001_b650afde84ce20b7.txt", "gradient-checkpointing", "sn"),
    ("002_b53ae698afd757eb.txt", "activation-recomputation-tradeoffs", "id"),
    ("003_eecdd2a81399f9d5.txt", "activation-recomputation-tradeoffs", "en"),
]
SHARED_SEEDS_DIR = PROJECT_DIR.parent / "shared" / "seeds"
MANAGE = [sys.executable, str(PROJECT_DIR / "manage.py")]


def export(slug: str, language: str) -> str:
    buf = io.StringIO()
    call_command("export_quiz", slug, language=language, stdout=buf)
    return buf.getvalue()


@pytest.mark.usefixtures("content")
@pytest.mark.parametrize(("filename", "slug", "language"), SEEDS)
def test_export_equals_seed_file(filename, slug, language):
    assert export(slug, language).encode("utf-8") == (SEEDS_DIR / filename).read_bytes()


@pytest.mark.parametrize("filename", [filename for filename, _slug, _language in SEEDS])
def test_seed_files_are_the_shared_ones(filename):
    if not SHARED_SEEDS_DIR.is_dir():
        pytest.skip(f"{SHARED_SEEDS_DIR} does not exist")
    assert (SEEDS_DIR / filename).read_bytes() == (Path(SHARED_SEEDS_DIR) / filename).read_bytes()


@pytest.mark.usefixtures("content")
def test_urdu_export_of_the_indonesian_quiz_is_english():
    # No Urdu at all: a learner reading Urdu sees the English quiz.
    assert export("activation-recomputation-tradeoffs", "ur") == export("activation-recomputation-tradeoffs", "en")


@pytest.mark.usefixtures("content")
def test_export_follows_the_english_fix_of_an_untranslated_question():
    question = Question.objects.get(quiz__slug="gradient-checkpointing", position=3)
    question.text_en = "A corrected question?"
    question.save()
    assert "\n3. A corrected question?\n" in export("gradient-checkpointing", "ur")


@pytest.mark.django_db
def test_unknown_slug():
    with pytest.raises(CommandError, match="no-such-quiz"):
        export("no-such-quiz", "en")


@pytest.mark.usefixtures("content")
def test_unknown_language():
    with pytest.raises(CommandError):
        export("gradient-checkpointing", "fr")


@pytest.mark.usefixtures("content")
def test_text_with_a_line_break_is_refused():
    question = Question.objects.get(quiz__slug="gradient-checkpointing", position=4)
    question.text_en = "Two\nlines?"
    question.save()
    with pytest.raises(CommandError, match="line break"):
        export("gradient-checkpointing", "en")


@pytest.fixture(scope="module")
def command_line_env(tmp_path_factory) -> dict[str, str]:
    """A process environment with a plain C locale, on a database migrated and loaded once by
    the real commands (export_quiz only reads it)."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "LANG": "C",
        "LC_ALL": "C",
        "DJANGO_SETTINGS_MODULE": "lms.settings_test",
        "DATABASE_URL": f"sqlite:///{tmp_path_factory.mktemp('cli') / 'cli.sqlite3'}",
    }
    subprocess.run([*MANAGE, "migrate", "--noinput", "-v0"], env=env, check=True, cwd=PROJECT_DIR)
    fixtures = sorted(str(path) for path in (PROJECT_DIR / "fixtures").glob("*.json"))
    subprocess.run([*MANAGE, "loaddata", "-v0", *fixtures], env=env, check=True, cwd=PROJECT_DIR)
    return env


@pytest.mark.xdist_group("export-command-line")  # one xdist worker: the database is made once
@pytest.mark.parametrize(("filename", "slug", "language"), [SEEDS[0], SEEDS[1]])
def test_command_line_prints_the_exact_bytes(command_line_env, filename, slug, language):
    """The real command, in a process of its own with a plain C locale, as a user runs it."""
    result = subprocess.run(
        [*MANAGE, "export_quiz", slug, "--language", language],
        env=command_line_env,
        capture_output=True,
        cwd=PROJECT_DIR,
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout == (SEEDS_DIR / filename).read_bytes()
