"""The package's rooms and floors: each room imports only the rooms below it, no module is in
an import circle, and a module imports another inside a function only to be fast (and says so).

The floors, bottom up (docs/contributing.md, Layout, says the same):

- ``facts``, and the one-job helpers (``_cpus``, ``_file_writes``, ``_not_project_code``,
  ``_usage``, ``_version``): nothing of the package;
- ``shim`` and ``rules``: the facts; never each other;
- ``lint`` (doctor, migrate): the rules and the facts;
- ``matrix``: lint, rules and facts;
- the CLI (``_cli``, ``__main__``) and the public facade (``__init__``, ``pytest_plugin``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pallas_compat"
HELPERS = {"_cpus", "_file_writes", "_not_project_code", "_usage", "_version"}
#: room -> the rooms its modules may import (its own room always).
MAY_IMPORT: dict[str, set[str]] = {
    **{helper: set() for helper in HELPERS},
    "facts": set(),
    "shim": {"facts"},
    "rules": {"facts"},
    "lint": {"facts", "rules"},
    "matrix": {"facts", "rules", "lint"},
    "_cli": {"facts", "rules", "lint", "matrix"},
    "__main__": {"_cli"},
    "__init__": {"facts", "shim"},
    "pytest_plugin": {"__init__"},
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py")) if "_patch_site" not in p.parts}


def room(module: str) -> str:
    parts = module.split(".")
    return "__init__" if len(parts) == 1 else parts[1]


def imports(module: str, *, typing: bool = True) -> list[tuple[str, int, bool]]:
    """(imported module of the package, line, inside a function) for each import; without
    those under ``if TYPE_CHECKING:`` (never run) when ``typing`` is False."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[str, int, bool]] = []

    def walk(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if (
                not typing
                and isinstance(child, ast.If)
                and ast.unparse(child.test) == "TYPE_CHECKING"
            ):
                continue
            nested = inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - child.level + 1])
                    base = f"{base}.{child.module}" if child.module else base
                for alias in child.names:
                    full = f"{base}.{alias.name}"
                    name = full if full in MODULES else base
                    if name in MODULES:
                        found.append((name, child.lineno, nested))
            elif isinstance(child, ast.Import):
                found.extend(
                    (a.name, child.lineno, nested) for a in child.names if a.name in MODULES
                )
            walk(child, nested)

    walk(ast.parse(path.read_text()), False)
    return found


def test_every_module_is_in_a_room_with_floors() -> None:
    assert {room(m) for m in MODULES} <= set(MAY_IMPORT)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_imports_only_its_own_room_and_the_rooms_below(module: str) -> None:
    allowed = {room(module)} | MAY_IMPORT[room(module)] | HELPERS
    wrong = [
        f"line {line}: {name}" for name, line, _ in imports(module) if room(name) not in allowed
    ]
    assert not wrong, f"{module} ({room(module)}) reaches up or sideways: {wrong}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_an_import_inside_a_function_says_it_is_lazy(module: str) -> None:
    lines = MODULES[module].read_text().splitlines()
    unmarked = [
        f"line {line}: {name}"
        for name, line, inside in imports(module)
        if inside and "# lazy:" not in lines[line - 1]
    ]
    assert not unmarked, f"{module} imports inside a function without '# lazy: why'"


def test_no_import_circle() -> None:
    graph = {m: sorted({n for n, _, _ in imports(m, typing=False)} - {m}) for m in MODULES}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        stack.append(module)
        for other in graph[module]:
            if state.get(other) == 1:
                return [*stack[stack.index(other) :], other]
            if other not in state and (circle := visit(other)):
                return circle
        stack.pop()
        state[module] = 2
        return None

    for module in graph:
        if module not in state and (circle := visit(module)):
            pytest.fail("import circle: " + " -> ".join(circle))


def test_the_floors_test_sees_what_it_checks() -> None:
    """The walk finds an upward import where one is written (so a pass means something)."""
    assert ("pallas_compat.rules._use", 0) in {
        (n, 0) for n, _, _ in imports("pallas_compat.lint._report")
    }
    assert any(inside for _, _, inside in imports("pallas_compat._cli"))
    assert room("pallas_compat.lint._doctor") == "lint" and room("pallas_compat") == "__init__"


def one_edit_apart(a: str, b: str) -> bool:
    if len(a) > len(b):
        a, b = b, a
    if len(b) - len(a) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    return any(b[:i] + b[i + 1 :] == a for i in range(len(b)))


def test_module_names_neither_repeat_across_rooms_nor_differ_by_one_letter() -> None:
    """``_atomic`` beside ``_atomics``, ``_facts`` beside ``facts``: a reader takes one for
    the other. Each module's name (less its underscore) is its own."""
    stems: dict[str, list[str]] = {}
    for module in MODULES:
        if MODULES[module].name != "__init__.py":
            stems.setdefault(module.rpartition(".")[2].lstrip("_"), []).append(module)
    assert {s: m for s, m in stems.items() if len(m) > 1} == {}
    close = [(a, b) for a in stems for b in stems if a < b and one_edit_apart(a, b)]
    assert close == []
