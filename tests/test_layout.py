"""The layout: domain packages that import only downward, infrastructure that knows no domain,
production code that imports no benchmark or test code, and modules a reader can take in."""

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.database_independent

PROJECT_DIR = Path(__file__).resolve().parent.parent
PRODUCTION = ("lms", "common", "quizzes")
MAX_LINES = 450
# Modules allowed to be longer, and how long (none today).
LONGER: dict[str, int] = {}

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
    # Reports read what students did: the item statistics, the gradebook.
    "quizzes.reports": {"common", "quizzes.models", "quizzes.content", "quizzes.enrollment", "quizzes.attempts"},
    # The staff's side: the admin, its forms and the staff pages beside it.
    "quizzes.admin": {
        "common",
        "quizzes.models",
        "quizzes.content",
        "quizzes.enrollment",
        "quizzes.attempts",
        "quizzes.accounts",
        "quizzes.outbox",
        "quizzes.reports",
        "quizzes.integrations",
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
    "admin",
    "reports",
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


def _module_imports(path: Path, module: str, modules: set[str]):
    """The production modules ``module`` imports, at its top or inside a function (an import
    inside a function still closes a circle: it only hides it until the call), apps'
    ``ready()`` aside (Django calls it once every module is loaded)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    ready = set()
    if module.endswith(".apps"):
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == "ready":
                ready.update(id(inner) for inner in ast.walk(node))

    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if id(node) in ready:
            continue
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package
                for _level in range(node.level - 1):
                    anchor = anchor.rpartition(".")[0]
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                target = known(f"{base}.{alias.name}") if f"{base}.{alias.name}" in modules else known(base)
                if target and target != module:
                    yield target
        elif isinstance(node, ast.Import):
            for alias in node.names:
                target = known(alias.name)
                if target and target != module:
                    yield target


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, circles = {}, {}, [], set(), []

    def visit(module):
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.get(module, ())):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return circles


def _production_modules() -> dict[str, Path]:
    return {module.removesuffix(".__init__"): path for path, module in _modules()}


def test_no_import_circle_among_production_modules():
    modules = _production_modules()
    graph = {module: set(_module_imports(path, module, set(modules))) for module, path in modules.items()}
    assert _circles(graph) == []


def test_the_circle_test_sees_an_import_inside_a_function(tmp_path):
    first, second = tmp_path / "first.py", tmp_path / "second.py"
    first.write_text("from pkg.second import b\n")
    second.write_text("def b():\n    from pkg.first import a\n")
    modules = {"pkg.first", "pkg.second"}
    graph = {
        "pkg.first": set(_module_imports(first, "pkg.first", modules)),
        "pkg.second": set(_module_imports(second, "pkg.second", modules)),
    }
    assert _circles(graph) == [["pkg.first", "pkg.second"]]
