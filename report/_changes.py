"""What changed between releases, computed from snapshots: the report's content, unrendered."""

from __future__ import annotations

import difflib
import itertools
import json
from dataclasses import dataclass
from typing import Any

from packaging.version import Version

from pallas_compat.facts import Location, name_anchor
from report._load import Snapshot
from report._surface import Surface

PRESENT = ("present", "deprecated")


@dataclass(frozen=True)
class NameEvent:
    module: str
    name: str
    release: str
    change: str  # added, deprecated, removed, re-added
    message: str | None

    @property
    def spelling(self) -> str:
        return Location(self.module, self.name).spelling

    @property
    def anchor(self) -> str:
        return name_anchor(self.spelling)


def state(snapshot: Snapshot, module: str, name: str) -> tuple[str, str | None]:
    """A name's state as one snapshot recorded it (the probes' view of one release)."""
    entry = snapshot.data["modules"].get(module, {}).get("names", {}).get(name)
    if entry is None:
        return "absent", None
    return entry.get("status", "present"), entry.get("message")


def all_names(snapshots: list[Snapshot]) -> list[tuple[str, str]]:
    names = set()
    for snap in snapshots:
        for module, record in snap.data["modules"].items():
            for name in record.get("names", {}):
                if not name.startswith("_"):
                    names.add((module, name))
    return sorted(names)


def timeline(surface: Surface, releases: list[str] | None = None) -> list[NameEvent]:
    """Every public name's added / deprecated / removed / re-added, release by release, over
    every scanned release (or ``releases``)."""
    releases = releases or surface.releases
    events = []
    for module, name in surface.names():
        previous, ever = "absent", False
        for index, release in enumerate(releases):
            current, message = surface.state(release, module, name)
            change = None
            if current in PRESENT and previous not in PRESENT:
                change = "re-added" if ever else ("added" if index else None)
                if change and current == "deprecated":
                    change += ", deprecated"
            elif current == "deprecated" and previous == "present":
                change = "deprecated"
            elif current not in PRESENT and previous in PRESENT:
                change = "removed"
            if change:
                events.append(NameEvent(module, name, release, change, message))
            ever = ever or current in PRESENT
            previous = current
    return sorted(events, key=lambda e: (e.module, e.name, Version(e.release)))


@dataclass(frozen=True)
class ShapeChange:
    module: str
    name: str
    before: str
    after: str
    what: str  # signature, fields, members
    old: Any
    new: Any


def as_params(entry: dict[str, Any], what: str) -> Any:
    """A name's ``signature``, ``fields`` or enum ``members`` as one list of ``{"name": ...}``
    (a member's value as its default), so each is diffed and shown alike."""
    value = entry.get(what)
    if what == "members" and isinstance(value, dict):
        return [{"name": n, "default": v} for n, v in sorted(value.items())]
    return value


def shape_changes(snapshots: list[Snapshot]) -> list[ShapeChange]:
    """Signature, dataclass-field and enum-member changes between adjacent releases (a
    member whose value alone changed, a renumbered ``enum.auto()``, is no change)."""
    changes = []
    for old, new in itertools.pairwise(snapshots):
        for module, name in all_names([old, new]):
            a = old.data["modules"].get(module, {}).get("names", {}).get(name) or {}
            b = new.data["modules"].get(module, {}).get("names", {}).get(name) or {}
            for what in ("signature", "fields", "members"):
                if what not in a or what not in b or a[what] == b[what]:
                    continue
                if what == "members" and set(a[what]) == set(b[what]):
                    continue
                before, after = as_params(a, what), as_params(b, what)
                changes.append(
                    ShapeChange(module, name, old.release, new.release, what, before, after)
                )
    return changes


def describe_params(params: Any) -> str:
    """``name=default`` list for people."""
    if not isinstance(params, list):
        return json.dumps(params)
    parts = []
    for p in params:
        text = p.get("name", "?")
        if "default" in p:
            text += f"={p['default']}"
        parts.append(text)
    return ", ".join(parts)


@dataclass(frozen=True)
class BehaviourChange:
    key: str
    before: str
    after: str
    diff: str


def pretty(value: Any) -> list[str]:
    return json.dumps(value, indent=1, sort_keys=True).splitlines(keepends=True)


def summarised(record: Any) -> str | None:
    """The finding of a probe that states it in words (see ``probes/semantics.py``)."""
    return record.get("summary") if isinstance(record, dict) else None


def summary_runs(snapshots: list[Snapshot]) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """Per worded behaviour: (first release, last release, summary) for each run of equal
    findings, oldest first."""
    keys = sorted({k for s in snapshots for k, v in s.data["behaviours"].items() if summarised(v)})
    found = []
    for key in keys:
        runs: list[tuple[str, str, str]] = []
        for snap in snapshots:
            summary = summarised(snap.data["behaviours"].get(key)) or "not recorded"
            if runs and runs[-1][2] == summary:
                runs[-1] = (runs[-1][0], snap.release, summary)
            else:
                runs.append((snap.release, snap.release, summary))
        found.append((key, runs))
    return found


def behaviour_changes(snapshots: list[Snapshot]) -> list[BehaviourChange]:
    changes = []
    for old, new in itertools.pairwise(snapshots):
        keys = sorted(set(old.data["behaviours"]) | set(new.data["behaviours"]))
        for key in keys:
            if summarised(old.data["behaviours"].get(key)) or summarised(
                new.data["behaviours"].get(key)
            ):
                continue  # worded: in the "Changes of meaning" section
            a, b = old.data["behaviours"].get(key), new.data["behaviours"].get(key)
            if a != b:
                diff = "".join(
                    difflib.unified_diff(
                        pretty(a), pretty(b), f"JAX {old.release}", f"JAX {new.release}", n=2
                    )
                )
                changes.append(BehaviourChange(key, old.release, new.release, diff))
    return changes


def import_failures(snapshots: list[Snapshot]) -> list[tuple[str, str, str]]:
    """(release, module, error) for Pallas modules that did not import: as probed, then in the
    fresh environment, before what JAX imports without declaring it was installed."""
    rows = []
    for snap in snapshots:
        for module, record in sorted(snap.data["modules"].items()):
            if record.get("imports") is False:
                error = record.get("error", {})
                rows.append(
                    (snap.release, module, f"{error.get('type', '?')}: {error.get('message', '')}")
                )
        fresh = snap.data["environment"].get("clean_venv_import_errors", {})
        rows += [(snap.release, module, f"fresh venv: {error}") for module, error in fresh.items()]
    return rows
