"""``pallas-compat matrix``: the user's own command (their tests) on every JAX release asked
for, by every route, each run in its own copy of the project and its own environment.

The environments and copies live in the cache (``pallas-compat/matrix/<project>``) and are
reused; the result is written whole at the end, or not at all when the run is interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import re
import shutil
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from pallas_compat._cpus import usable_cpus
from pallas_compat._usage import UsageError
from pallas_compat.matrix import _processes as _processes
from pallas_compat.matrix._environments import (
    InstallError,
    cache_root,
    first_interpreter,
    prepare,
    uv,
)
from pallas_compat.matrix._output import render, write_output
from pallas_compat.matrix._releases import pythons_for, releases_of, requires_python
from pallas_compat.matrix._results import Run, Status, merged, read_junit
from pallas_compat.matrix._routes import (
    Route,
    copy_project,
    is_pytest,
    migrate_copy,
    route_variables,
    routes_of,
    which,
)
from pallas_compat.matrix._workflow import workflow


class Abort(Exception):
    """Something true of every run (the project does not install, the command does not
    exist): the whole matrix stops with one line and exit status 2."""


@dataclass(frozen=True)
class Plan:
    project: Path
    command: list[str]
    releases: tuple[str, ...]
    routes: tuple[Route, ...]
    extras: tuple[str, ...]
    also: tuple[str, ...]
    base: Path

    def cell(self, release: str, route: Route) -> Path:
        return self.base / release / str(route)


def project_base(project: Path) -> Path:
    """The cache folder of one project: its name and a digest of where it is."""
    digest = hashlib.sha256(str(project).encode()).hexdigest()[:10]
    return cache_root() / "matrix" / f"{project.name or 'root'}-{digest}"


#: A Python exception's own line: ``TypeError: ...``, ``jax.errors.X: ...``, ``KeyboardInterrupt``.
_EXCEPTION = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b(:.*)?$")


def last_line(log: Path, start: int) -> str:
    """Why a command failed, in one line: the last exception it printed (JAX adds a note
    about its filtered frames after it), else its last line of output."""
    text = log.read_bytes()[start:].decode(errors="replace")
    lines = [line.strip(" =") for line in text.splitlines() if line.strip(" =")]
    raised = [line for line in lines if _EXCEPTION.match(line)]
    return raised[-1] if raised else lines[-1] if lines else "no output"


def run_one(plan: Plan, release: str, route: Route) -> Run:
    """One release and route: copy, migrate (that route), install, run, read the results."""
    started = time.monotonic()
    run = Run(release, str(route), Status.ERROR)
    try:
        return attempt(plan, run)
    except OSError as exc:  # a copy or a log that cannot be written: this cell, not the run
        run.status, run.reason = Status.ERROR, f"{type(exc).__name__}: {exc}"
        return run
    finally:
        run.seconds = round(time.monotonic() - started, 1)


def attempt(plan: Plan, run: Run) -> Run:
    release, route = run.release, Route(run.route)
    cell = plan.cell(release, route)
    cell.mkdir(parents=True, exist_ok=True)
    log, junit, source = cell / "log.txt", cell / "junit", cell / "src"
    log.write_bytes(b"")
    shutil.rmtree(junit, ignore_errors=True)
    (cell / "junit.xml").unlink(missing_ok=True)  # where an older pallas-compat wrote it
    junit.mkdir()
    run.log = str(log)
    python = first_interpreter(pythons_for(release))
    if python is None:
        wanted = ", ".join(pythons_for(release))
        run.status = Status.NO_PYTHON
        run.reason = (
            f"JAX {release} needs Python {requires_python(release)}: none of {wanted} found "
            f"(install one with pyenv or `uv python install {pythons_for(release)[0]}`)"
        )
        return run
    run.python = python[0]
    copy_project(plan.project, source)
    if route is Route.MIGRATE and migrate_copy(source, release, log) not in (0, 1):
        run.reason = f"migrate failed: {last_line(log, 0)}"
        return run
    try:
        env = prepare(cell / "venv", source, release, python, plan.extras, plan.also, log)
    except InstallError as exc:
        if not exc.conflict:
            said = (
                str(exc)
                .replace(f"file://{source}", str(plan.project))
                .replace(str(source), str(plan.project))
            )
            raise Abort(f"{plan.project} does not install: {said}") from None
        run.status, run.reason = Status.NOT_INSTALLABLE, str(exc)
        return run
    variables = route_variables(route, plan.command, env.variables(dict(os.environ)), junit)
    if which(plan.command[0], variables, source) is None:
        raise Abort(f"command not found: {plan.command[0]} (not on PATH nor in the environment)")
    with log.open("ab") as out:
        out.write(f"$ {' '.join(plan.command)}\n".encode())
        out.flush()
        start = out.tell()
        run.exit_status = _processes.run(plan.command, cwd=source, env=variables, out=out)
    for path in sorted(junit.glob("*.xml"), key=lambda p: p.stat().st_mtime_ns):
        read_junit(path, run, source)  # each pytest run's own file, in the order they ended
    if run.exit_status == 0 and run.failed:  # a command that does not pass pytest's status on
        run.status = Status.FAILED
    elif run.exit_status == 0:
        run.status = Status.PASSED
    else:
        run.status = Status.FAILED if run.failed else Status.ERROR
        if not run.failures:
            run.reason = last_line(log, start)
    return run


def progress(done: int, total: int, run: Run) -> None:
    why = f": {run.first_error()}" if run.status is not Status.PASSED and run.first_error() else ""
    print(
        f"[{done}/{total}] JAX {run.release} {run.route}: {run.summary()}{why} ({run.seconds} s)",
        file=sys.stderr,
        flush=True,
    )


def run_all(plan: Plan, jobs: int) -> list[Run]:
    """Every release and route, ``jobs`` at a time. On Ctrl-C or an abort every child process
    is stopped; what this run created in the cache is removed on an abort."""
    cells = [(release, route) for release in plan.releases for route in plan.routes]
    existed = [folder for folder in (*reversed(plan.base.parents), plan.base) if folder.exists()]
    new_cells = [c for c in cells if not plan.cell(*c).exists()]
    _processes.stopping.clear()
    runs: list[Run] = []
    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="matrix")
    pending: set[Future[Run]] = {pool.submit(run_one, plan, *cell) for cell in cells}
    try:
        while pending:
            finished, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for future in finished:
                runs.append(future.result())
                progress(len(runs), len(cells), runs[-1])
    except BaseException as exc:
        for future in pending:
            future.cancel()
        _processes.stop_all()
        pool.shutdown(wait=True, cancel_futures=True)
        if isinstance(exc, (Abort, _processes.Stopped)):
            forget(plan, new_cells, existed)
            raise UsageError(str(exc)) from None
        raise
    pool.shutdown()
    return sorted(runs, key=lambda r: r.key)


def forget(plan: Plan, cells: list[tuple[str, Route]], existed: list[Path]) -> None:
    """Remove what an aborted run made: its new cells, and the folders it created for them
    (a release's, the project's, the cache's own) once empty."""
    for cell in cells:
        shutil.rmtree(plan.cell(*cell), ignore_errors=True)
        with contextlib.suppress(OSError):
            plan.cell(*cell).parent.rmdir()
    for folder in (plan.base, *plan.base.parents):
        if folder in existed:
            break
        with contextlib.suppress(OSError):
            folder.rmdir()


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


def default_jobs() -> int:
    """Two at a time on two CPUs, at most four: each run is mostly one Python around XLA."""
    return max(1, min(4, usable_cpus()))


def plan_of(args: argparse.Namespace) -> Plan:
    command = list(args.command)
    if command[:1] == ["--"]:
        command = command[1:]
    if not command:
        raise UsageError("give the command to run after --: pallas-compat matrix -- pytest tests")
    project = Path(args.project).resolve()
    if not project.is_dir():
        raise UsageError(f"--project {args.project}: no such folder")
    releases = releases_of(args.jax)
    routes = routes_of(args.routes)
    return Plan(
        project,
        command,
        releases,
        routes,
        tuple(args.extra or ()),
        tuple(args.with_ or ()) + (("pytest",) if is_pytest(command) else ()),
        project_base(project),
    )


def matrix(args: argparse.Namespace) -> int:

    if args.output is not None and not Path(args.output).resolve().parent.is_dir():
        raise UsageError(f"--output {args.output}: its folder does not exist")
    if args.merge:
        runs, command, project = merged([Path(p) for p in args.merge])
        write_output(args.output, render(args.format, runs, command, Path(project), args.report))
        return 0 if all(r.status is Status.PASSED for r in runs) else 1
    plan = plan_of(args)
    if args.emit:
        write_output(args.output, workflow(plan.releases, plan.routes, plan.command, plan.project))
        return 0
    if plan.base.is_relative_to(plan.project):
        raise UsageError(
            f"the cache {plan.base} is inside the project: set PALLAS_COMPAT_CACHE elsewhere"
        )
    uv()  # before any work: a missing uv is one line
    jobs = args.jobs or default_jobs()
    print(
        f"matrix: {plural(len(plan.releases), 'release')} x {plural(len(plan.routes), 'route')} of "
        f"`{' '.join(plan.command)}`, {jobs} at a time; environments in {plan.base}",
        file=sys.stderr,
    )
    runs = run_all(plan, jobs)
    out = render(args.format, runs, plan.command, plan.project, args.report)
    write_output(args.output, out)
    return 0 if all(r.status is Status.PASSED for r in runs) else 1
