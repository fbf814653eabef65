"""The pallas-compat commands: doctor, migrate, rules, rule for drifted Pallas code; matrix for
tests.

doctor and migrate read source trees; matrix runs a project's own tests on every JAX release.

Exit status: 0 fine (doctor: nothing breaks on the releases checked; migrate: done, dry run or
written; rules, rule: printed; matrix: every run passed), 1 doctor found something that breaks or a
file it could not read, migrate left a file it could not parse or write, ``migrate --check``
would change a file, or a matrix run did not pass; 2 bad input (unknown path, release, rule or pyproject setting), with a one-line error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pallas_compat._usage import UsageError

if TYPE_CHECKING:
    from pallas_compat.lint._options import Choice, Inputs

__all__ = ["UsageError", "build_parser", "main"]


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def add_file_selection(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--extend-exclude",
        action="append",
        metavar="PATTERNS",
        help="also leave out files and folders whose name matches (comma-separated globs); "
        "environments, version control, caches and builds (.venv, .git, .nox, build, "
        "site-packages, ...) are always left out of a walked folder",
    )
    command.add_argument(
        "--no-respect-gitignore",
        action="store_true",
        help="read what .gitignore files ignore, too",
    )
    command.add_argument(
        "-j",
        "--jobs",
        type=jobs,
        metavar="N",
        help="read files in N processes (default: the CPUs this process may use)",
    )
    command.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the cache of what each file holds",
    )
    command.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="keep the cache here (default: $PALLAS_COMPAT_CACHE_DIR, else "
        ".pallas_compat_cache in the current folder)",
    )


def jobs(text: str) -> int:
    """``-j N``: a whole number of processes, at least 1."""
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of processes: {text!r}") from None
    if count < 1:
        raise argparse.ArgumentTypeError(f"at least one process: {text!r}")
    return count


def add_rule_selection(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--select",
        action="append",
        metavar="RULES",
        help="only these rules: codes, prefixes (PAL2) or names, comma-separated (default: ALL)",
    )
    command.add_argument("--ignore", action="append", metavar="RULES", help="leave these rules out")


def inputs_of(args: argparse.Namespace) -> Inputs:
    """``paths`` and the file-selection flags, as the lint commands take them."""
    from pallas_compat.lint._cache import default_folder  # lazy: doctor's and migrate's
    from pallas_compat.lint._options import Inputs  # lazy: doctor's and migrate's
    from pallas_compat.lint._tree import Exclusions  # lazy: reads pathspec

    patterns = [p.strip() for value in args.extend_exclude or [] for p in value.split(",")]
    exclusions = Exclusions(tuple(p for p in patterns if p), not args.no_respect_gitignore)
    cache = None if args.no_cache else Path(args.cache_dir) if args.cache_dir else default_folder()
    return Inputs(tuple(args.paths), exclusions, args.jobs, cache)


def choice_of(args: argparse.Namespace) -> Choice:
    """``--select``, ``--ignore``, ``--target`` and ``--support``, as the lint commands take
    them."""
    from pallas_compat.lint._options import Choice  # lazy: doctor's and migrate's

    return Choice(
        tuple(split(args.select)),
        tuple(split(args.ignore)),
        args.target,
        getattr(args, "support", None),
    )


def split(values: list[str] | None) -> list[str]:
    """``--select PAL1,PAL201 --select PAL3`` -> every code named."""
    return [part for value in values or [] for part in value.split(",") if part.strip()]


def run_doctor(args: argparse.Namespace) -> int:
    from pallas_compat.lint._doctor import doctor  # lazy: only the command asked for
    from pallas_compat.lint._options import DoctorOptions  # lazy: as above

    options = DoctorOptions(inputs_of(args), choice_of(args), args.format, args.report, args.docs)
    return doctor(options)


def run_migrate(args: argparse.Namespace) -> int:
    from pallas_compat.lint._migrate_command import migrate  # lazy: only the command asked for
    from pallas_compat.lint._options import MigrateOptions, Mode  # lazy: as above

    mode = Mode.WRITE if args.write else Mode.CHECK if args.check else Mode.DIFF
    return migrate(MigrateOptions(inputs_of(args), choice_of(args), mode))


def run_rules(args: argparse.Namespace) -> int:
    from pallas_compat.lint._rules_command import rules  # lazy: only the command asked for

    return rules(args.format)


def run_rule(args: argparse.Namespace) -> int:
    from pallas_compat.lint._rules_command import rule  # lazy: only the command asked for

    if bool(args.code) == args.all:
        raise UsageError("rule: give one rule's code or name (PAL301), or --all")
    return rule(args.code)


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number")
    return value


def run_matrix(args: argparse.Namespace) -> int:
    from pallas_compat.matrix._command import matrix  # lazy: only the command asked for

    return matrix(args)


def add_matrix(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    matrix = commands.add_parser(
        "matrix",
        help="run your tests on every JAX release, by every route",
        description="Run COMMAND (your tests) in a copy of the project on each JAX release, "
        "natively, with pallas_compat.patch() and after migrate; print release x route.",
    )
    matrix.add_argument(
        "--jax",
        default="default",
        help="releases: 0.6.2,0.9.2 | 0.6.2..0.12.0.1 | default (the oldest plus the newest "
        "of each minor series) | every (default: %(default)s)",
    )
    matrix.add_argument(
        "--routes",
        default="native,patch,migrate",
        help="comma-separated: native, patch, migrate (default: %(default)s)",
    )
    matrix.add_argument("--project", default=".", help="the project to test (default: .)")
    matrix.add_argument(
        "--extra",
        action="append",
        metavar="NAME",
        help="install the project with this extra (its test dependencies: --extra test)",
    )
    matrix.add_argument(
        "--with",
        dest="with_",
        action="append",
        metavar="REQUIREMENT",
        help="install this too, in every environment",
    )
    matrix.add_argument(
        "-j", "--jobs", type=positive, help="runs at a time (default: the cores, at most 4)"
    )
    matrix.add_argument("--format", choices=("table", "json", "html"), default="table")
    matrix.add_argument("--output", "-o", help="write the result here, whole (default: stdout)")
    matrix.add_argument(
        "--report",
        help="with --format html: an API-diff page (path or URL) doctor's findings link into",
    )
    matrix.add_argument(
        "--merge",
        nargs="+",
        metavar="JSON",
        help="no run: merge --format json results (CI shards) and print them",
    )
    matrix.add_argument(
        "--emit",
        choices=("github",),
        help="no run: print a GitHub Actions workflow that shards this matrix by release",
    )
    matrix.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ...: what to run")
    matrix.set_defaults(run=run_matrix)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="pallas-compat", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    doctor = commands.add_parser("doctor", help="list uses of drifted Pallas APIs")
    doctor.add_argument("paths", nargs="+", help="files or folders")
    against = doctor.add_mutually_exclusive_group()
    against.add_argument(
        "--target",
        help="JAX release to doctor against (default: pyproject's [tool.pallas-compat], else "
        "the installed JAX)",
    )
    against.add_argument(
        "--support",
        metavar="OLDEST:NEWEST",
        help="doctor every release of a support window (0.6.2:0.12.0.1)",
    )
    doctor.add_argument(
        "--format",
        choices=("text", "json", "html", "github", "sarif"),
        default="text",
        help="text (default), json, html (linked to the report), github (workflow "
        "annotations) or sarif (code scanning)",
    )
    doctor.add_argument(
        "--report",
        metavar="PAGE",
        help="with --format html: the API-diff page (a path that exists, or a URL) each use "
        "links into (default: the page of the pallas-compat checkout, where there is one)",
    )
    doctor.add_argument(
        "--docs",
        metavar="SITE",
        help="with --format html or sarif: the docs site (a built folder, or a URL) whose rule "
        "pages each use links to (default: the site built in the pallas-compat checkout, where "
        "there is one)",
    )
    add_rule_selection(doctor)
    add_file_selection(doctor)
    doctor.set_defaults(run=run_doctor)
    migrate = commands.add_parser("migrate", help="rewrite drifted Pallas code for a JAX release")
    migrate.add_argument("paths", nargs="+", help="files or folders")
    migrate.add_argument(
        "--target",
        help="JAX release to migrate to (default: pyproject's [tool.pallas-compat], else the "
        "installed JAX)",
    )
    mode = migrate.add_mutually_exclusive_group()
    mode.add_argument("--diff", action="store_true", help="print a unified diff (the default)")
    mode.add_argument("--write", action="store_true", help="rewrite the files in place")
    mode.add_argument(
        "--check", action="store_true", help="exit 1 if a file would change (for CI); no diff"
    )
    add_rule_selection(migrate)
    add_file_selection(migrate)
    migrate.set_defaults(run=run_migrate)
    rules = commands.add_parser("rules", help="list the drift rules and what migrate fixes")
    rules.add_argument("--format", choices=("text", "json"), default="text")
    rules.set_defaults(run=run_rules)
    rule = commands.add_parser(
        "rule", help="print a rule's page: what changed, where, its example and fix"
    )
    rule.add_argument("code", nargs="?", help="the rule's code (PAL301) or name")
    rule.add_argument("--all", action="store_true", help="every rule's page, one after another")
    rule.set_defaults(run=run_rule)
    add_matrix(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return int(args.run(args))
    except UsageError as exc:
        print(f"pallas-compat: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # each file is written whole or not at all
        print("pallas-compat: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # ``pallas-compat doctor src/ | head``: the reader has gone
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except ModuleNotFoundError as exc:
        print(
            f"pallas-compat: error: {exc} (install pallas-compat with its dependencies)",
            file=sys.stderr,
        )
        return 2
