"""``python -m probes report SNAPSHOT_DIR --out reports/`` and ``python -m probes diff A B``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from pallas_compat._atomic import unwritable, write_all
from probes import _guide, _render, _report
from probes._load import (
    InputError,
    load_corpus_results,
    load_kernel_results,
    load_snapshot,
    load_snapshots,
)
from probes._matrix import MatrixError, load_matrix
from probes._model import Section

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
    corpus_results = load_corpus_results(args.snapshots.parent / "corpus")
    sections = _report.build(snapshots, results, skipped, undeclared, corpus_results)
    answers = _report.answers(releases)
    markdown = _render.markdown(TITLE, releases, sections, answers)
    page = _render.page(TITLE, releases, sections, answers)
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
    parser.add_argument("old", type=Path, help="snapshot of the release you are on")
    parser.add_argument("new", type=Path, help="snapshot of the release you upgrade to")
    args = parser.parse_args(argv)
    old, new = load_snapshot(args.old), load_snapshot(args.new)
    if old.release == new.release:
        raise InputError(f"{args.new}: the same release as {args.old} (JAX {old.release})")
    sys.stdout.write(_guide.text(_guide.guide(old, new)))
    return 0


def guide(argv: Sequence[str]) -> int:
    parser = Parser(
        prog="python -m probes guide",
        description="The upgrade guide from one JAX release to another: only what breaks.",
    )
    parser.add_argument("--from", dest="old", required=True, metavar="A", help="e.g. 0.6.2")
    parser.add_argument("--to", dest="new", required=True, metavar="B", help="e.g. 0.9.2")
    parser.add_argument(
        "--snapshots", type=Path, default=Path("reports/snapshots"), help="(default: %(default)s)"
    )
    parser.add_argument("--format", choices=("text", "markdown"), default="text")
    args = parser.parse_args(argv)
    snapshots = {s.release: s for s in load_snapshots(args.snapshots)}
    for release in (args.old, args.new):
        if release not in snapshots:
            known = ", ".join(snapshots)
            raise InputError(f"no snapshot of JAX {release} in {args.snapshots} (have: {known})")
    if args.old == args.new:
        raise InputError(f"--from and --to are both {args.old}")
    folder = args.snapshots.parent
    found = _guide.guide(
        snapshots[args.old],
        snapshots[args.new],
        load_kernel_results(folder / "kernels"),
        load_corpus_results(folder / "corpus"),
    )
    if args.format == "text":
        sys.stdout.write(_guide.text(found))
    else:
        title = f"Upgrading JAX {found.old} → {found.new}"
        sections = [
            Section(
                title, found.anchor, f"{len(found.changes)} changes.", _report.guide_tables(found)
            )
        ]
        sys.stdout.write(_render.markdown(title, [found.old, found.new], sections, []))
    return 0


COMMANDS = {"report": report, "diff": diff, "guide": guide}


def main(command: str, argv: Sequence[str]) -> int:
    try:
        return COMMANDS[command](argv)
    except InputError as exc:
        print(f"python -m probes {command}: error: {exc}", file=sys.stderr)
        return 2
