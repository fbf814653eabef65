"""What each nox session's committed result depends on, so that an unchanged one is skipped.

A session's inputs are the JAX and jaxlib it installs, the Python minor it runs, the project's
declared requirements, the source of every first-party module its command imports (found by
reading the imports, plus whole packages that load modules by name), the files it fetches
(named by the immutable release or library version they come from) and, for the report, the
results it reads. Their digest is committed beside the results (``reports/inputs/``) with the
digest of the result it produced: while both still match, the session is up to date.

``python scripts/session_inputs.py`` lists every session of the default matrix and whether it
is up to date. Pure standard library: nox's own Python runs it.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: nox itself depends on tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
STAMPS = ROOT / "reports" / "inputs"
#: Top-level names that are this repository's own code (``scripts/`` holds the fetchers).
FIRST_PARTY = ("common", "pallas_compat", "probes", "kernels", "report")
#: Packages that import their modules by name at run time (the probe groups): reading their
#: imports misses some, so all of their files count. Elsewhere a string that names one of our
#: modules must be in the closure too (tests/test_session_inputs.py checks that).
READ_WHOLE = ("probes",)
#: The data files code reads beside itself (the facts tables); an editor's backup is not one.
DATA = (".json", ".txt", ".csv")
#: ``PALLAS_COMPAT_FORCE=1 nox`` or ``nox -- --force`` recomputes every session.
FORCE_ENV = "PALLAS_COMPAT_FORCE"
FORCE_ARG = "--force"


@dataclass(frozen=True)
class Session:
    """One nox session: what it runs and what else its result is made of."""

    name: str  # as nox names it: ``probe(jax='0.6.2')``
    kind: str  # the session function: probe, kernels, corpus, thirdparty, report
    entries: tuple[str, ...]  # the modules its commands run (``kernels.corpus``); a name
    # that starts with ``!`` is imported only by commands the session never runs (``!report``)
    results: tuple[Path, ...]  # what it writes under reports/
    jax: str | None = None
    python: str | None = None
    fetched: tuple[str, ...] = ()  # immutable names of what it downloads
    reads: tuple[Path, ...] = ()  # committed files it reads (the report: every result)
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def stamp(self) -> Path:
        label = self.kind if self.jax is None else f"{self.kind}-jax-{self.jax}"
        return STAMPS / f"{label}.json"


def module_file(name: str) -> Path | None:
    """The file of first-party module ``name`` (``kernels.corpus`` or ``fetch_ops``)."""
    parts = name.split(".")
    bases = [ROOT] if parts[0] in FIRST_PARTY else [ROOT / "scripts"]
    for base in bases:
        for candidate in (
            base.joinpath(*parts).with_suffix(".py"),
            base.joinpath(*parts, "__init__.py"),
        ):
            if candidate.is_file():
                return candidate
    return None


def imported_names(path: Path, module: str) -> set[str]:
    """Every module ``path`` imports (at any depth of its code, ``TYPE_CHECKING`` too)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                parent = ".".join([*base, *([node.module] if node.module else [])])
            else:
                parent = node.module or ""
            found.add(parent)
            found.update(f"{parent}.{alias.name}" for alias in node.names)  # submodules
    return found


def module_closure(entries: Iterable[str]) -> set[Path]:
    """The files of every first-party module reachable from ``entries`` by import, except
    the ``!``-marked ones and what only they import."""
    excluded = tuple(e[1:] for e in entries if e.startswith("!"))
    todo = [e for e in entries if not e.startswith("!")]
    seen: set[str] = set()
    files: set[Path] = set()
    while todo:
        name = todo.pop()
        if name in seen or any(name == e or name.startswith(f"{e}.") for e in excluded):
            continue
        seen.add(name)
        parts = name.split(".")
        if parts[0] not in FIRST_PARTY and module_file(parts[0]) is None:
            continue
        for i in range(1, len(parts)):  # importing a.b.c runs a and a.b first
            todo.append(".".join(parts[:i]))
        path = module_file(name)
        if path is None or path in files:
            continue
        files.add(path)
        todo.extend(imported_names(path, name))
    return files


@functools.cache
def source_files(entries: tuple[str, ...]) -> tuple[Path, ...]:
    """The closure's modules, the data files beside them, and whole READ_WHOLE packages."""
    modules = module_closure(entries)
    files = set(modules)
    for folder in {p.parent for p in modules} - {ROOT}:  # the root's README, noxfile: not
        files.update(p for p in folder.iterdir() if p.suffix in DATA and p.is_file())
    for package in READ_WHOLE:
        if any(ROOT / package in p.parents for p in modules):
            found = (ROOT / package).rglob("*")
            files.update(p for p in found if p.suffix in (".py", *DATA) and p.is_file())
    return tuple(sorted(files))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def digest_of_files(paths: Iterable[Path], *, sources: bool = False) -> str:
    """One digest over relative paths and contents (line endings as committed). Sources are
    read once per process; results are read every time (a session writes them meanwhile)."""
    h = hashlib.sha256()
    for path in sorted(paths):
        digest = source_digest(path) if sources else sha256(path.read_bytes())
        h.update(f"{path.relative_to(ROOT).as_posix()}\0{digest}\0".encode())
    return h.hexdigest()


