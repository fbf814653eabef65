"""``python -m probes report SNAPSHOT_DIR --out reports/`` and ``python -m probes diff A B``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from pallas_compat._atomic import unwritable, write_all
from probes import _changes, _report
from probes._corpus_report import corpus
from probes._load import (
    InputError,
    Snapshot,
    load_corpus_results,
    load_kernel_results,
    load_snapshot,
    load_snapshots,
)
from probes._matrix import MatrixError, load_matrix

TITLE = "Pallas API drift across JAX releases"


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise InputError(message)


def report(argv: Sequence[str]) -> int:
    parser = Parser(prog="python -m probes report", description="Write the API-diff report.")
    parser.add_argument("snapshots", type=Path, help="folder of jax-X.json snapshots")
    parser.add_argument(
        "--out", type=Path, default=Path("reports"), help="folder for api-diff.md/.html"
    )
    parser.add_argument(
        "--kernels", type=Path, help="folder of kernel results (default: ../kernels)"
    )
    parser.add_argument(
        "--matrix",
        type=Path,
        default=Path("jax-matrix.json"),
        help="the release matrix, to list releases without a snapshot (default: jax-matrix.json)",
    )
    args = parser.parse_args(argv)
    if not args.out.is_dir():
        raise InputError(f"--out {args.out}: no such folder")
    problem = unwritable(args.out / "api-diff.md")
    if problem is not None:
        raise InputError(f"--out {args.out}: {problem}")
    snapshots = load_snapshots(args.snapshots)
    kernel_folder = args.kernels or args.snapshots.parent / "kernels"
    if args.kernels is not None and not args.kernels.is_dir():
        raise InputError(f"{args.kernels}: no such folder")
    results = load_kernel_results(kernel_folder)
    releases = [s.release for s in snapshots]
    skipped = {r: "kernel results but no snapshot" for r in results if r not in releases}
    if args.matrix.exists():
        try:
            matrix = load_matrix(args.matrix)
        except MatrixError as exc:
            raise InputError(str(exc)) from None
        wanted = (
            matrix.every if os.environ.get("PALLAS_COMPAT_MATRIX") == "every" else matrix.default
        )
        for release in wanted:
            if release not in releases:
                skipped[release] = (
                    "in the matrix but no snapshot: its session was skipped (no interpreter for "
                    f"Requires-Python {matrix.requires_python.get(release)}?) or not run"
                )
    undeclared = {
        s.release: s.data["environment"].get("undeclared_dependencies", [])
        for s in snapshots
        if s.data["environment"].get("undeclared_dependencies")
    }
    sections = _report.build(snapshots, results, skipped, undeclared)
    corpus_results = load_corpus_results(args.snapshots.parent / "corpus")
    if corpus_results:  # before the skipped releases, after the chapter's kernels
        sections.insert(len(sections) - 1, corpus(corpus_results))
    markdown = _report.markdown(TITLE, releases, sections)
    page = _report.page(TITLE, releases, sections)
    try:  # both or neither: the two pages never describe different snapshots
        write_all({args.out / "api-diff.md": markdown, args.out / "api-diff.html": page})
    except OSError as exc:
        raise InputError(
            f"--out {args.out}: cannot write the report ({exc.strerror}); the previous one is kept"
        ) from None
    print(
        f"wrote {args.out / 'api-diff.md'} and api-diff.html ({len(releases)} releases)",
        file=sys.stderr,
    )
    return 0


def diff(argv: Sequence[str]) -> int:
    parser = Parser(prog="python -m probes diff", description="What breaks upgrading from A to B.")
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    args = parser.parse_args(argv)
    old, new = load_snapshot(args.old), load_snapshot(args.new)
    if old.release == new.release:
        raise InputError(f"{args.new}: the same release as {args.old} (JAX {old.release})")
    print(f"Upgrading JAX {old.release} -> {new.release}")
    breaks = upgrade_breaks(old, new)
    for line in breaks:
        print(line)
    print(f"{len(breaks)} changes that can break code written for JAX {old.release}")
    return 0


def upgrade_breaks(old: Snapshot, new: Snapshot) -> list[str]:
    lines = []
    for module, name in _changes.all_names([old, new]):
        before, _ = _changes.state(old, module, name)
        after, message = _changes.state(new, module, name)
        spelling = _changes.Location(module, name).spelling
        if before in _changes.PRESENT and after not in _changes.PRESENT:
            instead, _ = _changes.compat_note(module, name)
            lines.append(f"removed     {spelling}: {message or instead or 'no migration message'}")
        elif before == "present" and after == "deprecated":
            lines.append(f"deprecated  {spelling}: {message or ''}")
    for change in _changes.shape_changes([old, new]):
        spelling = _changes.Location(change.module, change.name).spelling
        lines.append(
            f"{change.what:<11} {spelling}: ({_changes.describe_params(change.old)}) -> "
            f"({_changes.describe_params(change.new)})"
        )
    for change in _changes.behaviour_changes([old, new]):
        lines.append(f"behaviour   {change.key}")
    return lines


COMMANDS = {"report": report, "diff": diff}


def main(command: str, argv: Sequence[str]) -> int:
    try:
        return COMMANDS[command](argv)
    except InputError as exc:
        print(f"python -m probes {command}: error: {exc}", file=sys.stderr)
        return 2
