"""The layout: domain packages that import only downward, infrastructure that knows no domain,
production code that imports no benchmark or test code, and modules a reader can take in."""

import ast
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
PRODUCTION = ("lms", "common", "quizzes")
MAX_LINES = 400
# models.py holds every model of the app (its constraints are the invariants), as DESIGN.md lays out.
LONGER = {"quizzes.models": 930}

# What each part of the code may import from the project: nothing upward, no cycles.
ALLOWED = {
    "common": set(),
    "quizzes.models": {"quizzes.models"},
    "quizzes.content": {"common", "quizzes.models"},
    "quizzes.enrollment": {"common", "quizzes.models"},
    "quizzes.outbox": {"common", "quizzes.models"},
    "quizzes.attempts": {"common", "quizzes.models", "quizzes.content", "quizzes.outbox"},
    "quizzes.accounts": {"common", "quizzes.models", "quizzes.enrollment"},
    "quizzes.templatetags": {"quizzes.content"},
    "quizzes.web": {
        "common",
        "quizzes.models",
        "quizzes.content",
        "quizzes.enrollment",
        "quizzes.attempts",
        "quizzes.templatetags",
    },
    "quizzes.api": {"common", "quizzes.models", "quizzes.content", "quizzes.attempts", "quizzes.accounts"},
    "quizzes.staff": {
        "common",
        "quizzes.models",
        "quizzes.content",
        "quizzes.enrollment",
        "quizzes.attempts",
        "quizzes.outbox",
    },
    # Other systems: LTI platforms, the learning record store.
    "quizzes.integrations": {
        "common",
        "quizzes.models",
        "quizzes.content",
        "quizzes.enrollment",
        "quizzes.attempts",
        "quizzes.accounts",
        "quizzes.outbox",
    },
}
LAYERS = {
    "content",
    "enrollment",
    "attempts",
    "accounts",
    "web",
    "api",
    "staff",
    "templatetags",
    "outbox",
    "integrations",
}
# Modules that import nothing of the project, so that any part may use them: the grading rule
# is what Attempt's own percent and passed delegate to.
LEAVES = {"quizzes.attempts.grading"}


def _modules():
    for top in PRODUCTION:
        for path in sorted((PROJECT_DIR / top).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path, ".".join(path.relative_to(PROJECT_DIR).with_suffix("").parts)


def _part(module: str) -> str:
    parts = module.split(".")
    if parts[0] != "quizzes":
        return parts[0]
    if len(parts) > 1 and parts[1] in LAYERS:
        return f"quizzes.{parts[1]}"
    if parts[1:2] in (["models"], ["managers"]):
        return "quizzes.models"
    return "quizzes"  # admin, apps, translation, management: the app's glue, may import any domain


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            named = [f"{node.module}.{alias.name}" for alias in node.names]
            yield named[0] if all(name in LEAVES for name in named) else node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def test_each_part_imports_only_the_parts_below_it():
    wrong = []
    for path, module in _modules():
        part = _part(module)
        if part not in ALLOWED:
            continue
        for imported in _imports(path):
            target = _part(imported)
            if imported in LEAVES or imported.split(".")[0] not in PRODUCTION:
                continue
            if module in LEAVES or (target != part and target not in ALLOWED[part]):
                wrong.append(f"{module} imports {imported}")
    assert wrong == []


def test_production_code_imports_no_benchmark_or_test_code():
    found = [
        f"{module} imports {imported}"
        for path, module in _modules()
        for imported in _imports(path)
        if imported.split(".")[0] in ("benchmarks", "tests")
    ]
    assert found == []


def test_no_module_is_longer_than_a_reader_takes_in():
    long = [
        f"{module}: {lines} lines"
        for path, module in _modules()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > LONGER.get(module, MAX_LINES)
    ]
    assert long == []


def test_one_spelling_of_enrollment():
    british = [
        f"{path.relative_to(PROJECT_DIR)}:{number}"
        for top in (*PRODUCTION, "tests")
        for path in sorted((PROJECT_DIR / top).rglob("*"))
        if path.suffix in (".py", ".html") and "migrations" not in path.parts and path.name != "test_layout.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "enrolment" in line.lower() or "enrol_" in line.lower() or "/enrol/" in line.lower()
    ]
    assert british == []
