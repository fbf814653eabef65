"""``pallas-compat doctor`` and ``pallas-compat migrate``: drifted Pallas code in source trees.

Exit status: 0 fine (doctor: nothing breaks on the target; migrate: done, dry run or written),
1 doctor found something that breaks on the target, or migrate left a file it could not parse,
2 bad input (unknown path or release), with a one-line error.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import io
import json
import os
import sys
import tokenize
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pallas_compat._atomic import write_atomic
from pallas_compat._errors import installed_jax
from pallas_compat._facts import scanned_releases
from pallas_compat._tree import Skipped, Source, sources

if TYPE_CHECKING:
    import libcst as cst


class UsageError(Exception):
    """Bad input: reported as one line with exit status 2."""


def python_sources(paths: Sequence[str]) -> tuple[list[Source], list[Skipped]]:
    """The sources under ``paths``; what is passed over is named on stderr as it is found."""
    for text in paths:
        if os.path.lexists(text) and not os.path.exists(text):
            raise UsageError(f"{text}: a broken link or a symlink loop")
        if not os.path.exists(text):
            raise UsageError(f"{text}: no such file or directory")
    found, skipped = sources(paths)
    for entry in skipped:
        print(entry, file=sys.stderr)
    return found, skipped


def target_release(text: str | None) -> str:
    known = scanned_releases()
    release = text or installed_jax()
    if release == "unknown":
        raise UsageError("JAX is not installed here: pass --target X.Y.Z")
    if release not in known:
        raise UsageError(
            f"unknown JAX release {release!r}: --target takes one of {known[0]} ... {known[-1]} "
            "(the releases scanned into pallas_compat/release_ranges.json)"
        )
    return release


def undecodable(data: bytes) -> str | None:
    """Why ``data`` is not text in the encoding its coding line (or PEP 3120) names."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return None


def parse(source: Source) -> tuple[bytes, cst.Module | None] | None:
    """(bytes, module) for a file to check; module None when it cannot hold a drifted use.
    None (after one line on stderr) when it cannot be read, decoded or parsed."""
    import libcst as cst

    from pallas_compat._source import may_use_pallas

    try:
        data = source.real.read_bytes()
    except OSError as exc:
        print(f"{source.path}: cannot read, left untouched ({exc.strerror})", file=sys.stderr)
        return None
    problem = undecodable(data)
    if problem is not None:
        print(f"{source.path}: cannot decode, left untouched ({problem})", file=sys.stderr)
        return None
    if not may_use_pallas(data):
        return data, None
    try:
        return data, cst.parse_module(data)
    except (cst.ParserSyntaxError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"{source.path}: cannot parse, left untouched ({first})", file=sys.stderr)
        return None


def internal_error(source: Source, command: str, exc: Exception) -> None:
    """One line for a file ``command`` could not handle because of a bug in pallas-compat."""
    print(
        f"{source.path}: {command} failed on this file, left untouched (internal error "
        f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}; please report it)",
        file=sys.stderr,
    )


