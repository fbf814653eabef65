"""``pallas-compat migrate``: rewrite the files under the paths for one JAX release, as a
diff (the default), in place (``--write``) or as a yes/no for CI (``--check``, exit 1 when a
file would change, like ``ruff format --check``)."""

from __future__ import annotations

import ast
import difflib
import stat
import sys

from pallas_compat._file_writes import write_atomic
from pallas_compat._usage import UsageError
from pallas_compat.lint._analysis import Outcome, analysis_of, examine
from pallas_compat.lint._finder import UseState, encoding_of
from pallas_compat.lint._inputs import internal_error, python_sources, too_deep
from pallas_compat.lint._migrate import Migration
from pallas_compat.lint._noqa import silenced
from pallas_compat.lint._options import MigrateOptions, Mode
from pallas_compat.lint._settings import Settings, settings
from pallas_compat.lint._tree import Source
from pallas_compat.rules._advice import write_for


def rewritten(source: Source, found: Outcome, chosen: Settings) -> bytes | None:
    """The file's new bytes (its own where nothing changes), in its own encoding, from what
    the analysis found in it (only a file with uses is read again). None, after one line on
    stderr, where it cannot be parsed or the rewrite would not parse."""
    before = found.data
    if before is None:  # no use: nothing to rewrite on any target
        return None
    try:
        encoding = encoding_of(before)
        text = before.decode(encoding)
        migration = Migration(text, chosen.selected, found.noqa, str(source.path))
        after = migration.code(chosen.target).encode(encoding)
    except (SyntaxError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"{source.path}: cannot parse, left untouched ({first})", file=sys.stderr)
        return None
    except RecursionError:
        print(too_deep(source.path, "migrate"), file=sys.stderr)
        return None
    except Exception as exc:  # a bug of ours must not hide the other files
        print(internal_error(source.path, "migrate", exc), file=sys.stderr)
        return None
    if after != before:
        try:
            ast.parse(after)
        except SyntaxError as exc:
            print(
                f"{source.path}: the rewrite does not parse ({exc.msg}); left untouched",
                file=sys.stderr,
            )
            return None
    return after


def diff(source: Source, before: bytes, after: bytes) -> None:
    sys.stdout.writelines(
        difflib.unified_diff(
            before.decode(errors="replace").splitlines(keepends=True),
            after.decode(errors="replace").splitlines(keepends=True),
            f"a/{source.display}",
            f"b/{source.display}",
        )
    )


def migrate(options: MigrateOptions) -> int:
    inputs, mode = options.inputs, options.mode
    chosen = settings(inputs.paths, options.choice)
    if len(chosen.releases) > 1:
        raise UsageError(
            f"pyproject.toml sets a support window: migrate writes for one release, pass "
            f"--target (the shim's imports serve {chosen.label})"
        )
    status, changed, unwritable, unfixed = 0, 0, 0, 0
    files, skipped = python_sources(inputs.paths, inputs.exclusions)
    if any(s.unread for s in skipped):  # code under it went unchecked: never a quiet pass
        status = 1
    for source, found in zip(files, analysis_of(inputs, files, "migrate"), strict=True):
        if found.uses is None:
            status = 1
            continue
        if found.data is None:
            continue
        before, after = found.data, rewritten(source, found, chosen)
        if after is None:
            status = 1
            continue
        left = still_breaking(source, after, chosen)
        for line in left:
            print(line, file=sys.stderr)
        status, unfixed = (1 if left else status), unfixed + len(left)
        if after == before:
            continue
        if mode is Mode.CHECK:
            print(f"would rewrite {source.path}", file=sys.stderr)
        elif mode is Mode.WRITE:
            if read_only(source):  # a rename would replace it anyway: its mode says no
                print(
                    f"{source.path}: read-only, left untouched (chmod u+w to let migrate write it)",
                    file=sys.stderr,
                )
                status, unwritable = 1, unwritable + 1
                continue
            try:
                write_atomic(source.real, after)  # a link stays a link: its target is rewritten
            except OSError as exc:  # an unwritable folder must not stop the rest of the tree
                print(f"{source.path}: cannot write, left untouched ({why(exc)})", file=sys.stderr)
                status, unwritable = 1, unwritable + 1
                continue
            print(f"rewrote {source.path}", file=sys.stderr)
        else:
            diff(source, before, after)
        changed += 1
    print(summary(mode, changed, unwritable, chosen.target, unfixed), file=sys.stderr)
    return max(status, 1 if mode is Mode.CHECK and changed else 0)


def still_breaking(source: Source, after: bytes, chosen: Settings) -> list[str]:
    """A line for each use the rewrite leaves that breaks on the target (one migrate cannot
    rewrite, as ``load = pl2.load``, or only notes): ``migrate`` then exits 1, as ruff does
    when violations remain after ``--fix``."""
    uses, noqa, _ = examine(str(source.path), after, "migrate")
    return [
        f"{source.path}:{use.line}:{use.column}: {use.code} {use.api} still breaks on "
        f"{chosen.label}, left for a person; write: {write_for(use, chosen.releases, chosen.label)}"
        for use in uses or ()
        if use.code in chosen.selected
        and not silenced(noqa, use.line, use.code)
        and use.state_over(chosen.releases) is UseState.BREAKS
    ]


def read_only(source: Source) -> bool:
    """Has the file no write permission for its owner (``chmod 444``)? Asked of the mode, not of
    ``os.access``: root may write anything, and the user still meant it to stay."""
    try:
        return not source.real.stat().st_mode & stat.S_IWUSR
    except OSError:
        return False


def summary(mode: Mode, changed: int, unwritable: int, target: str, unfixed: int = 0) -> str:
    if mode is Mode.CHECK:
        action = "would be rewritten (--check)"
    elif mode is Mode.WRITE:
        action = "rewritten"
    else:
        action = "would change (dry run; --write to apply)"
    not_written = f"; {unwritable} files could not be written" if unwritable else ""
    left = f"; {unfixed} uses still break there, left for a person" if unfixed else ""
    return f"{changed} files {action} for JAX {target}{not_written}{left}"


def why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__
