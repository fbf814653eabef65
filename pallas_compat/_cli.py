"""``pallas-compat doctor`` and ``pallas-compat migrate``: drifted Pallas code in source trees.

Exit status: 0 fine (doctor: nothing breaks on the target; migrate: done, dry run or written),
1 doctor found something that breaks on the target, or migrate left a file it could not parse,
2 bad input (unknown path or release), with a one-line error.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from pallas_compat._errors import installed_jax
from pallas_compat._facts import scanned_releases


class UsageError(Exception):
    """Bad input: reported as one line with exit status 2."""


def python_files(paths: Sequence[str]) -> Iterator[Path]:
    """Every ``.py`` file under ``paths``; symlinks that leave what was given are refused."""
    given = [Path(text) for text in paths]
    for path in given:
        if not path.exists():
            raise UsageError(f"{path}: no such file or directory")
    roots = [path.resolve() for path in given]
    for root in given:
        candidates = [root] if root.is_file() else sorted(root.rglob("*.py"))
        for path in candidates:
            real = path.resolve()
            if not any(real == r or r in real.parents for r in roots):
                print(f"{path}: skipped, a link to outside the given paths", file=sys.stderr)
                continue
            if real.is_file() and real.suffix == ".py":
                yield path


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


def parse(path: Path) -> tuple[bytes, object] | None:
    import libcst as cst

    data = path.read_bytes()
    try:
        return data, cst.parse_module(data)
    except (cst.ParserSyntaxError, UnicodeDecodeError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"{path}: cannot parse, left untouched ({first})", file=sys.stderr)
        return None


def doctor(args: argparse.Namespace) -> int:
    from pallas_compat._source import find_uses

    target = target_release(args.target)
    uses, unparsable = [], 0
    files = list(python_files(args.paths))
    for path in files:
        parsed = parse(path)
        if parsed is None:
            unparsable += 1
            continue
        uses.extend(find_uses(str(path), parsed[1]))
    breaking = [u for u in uses if u.breaks_on(target)]
    if args.format == "json":
        report = {
            "target": target,
            "uses": [u.as_record(target) for u in uses],
            "summary": {"files": len(files), "uses": len(uses), "breaking": len(breaking)},
        }
        print(json.dumps(report, indent=1))
    else:
        for use in uses:
            verdict = f"breaks on {target}" if use.breaks_on(target) else f"works on {target}"
            record = use.as_record(target)
            print(
                f"{use.path}:{use.line}:{use.column}: {use.api} (works in JAX "
                f"{record['works_in']}; {verdict}); write: {use.hint}"
            )
        print(
            f"{len(uses)} uses of drifted Pallas APIs in {len(files)} files; "
            f"{len(breaking)} break on JAX {target}"
        )
    return 1 if breaking else 0


def migrate(args: argparse.Namespace) -> int:
    from pallas_compat._migrate import migrate_module

    target = target_release(args.target)
    status, changed = 0, 0
    for path in python_files(args.paths):
        parsed = parse(path)
        if parsed is None:
            status = 1
            continue
        before, module = parsed
        after = migrate_module(module, target).bytes
        if after == before:
            continue
        try:
            ast.parse(after)
        except SyntaxError as exc:
            print(
                f"{path}: the rewrite does not parse ({exc.msg}); left untouched", file=sys.stderr
            )
            status = 1
            continue
        changed += 1
        if args.write:
            write_atomic(path, after)
            print(f"rewrote {path}", file=sys.stderr)
        else:
            sys.stdout.writelines(
                difflib.unified_diff(
                    before.decode(errors="replace").splitlines(keepends=True),
                    after.decode(errors="replace").splitlines(keepends=True),
                    f"a/{path}",
                    f"b/{path}",
                )
            )
    action = "rewritten" if args.write else "would change (dry run; --write to apply)"
    print(f"{changed} files {action} for JAX {target}", file=sys.stderr)
    return status


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` in one step, keeping its permissions."""
    mode = path.stat().st_mode
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="pallas-compat", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("doctor", help="list uses of drifted Pallas APIs")
    check.add_argument("paths", nargs="+", help="files or folders")
    check.add_argument("--target", help="JAX release to check against (default: the installed)")
    check.add_argument("--format", choices=("text", "json"), default="text")
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
    except ModuleNotFoundError as exc:
        print(
            f"pallas-compat: error: {exc} (install pallas-compat with its dependencies)",
            file=sys.stderr,
        )
        return 2
