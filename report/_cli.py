"""``python -m report [SNAPSHOT_DIR] [--out reports/]``, ``python -m report guide --from A --to B``,
``python -m report support --from A --to B`` and ``python -m report diff A.json B.json``: read
snapshots, results and the release scan, never JAX."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from packaging.version import Version

from common import MatrixError, Parser, load_matrix, run_cli, unwritable, write_all
from pallas_compat.facts import scanned_releases
from report import _guide, _render, _sections, _support
from report._load import (
    InputError,
    load_corpus_results,
    load_kernel_results,
    load_snapshot,
    load_snapshots,
    load_thirdparty_results,
)
from report._model import Section
from report._surface import Surface

TITLE = "Pallas API drift across JAX releases"


PROG = "python -m report"


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog=PROG,
        description="Write the API-diff report (api-diff.md and .html); `guide` and `diff` "
        "answer one upgrade in a terminal, `support` one support window.",
    )
    parser.add_argument(
        "snapshots",
        type=Path,
        nargs="?",
        default=Path("reports/snapshots"),
        help="folder of jax-X.json snapshots (default: %(default)s)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("reports"),
        help="folder for api-diff.md/.html (default: %(default)s)",
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
    return parser


def not_probed(matrix_file: Path, releases: list[str], results: dict[str, Any]) -> dict[str, str]:
    """The releases with results but no snapshot, and those of the matrix never probed."""
    skipped = {r: "kernel results but no snapshot" for r in results if r not in releases}
    if not matrix_file.exists():
        return skipped
    try:
        matrix = load_matrix(matrix_file)
    except MatrixError as exc:
        raise InputError(str(exc)) from None
    wanted = matrix.every if os.environ.get("PALLAS_COMPAT_MATRIX") == "every" else matrix.default
    for release in wanted:
        if release not in releases:
            skipped[release] = (
                "in the matrix but no snapshot: its session was skipped (no interpreter for "
                f"Requires-Python {matrix.requires_python.get(release)}?) or not run"
            )
    return skipped


def build(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
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
    skipped = not_probed(args.matrix, releases, results)
    undeclared = {
        s.release: s.data["environment"].get("undeclared_dependencies", [])
        for s in snapshots
        if s.data["environment"].get("undeclared_dependencies")
    }
    corpus_results = load_corpus_results(args.snapshots.parent / "corpus")
    thirdparty_results = load_thirdparty_results(args.snapshots.parent / "thirdparty")
    surface = Surface(tuple(snapshots))
    sections = _sections.build(
        surface, results, skipped, undeclared, corpus_results, thirdparty_results
    )
    answers = _sections.answers(releases, surface)
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
    parser = Parser(prog=f"{PROG} diff", description="What breaks upgrading from A to B.")
    parser.add_argument("old", type=Path, help="snapshot of the release you are on")
    parser.add_argument("new", type=Path, help="snapshot of the release you upgrade to")
    args = parser.parse_args(argv)
    old, new = load_snapshot(args.old), load_snapshot(args.new)
    if old.release == new.release:
        raise InputError(f"{args.new}: the same release as {args.old} (JAX {old.release})")
    refuse_downgrade(old.release, new.release)
    surface = Surface((old, new))
    sys.stdout.write(_guide.text(_guide.guide(old.release, new.release, surface)))
    return 0


def scanned(release: str, what: str) -> str:
    known = scanned_releases()
    if release not in known:
        raise InputError(
            f"{what} {release}: not a JAX release the scan knows (pallas_compat/"
            f"release_ranges.json has {known[0]} to {known[-1]}, {len(known)} releases)"
        )
    return release


def releases_between(
    parser: argparse.ArgumentParser, argv: Sequence[str], examples: tuple[str, str]
) -> tuple[argparse.Namespace, str, str]:
    """``--from A --to B`` (two scanned releases), ``--snapshots`` and ``--format``, parsed."""
    parser.add_argument(
        "--from", dest="old", required=True, metavar="A", help=f"e.g. {examples[0]}"
    )
    parser.add_argument("--to", dest="new", required=True, metavar="B", help=f"e.g. {examples[1]}")
    parser.add_argument(
        "--snapshots", type=Path, default=Path("reports/snapshots"), help="(default: %(default)s)"
    )
    parser.add_argument("--format", choices=("text", "markdown"), default="text")
    args = parser.parse_args(argv)
    return args, scanned(args.old, "--from"), scanned(args.new, "--to")


def refuse_downgrade(old: str, new: str) -> None:
    if Version(old) > Version(new):
        raise InputError(
            f"--from {old} is newer than --to {new}: that is a downgrade; the guide is for "
            f"upgrades (to see what {new} lacks, run --from {new} --to {old})"
        )


def guide(argv: Sequence[str]) -> int:
    parser = Parser(
        prog=f"{PROG} guide",
        description="The upgrade guide from one JAX release to another (any two the release "
        "scan knows): only what breaks.",
    )
    args, old, new = releases_between(parser, argv, ("0.4.35", "0.9.2"))
    if old == new:
        raise InputError(f"--from and --to are both {old}")
    refuse_downgrade(old, new)
    surface = Surface(tuple(load_snapshots(args.snapshots)))
    folder = args.snapshots.parent
    found = _guide.guide(
        old,
        new,
        surface,
        load_kernel_results(folder / "kernels"),
        load_corpus_results(folder / "corpus"),
        load_thirdparty_results(folder / "thirdparty"),
    )
    if args.format == "text":
        sys.stdout.write(_guide.text(found))
    else:
        title = f"Upgrading JAX {found.old} → {found.new}"
        intro = f"{len(found.changes)} changes." + (f" {found.note}" if found.note else "")
        sections = [Section(title, found.anchor, intro, _sections.guide_tables(found))]
        sys.stdout.write(_render.markdown(title, [found.old, found.new], sections, []))
    return 0


def support(argv: Sequence[str]) -> int:
    parser = Parser(
        prog=f"{PROG} support",
        description="A support window: per area, the spellings that work natively on every "
        "release from A to B, and the pallas_compat spelling where none does.",
    )
    args, old, new = releases_between(parser, argv, ("0.5.3", "0.12.0.1"))
    if Version(old) > Version(new):
        raise InputError(f"--from {old} is newer than --to {new}: give the window oldest first")
    surface = Surface(tuple(load_snapshots(args.snapshots)))
    window = _support.window(old, new, surface)
    if args.format == "text":
        sys.stdout.write(_support.text(window))
    else:
        section = _sections.support_section(window)
        sys.stdout.write(_render.markdown(section.title, [old, new], [section], []))
    return 0


SUBCOMMANDS = {"guide": guide, "diff": diff, "support": support}


def main(argv: Sequence[str] | None = None) -> int:
    """Bad input (a usage error or a file the report cannot use): one line, exit status 2."""
    return run_cli(PROG, dispatch, argv)


def dispatch(argv: Sequence[str]) -> int:
    if argv and argv[0] in SUBCOMMANDS:
        return SUBCOMMANDS[argv[0]](argv[1:])
    return build(argv)