@functools.cache
def source_digest(path: Path) -> str:
    return sha256(path.read_bytes())


def requirements() -> list[str]:
    """What the sessions install besides JAX: the project's declared dependencies, and the
    exact versions ``constraints.txt`` pins them (and JAX's own) to."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pinned = [
        line.strip()
        for line in (ROOT / "constraints.txt").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    return sorted(
        [
            *project.get("dependencies", []),
            *project.get("optional-dependencies", {}).get("test", []),
        ]
    ) + [f"pinned: {line}" for line in pinned]


def inputs_of(session: Session) -> dict[str, object]:
    """Everything the result depends on, readable: a diff of the stamp says what changed."""
    by_top: dict[str, list[Path]] = {}
    for path in source_files(session.entries):
        top = path.relative_to(ROOT).parts[0]
        by_top.setdefault(top, []).append(path)
    inputs: dict[str, object] = {
        "requirements": requirements(),
        "sources": {
            top: digest_of_files(paths, sources=True) for top, paths in sorted(by_top.items())
        },
    }
    if session.jax is not None:
        inputs |= {"jax": session.jax, "jaxlib": session.jax, "python": session.python}
    if session.fetched:
        inputs["fetched"] = list(session.fetched)
    if session.reads:
        inputs["reads"] = digest_of_files([p for p in session.reads if p.is_file()])
    return inputs | dict(sorted(session.extra.items()))


def result_digest(session: Session) -> str | None:
    present = [p for p in session.results if p.is_file()]
    return digest_of_files(present) if len(present) == len(session.results) else None


def stamp_text(session: Session) -> str:
    inputs = inputs_of(session)
    record = {
        "session": session.name,
        "inputs": inputs,
        "digest": sha256(json.dumps(inputs, sort_keys=True).encode()),
        "result": result_digest(session),
    }
    return json.dumps(record, indent=1, sort_keys=True) + "\n"


def why_stale(session: Session) -> str | None:
    """``None`` when the committed result is what these inputs make; else the reason."""
    stamp = session.stamp
    if not stamp.is_file():
        return "never run with its inputs recorded"
    try:
        recorded = json.loads(stamp.read_text())
    except (OSError, ValueError):
        return f"{stamp.name} unreadable"
    now = inputs_of(session)
    if recorded.get("inputs") != now:
        changed = sorted(
            k
            for k in {*now, *recorded.get("inputs", {})}
            if now.get(k) != recorded.get("inputs", {}).get(k)
        )
        return "changed: " + ", ".join(changed)
    if recorded.get("result") is None or recorded.get("result") != result_digest(session):
        return "its result is missing or was edited"
    return None


def added_fetches(session: Session) -> list[str] | None:
    """What a session fetches now that it did not when its result was made, where nothing else
    changed (a new release of JAX's ops for the corpus): only those need to run, and their
    records join the result. ``None`` when anything else changed or nothing was added."""
    if not session.stamp.is_file() or why_stale(session) != "changed: fetched":
        return None
    recorded = json.loads(session.stamp.read_text())
    before = set(recorded["inputs"].get("fetched", []))
    now = list(inputs_of(session).get("fetched", []))
    if not before <= set(now) or recorded.get("result") != result_digest(session):
        return None
    return [f for f in now if f not in before]


def merged_results(result: dict, added: dict, key: Callable[[dict], object]) -> dict:
    """``result`` with ``added``'s records joined as one run over both would have written
    them: blocks of records in ``key`` order, each block in the order its run wrote it."""
    records = sorted([*result["results"], *added["results"]], key=key)  # a stable sort
    return {**result, "results": records}


def forced(posargs: Sequence[str], environ: dict[str, str]) -> bool:
    return FORCE_ARG in posargs or environ.get(FORCE_ENV, "") not in ("", "0")


def main(argv: Sequence[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    import runpy
    from unittest import mock

    sys.modules.setdefault("nox", mock.MagicMock())  # the noxfile's decorators, inert
    noxfile = runpy.run_path(str(ROOT / "noxfile.py"))
    stale = 0
    for session in noxfile["all_sessions"]():
        reason = why_stale(session)
        stale += reason is not None
        added = added_fetches(session)
        if added:
            reason = f"{reason}; only {', '.join(added)} to run"
        print(f"{session.name}: {'up to date' if reason is None else reason}")
    print(f"{stale} of {len(noxfile['all_sessions']())} sessions to run", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
