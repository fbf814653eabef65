"""Read snapshots (and kernel results) for the report: validated, one per release, in order."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from common import CORPUS_SCHEMA, KERNELS_SCHEMA, THIRDPARTY_SCHEMA, UsageError
from common import SNAPSHOT_SCHEMA as SCHEMA
from report._shape import (
    CORPUS_RESULTS,
    KERNEL_RESULTS,
    SNAPSHOT,
    THIRDPARTY_RESULTS,
    Shape,
    ShapeError,
    check,
)


class InputError(UsageError):
    """A file the report cannot use: one line naming the file, exit status 2."""


@dataclass(frozen=True)
class Snapshot:
    path: Path
    release: str
    data: dict[str, Any]

    @property
    def version(self) -> Version:
        return Version(self.release)


def read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start}); not a snapshot") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None


def load_snapshot(path: Path) -> Snapshot:
    data = read_json(path)
    schema = data.get("schema") if isinstance(data, dict) else None
    if schema != SCHEMA:
        raise InputError(
            f"{path}: not a snapshot of schema {SCHEMA} (found {schema!r}); "
            "take it again with `python -m probes`"
        )
    release = data.get("environment", {}).get("versions", {}).get("jax")
    try:
        Version(str(release))
    except InvalidVersion:
        raise InputError(f"{path}: the snapshot names no JAX release ({release!r})") from None
    for key in ("modules", "features", "behaviours"):
        if not isinstance(data.get(key), dict):
            raise InputError(f"{path}: snapshot is truncated (no {key!r} section)")
    try:
        check(data, SNAPSHOT)
    except ShapeError as exc:
        raise InputError(f"{path}: not a valid snapshot: {exc}") from None
    return Snapshot(path, str(release), data)


def load_snapshots(folder: Path) -> list[Snapshot]:
    """Every ``*.json`` snapshot in ``folder``, oldest release first."""
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder")
    files = sorted(folder.glob("*.json"))
    if not files:
        raise InputError(f"{folder}: no snapshots (*.json) in it; run `nox -s probe` first")
    snapshots = [load_snapshot(path) for path in files]
    seen: dict[str, Path] = {}
    for snap in snapshots:
        if snap.release in seen:
            raise InputError(
                f"{snap.path}: a second snapshot of JAX {snap.release} (the first is {seen[snap.release]})"
            )
        seen[snap.release] = snap.path
    return sorted(snapshots, key=lambda s: s.version)


def load_kernel_results(folder: Path | None) -> dict[str, dict[str, Any]]:
    """release -> results document, from ``python -m kernels --out`` files (may be absent)."""
    return load_results(folder, KERNELS_SCHEMA, KERNEL_RESULTS, "kernel results")


def load_corpus_results(folder: Path | None) -> dict[str, dict[str, Any]]:
    """release -> corpus document, from ``python -m kernels.corpus --out`` files."""
    return load_results(folder, CORPUS_SCHEMA, CORPUS_RESULTS, "corpus results")


def load_thirdparty_results(folder: Path | None) -> dict[str, dict[str, Any]]:
    """release -> third-party corpus document, from ``python -m kernels.thirdparty --out``."""
    return load_results(folder, THIRDPARTY_SCHEMA, THIRDPARTY_RESULTS, "third-party results")


def load_results(
    folder: Path | None, schema: str, shape: Shape, what: str
) -> dict[str, dict[str, Any]]:
    if folder is None or not folder.is_dir():
        return {}
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("jax-*.json")):
        data = read_json(path)
        if not isinstance(data, dict) or data.get("schema") != schema:
            raise InputError(f"{path}: not {what} of schema {schema}")
        try:
            check(data, shape)
            Version(data["jax"])
        except ShapeError as exc:
            raise InputError(f"{path}: not valid {what}: {exc}") from None
        except InvalidVersion:
            raise InputError(f"{path}: names no JAX release ({data['jax']!r})") from None
        if data["jax"] in found:
            raise InputError(f"{path}: a second {what} file of JAX {data['jax']}")
        found[data["jax"]] = data
    return found