def doctor(args: argparse.Namespace) -> int:
    from pallas_compat._source import UseState, find_uses, gc_paused

    target = target_release(args.target)
    uses, unreadable = [], []
    files, skipped = python_sources(args.paths)
    for source in files:
        with gc_paused():
            parsed = parse(source)
            if parsed is None:
                unreadable.append(str(source.path))
            elif parsed[1] is not None:
                try:
                    uses.extend(find_uses(str(source.path), parsed[1]))
                except Exception as exc:  # a bug of ours must not hide the other files
                    internal_error(source, "doctor", exc)
                    unreadable.append(str(source.path))
    breaking = [u for u in uses if u.breaks_on(target)]
    if args.format in ("json", "html"):
        report = {
            "target": target,
            "uses": [u.as_record(target) for u in uses],
            "left_untouched": unreadable,
            "skipped": [{"path": str(s.path), "reason": s.reason} for s in skipped],
            "summary": {
                "files": len(files),
                "uses": len(uses),
                "breaking": len(breaking),
                "warning": sum(u.state_on(target) is UseState.WARNS for u in uses),
            },
        }
        if args.format == "json":
            print(json.dumps(report, indent=1))
        else:
            from pallas_compat._doctor_html import page

            sys.stdout.write(page(report, args.report))
    else:
        for use in uses:
            record = use.as_record(target)
            where = f"works in JAX {record['works_in']}; " if use.certain else ""
            print(
                f"{use.path}:{use.line}:{use.column}: {use.api} ({where}{use.verdict(target)}); "
                f"write: {use.hint}"
            )
        unknown = sum(not u.certain for u in uses)
        warning = sum(u.state_on(target) is UseState.WARNS for u in uses)
        print(
            f"{len(uses)} uses of drifted Pallas APIs in {len(files)} files; "
            f"{len(breaking)} break on JAX {target}"
            + (f"; {warning} work there with a deprecation warning" if warning else "")
            + (f"; {unknown} cannot be told from the source" if unknown else "")
            + (f"; {len(unreadable)} files could not be read" if unreadable else "")
        )
    return 1 if breaking or unreadable else 0


def migrate(args: argparse.Namespace) -> int:
    from pallas_compat._migrate import migrate_module
    from pallas_compat._source import gc_paused

    target = target_release(args.target)
    status, changed, unwritable = 0, 0, 0
    files, _ = python_sources(args.paths)
    for source in files:
        with gc_paused():
            parsed = parse(source)
            if parsed is None:
                status = 1
                continue
            before, module = parsed
            try:
                after = before if module is None else migrate_module(module, target).bytes
            except Exception as exc:  # a bug of ours must not hide the other files
                internal_error(source, "migrate", exc)
                status = 1
                continue
        if after == before:
            continue
        try:
            ast.parse(after)
        except SyntaxError as exc:
            print(
                f"{source.path}: the rewrite does not parse ({exc.msg}); left untouched",
                file=sys.stderr,
            )
            status = 1
            continue
        if args.write:
            try:
                write_atomic(source.real, after)  # a link stays a link: its target is rewritten
            except OSError as exc:  # an unwritable folder must not stop the rest of the tree
                print(f"{source.path}: cannot write, left untouched ({why(exc)})", file=sys.stderr)
                status, unwritable = 1, unwritable + 1
                continue
            changed += 1
            print(f"rewrote {source.path}", file=sys.stderr)
        else:
            changed += 1
            sys.stdout.writelines(
                difflib.unified_diff(
                    before.decode(errors="replace").splitlines(keepends=True),
                    after.decode(errors="replace").splitlines(keepends=True),
                    f"a/{source.display}",
                    f"b/{source.display}",
                )
            )
    action = "rewritten" if args.write else "would change (dry run; --write to apply)"
    not_written = f"; {unwritable} files could not be written" if unwritable else ""
    print(f"{changed} files {action} for JAX {target}{not_written}", file=sys.stderr)
    return status


def why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="pallas-compat", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("doctor", help="list uses of drifted Pallas APIs")
    check.add_argument("paths", nargs="+", help="files or folders")
    check.add_argument("--target", help="JAX release to check against (default: the installed)")
    check.add_argument("--format", choices=("text", "json", "html"), default="text")
    check.add_argument(
        "--report",
        default="reports/api-diff.html",
        help="with --format html: the API-diff page each use links into (default: %(default)s)",
    )
    check.set_defaults(run=doctor)
    fix = commands.add_parser("migrate", help="rewrite drifted Pallas code for a JAX release")
    fix.add_argument("paths", nargs="+", help="files or folders")
    fix.add_argument("--target", help="JAX release to migrate to (default: the installed)")
    mode = fix.add_mutually_exclusive_group()
    mode.add_argument("--diff", action="store_true", help="print a unified diff (the default)")
    mode.add_argument("--write", action="store_true", help="rewrite the files in place")
    fix.set_defaults(run=migrate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return args.run(args)
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
