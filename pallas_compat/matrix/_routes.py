"""The three routes of ``pallas-compat matrix``: each runs the user's command in its own copy of
the project, so that the user's tree is never written.

- ``native``: the code as it is.
- ``patch``: ``pallas_compat.patch()`` before the user's code runs (pytest's ``-p
  pallas_compat.pytest_plugin``, or a ``sitecustomize`` for other commands).
- ``migrate``: ``pallas-compat migrate --write --target X`` applied to the copy, then native.
"""

from __future__ import annotations

import enum
import os
import shlex
import shutil
import sys
from pathlib import Path

from pallas_compat._not_project_code import not_project_code
from pallas_compat._usage import UsageError
from pallas_compat.matrix import _processes as _processes

SITECUSTOMIZE = Path(__file__).with_name("_patch_site")
PLUGIN = "pallas_compat.pytest_plugin"
JUNIT_PLUGIN = "pallas_compat.matrix._junit"
#: The folder each pytest run of a cell writes its own JUnit XML into (``_junit``).
JUNIT_FOLDER_VARIABLE = "PALLAS_COMPAT_JUNIT_DIR"


class Route(str, enum.Enum):
    NATIVE = "native"
    PATCH = "patch"
    MIGRATE = "migrate"

    def __str__(self) -> str:
        return self.value


def routes_of(text: str) -> tuple[Route, ...]:

    chosen = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            route = Route(part)
        except ValueError:
            names = ", ".join(str(r) for r in Route)
            raise UsageError(f"--routes: unknown route {part!r} (it takes {names})") from None
        if route not in chosen:
            chosen.append(route)
    if not chosen:
        raise UsageError("--routes: names no route")
    return tuple(sorted(chosen, key=list(Route).index))


def columns(names: set[str]) -> list[str]:
    """Route names in the routes' order (least change first); unknown ones last."""
    order = [str(r) for r in Route]
    return sorted(names, key=lambda n: (order.index(n) if n in order else len(order), n))


def is_pytest(command: list[str]) -> bool:
    """``pytest ...``, ``py.test ...`` or ``python -m pytest ...``."""
    name = Path(command[0]).name
    if name in ("pytest", "py.test"):
        return True
    return name.startswith("python") and command[1:3] == ["-m", "pytest"]


def copy_project(project: Path, dest: Path) -> None:
    """``dest`` becomes a fresh copy of ``project`` (same path every run: the environment's
    editable install of it stays valid)."""
    if dest.exists():
        shutil.rmtree(dest)
    top = str(project)

    def left_out(folder: str, names: list[str]) -> set[str]:
        at_top = os.path.samefile(folder, top)
        return {name for name in names if not_project_code(name, top=at_top)}

    shutil.copytree(project, dest, symlinks=True, ignore=left_out)


def migrate_copy(dest: Path, release: str, log: Path) -> int:
    """``pallas-compat migrate --write --target release`` over the copy; its exit status."""
    command = [
        sys.executable,
        "-m",
        "pallas_compat",
        "migrate",
        "--write",
        "--target",
        release,
        ".",
    ]
    with log.open("ab") as out:
        out.write(f"$ {' '.join(command)}\n".encode())
        out.flush()
        return _processes.run(command, cwd=dest, out=out)


def route_variables(
    route: Route, command: list[str], env: dict[str, str], junit: Path
) -> dict[str, str]:
    """The variables the command runs with: JUnit XML from each pytest it starts, one file a
    run in the folder ``junit``, and for the patch route the plugin (pytest) or the
    ``sitecustomize`` (anything else)."""
    added = ["-p", JUNIT_PLUGIN, "-o", "junit_family=xunit1"]
    env[JUNIT_FOLDER_VARIABLE] = str(junit)
    if route is Route.PATCH and is_pytest(command):
        added[:0] = ["-p", PLUGIN]
    elif route is Route.PATCH:
        env["PYTHONPATH"] = str(SITECUSTOMIZE)
    env["PYTEST_ADDOPTS"] = shlex.join([*shlex.split(env.get("PYTEST_ADDOPTS", "")), *added])
    return env


def which(command: str, env: dict[str, str], cwd: Path) -> str | None:
    """Where ``command`` is found with ``env``'s PATH (or as a path in the copy)."""
    if os.sep in command or (os.altsep and os.altsep in command):
        return command if (cwd / command).exists() else None
    return shutil.which(command, path=env.get("PATH"))
