"""What one run of the user's command on one release and route gave: its status, its tests
(read from pytest's JUnit XML) and the first error of each failure; as JSON, and merged back
from JSON (the shards of a CI matrix)."""

from __future__ import annotations

import enum
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from packaging.version import Version

from pallas_compat._usage import UsageError

#: The format of ``--format json``; ``--merge`` refuses another.
FORMAT = "pallas-compat matrix 1"


class Status(str, enum.Enum):
    """A run's outcome, in the words the table prints."""

    PASSED = "passed"
    FAILED = "failed"
    #: The command exited non-zero without a failing test (a crash, a collection error).
    ERROR = "error"
    #: The project cannot be installed with this JAX (its own requirements exclude it).
    NOT_INSTALLABLE = "not installable"
    #: No interpreter that this JAX allows was found.
    NO_PYTHON = "no python"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Failure:
    test: str
    #: The first line of the error, as pytest reports it.
    error: str
    #: ``path:line`` of the user's files the traceback passes through, innermost last.
    where: tuple[str, ...] = ()


@dataclass
class Run:
    release: str
    route: str
    status: Status
    python: str = ""
    exit_status: int | None = None
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    failures: list[Failure] = field(default_factory=list)
    #: Every test's outcome (``passed``, ``failed``, ``skipped``) by its id.
    outcomes: dict[str, str] = field(default_factory=dict)
    #: For a run without a failing test: the first line that says why (install error, crash).
    reason: str = ""
    seconds: float = 0.0
    log: str = ""

    @property
    def key(self) -> tuple[Version, str]:
        return Version(self.release), self.route

    def summary(self) -> str:
        """``5 passed, 1 failed`` or the status with its reason."""
        if self.status in (Status.NOT_INSTALLABLE, Status.NO_PYTHON):
            return str(self.status)
        counts = [f"{self.passed} passed"] if self.passed or not self.failed else []
        if self.failed:
            counts.append(f"{self.failed} failed")
        if self.skipped:
            counts.append(f"{self.skipped} skipped")
        if self.status is Status.ERROR and not self.failed:
            return f"error (exit {self.exit_status})"
        if not (self.passed or self.failed or self.skipped):  # not pytest: the exit status
            return f"{self.status} (exit {self.exit_status})"
        return ", ".join(counts)

    def first_error(self) -> str:
        if self.failures:
            first = self.failures[0]
            return f"{first.test}: {first.error}"
        return self.reason


def as_json(runs: list[Run], command: list[str], project: str) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "project": project,
        "command": command,
        "runs": [
            {**asdict(run), "status": str(run.status)} for run in sorted(runs, key=lambda r: r.key)
        ],
    }


def run_from_json(record: dict[str, Any]) -> Run:
    failures = [
        Failure(f["test"], f["error"], tuple(f.get("where", ()))) for f in record["failures"]
    ]
    return Run(**{**record, "status": Status(record["status"]), "failures": failures})


def merged(paths: list[Path]) -> tuple[list[Run], list[str], str]:
    """The runs of several ``--format json`` files (a later file wins for the same release and
    route), with the command and project they name."""
    runs: dict[tuple[str, str], Run] = {}
    command: list[str] = []
    project = ""
    for path in paths:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise UsageError(f"--merge {path}: cannot read ({exc.strerror})") from None
        except UnicodeDecodeError as exc:
            raise UsageError(f"--merge {path}: not UTF-8 (byte {exc.start})") from None
        except json.JSONDecodeError as exc:
            raise UsageError(f"--merge {path}: not JSON (line {exc.lineno}: {exc.msg})") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise UsageError(f"--merge {path}: not a `pallas-compat matrix --format json` file")
        try:
            for record in data["runs"]:
                run = run_from_json(record)
                runs[(run.release, run.route)] = run
        except (KeyError, TypeError, ValueError) as exc:
            raise UsageError(f"--merge {path}: a run it holds is malformed ({exc})") from None
        command, project = data.get("command", command), data.get("project", project)
    return sorted(runs.values(), key=lambda r: r.key), command, project


# -- pytest's JUnit XML ---------------------------------------------------------------------

#: ``tests/test_a.py:12: AttributeError`` (pytest's long traceback) and
#: ``File "tests/test_a.py", line 12`` (Python's own).
_PYTEST_FRAME = re.compile(r"^([^\s:][^:\n]*\.py):(\d+): ", re.M)
_PYTHON_FRAME = re.compile(r'^\s*File "([^"]+\.py)", line (\d+)', re.M)
#: Messages that name the phase, not the error: the error is then the first ``E`` line.
_GENERIC = ("collection failure", "failed on setup", "failed on teardown", "")


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def error_line(message: str, text: str) -> str:
    """The error as one line: pytest's message, else the first ``E   `` line of the report."""
    line = first_line(message)
    if not any(line.startswith(generic) for generic in _GENERIC if generic) and line:
        return line
    marked = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ")]
    return marked[0] if marked else first_line(text) or line or "failed"


def frames(text: str, root: Path) -> tuple[str, ...]:
    """The traceback's ``path:line`` inside ``root``, relative to it, in order, once each."""
    found: list[str] = []
    for match in [*_PYTEST_FRAME.finditer(text), *_PYTHON_FRAME.finditer(text)]:
        path = Path(match.group(1))
        try:  # the project's files only: not the environment's, even at ../venv/lib/...
            path = (root / path).resolve().relative_to(root.resolve())
        except ValueError:
            continue
        if not (root / path).is_file():
            continue
        where = f"{path.as_posix()}:{match.group(2)}"
        if where not in found:
            found.append(where)
    return tuple(found)


def test_id(case: ET.Element) -> str:
    """``tests/test_a.py::TestX::test_y[p]`` where the XML names the file (xunit1)."""
    name = case.get("name", "?")
    classname = case.get("classname", "")
    file = case.get("file")
    if file:
        module = Path(file).with_suffix("").as_posix().replace("/", ".")
        if name == module:  # a collection error: the file itself
            return file
        inner = classname[len(module) :].lstrip(".") if classname.startswith(module) else ""
        return "::".join(p for p in (file, *inner.split("."), name) if p)
    return f"{classname}::{name}" if classname else name


def read_junit(path: Path, run: Run, root: Path) -> bool:
    """Count the tests of pytest's JUnit XML into ``run``; False where there is none."""
    try:
        tree = ET.parse(path)
    except (OSError, ET.ParseError):
        return False
    for case in tree.iter("testcase"):
        test = test_id(case)
        problem = next((c for c in case if c.tag in ("failure", "error")), None)
        if problem is not None:
            run.failed += 1
            text = problem.text or ""
            message = error_line(problem.get("message", ""), text)
            run.failures.append(Failure(test, message, frames(text, root)))
            run.outcomes[test] = "failed"
        elif any(c.tag == "skipped" for c in case):
            run.skipped += 1
            run.outcomes[test] = "skipped"
        else:
            run.passed += 1
            run.outcomes[test] = "passed"
    return True
