"""``[tool.pallas-compat]`` in the user's ``pyproject.toml``: the release to check against (or
the window of releases the project supports) and the rules to run, so that ``doctor`` and
``migrate`` need no flags in a pre-commit hook or CI. Flags given on the command line win.

    [tool.pallas-compat]
    target = "0.12.0.1"                 # or: support = ["0.6.2", "0.12.0.1"]
    select = ["ALL"]                    # codes, prefixes (PAL2) or names
    ignore = ["PAL105"]
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 reads it with the backport
    import tomli as tomllib

TABLE = "pallas-compat"
KEYS = frozenset({"target", "support", "select", "ignore"})


class ConfigError(Exception):
    """A ``[tool.pallas-compat]`` table that cannot be read: one line, exit status 2."""


@dataclass(frozen=True)
class Config:
    target: str | None = None
    support: tuple[str, str] | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    #: The file it was read from; None when no ``pyproject.toml`` above the paths has one.
    path: Path | None = field(default=None, compare=False)


def find_pyproject(paths: list[str]) -> Path | None:
    """The nearest ``pyproject.toml`` at or above the paths' common folder (ruff's rule)."""
    try:
        common = Path(os.path.commonpath([os.path.abspath(p) for p in paths or ["."]]))
    except ValueError:  # paths on different drives
        common = Path.cwd()
    try:
        start = common if common.is_dir() else common.parent
    except OSError:  # a folder the OS will not stat: look from its parent
        start = common.parent
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        try:
            if candidate.is_file():
                return candidate
        except OSError:  # cannot look inside this folder: a pyproject there is not ours to read
            continue
    return None


def strings(value: Any, key: str, where: Path) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ConfigError(f"{where}: [tool.{TABLE}] {key} must be a string or a list of strings")


def load(paths: list[str]) -> Config:
    """The table of the nearest ``pyproject.toml`` that applies to ``paths``."""
    where = find_pyproject(paths)
    if where is None:
        return Config()
    try:
        data = tomllib.loads(where.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{where}: cannot read ({exc})") from None
    table = data.get("tool", {}).get(TABLE)
    if table is None:
        return Config()
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [tool.{TABLE}] must be a table")
    if unknown := sorted(set(table) - KEYS):
        raise ConfigError(
            f"{where}: [tool.{TABLE}] has no key {unknown[0]!r} (it takes {', '.join(sorted(KEYS))})"
        )
    target = table.get("target")
    if target is not None and not isinstance(target, str):
        raise ConfigError(f"{where}: [tool.{TABLE}] target must be a release string")
    support = None
    if "support" in table:
        window = strings(table["support"], "support", where)
        if len(window) != 2:
            raise ConfigError(f"{where}: [tool.{TABLE}] support is [oldest, newest]")
        support = (window[0], window[1])
    if target is not None and support is not None:
        raise ConfigError(f"{where}: [tool.{TABLE}] takes target or support, not both")
    return Config(
        target,
        support,
        strings(table.get("select", []), "select", where),
        strings(table.get("ignore", []), "ignore", where),
        where,
    )
