"""Every public Pallas name's state on every JAX release, not only the probed ones.

The release scan (``pallas_compat/facts/release_ranges.json``) reads each release's sources: where
each name exists and where JAX's ``_deprecations`` table (or a module that warns on import)
marks it deprecated. It lists only the names some release lacks; a name every release has is
known from the snapshots, which list it. On the probed releases the two agree name for name
(``tests/test_surface.py``), so the report, the guides and doctor read one truth.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from packaging.version import Version

from pallas_compat.facts import (
    INVENTORIED_MODULES,
    Location,
    name_anchor,
    release_ranges,
    scanned_releases,
    works_in,
)
from report._load import Snapshot

#: A name's state on one release; the first two run (the second warns).
PRESENT, DEPRECATED, ABSENT = "present", "deprecated", "absent"
RUNS = (PRESENT, DEPRECATED)


@dataclass(frozen=True, eq=False)
class Surface:
    """The names of the Pallas modules over every scanned release."""

    snapshots: tuple[Snapshot, ...]

    @property
    def releases(self) -> list[str]:
        return scanned_releases()

    def knows(self, release: str) -> bool:
        return release in self.releases

    def probed(self, release: str) -> Snapshot | None:
        return next((s for s in self.snapshots if s.release == release), None)

    @functools.cached_property
    def spans(self) -> dict[tuple[str, str], list[list[str]]]:
        """(module, name) -> the releases that have it."""
        ranges = release_ranges()
        found: dict[tuple[str, str], list[list[str]]] = {}
        for key, entry in ranges["names"].items():
            found[split(key)] = entry["releases"]
        for key, spans in ranges.get("other_names", {}).items():
            found[split(key)] = spans
        for key, spans in ranges["locations"].items():
            module, name = split(key)
            if module in INVENTORIED_MODULES:
                found[(module, name)] = spans
        # A name the scan does not list is in every release: the snapshots list it, each one
        # whose module imports. (One only some list is a submodule the probes happened to
        # import first, an attribute of the package, not a name of its API.)
        everywhere = [[self.releases[0], self.releases[-1]]]
        for snap in self.snapshots[:1]:
            for module, record in snap.data["modules"].items():
                for name in record.get("names", {}):
                    if name.startswith("_") or (module, name) in found:
                        continue
                    if all(self.lists(other, module, name) for other in self.snapshots):
                        found[(module, name)] = everywhere
        return found

    @staticmethod
    def lists(snap: Snapshot, module: str, name: str) -> bool:
        record = snap.data["modules"].get(module, {})
        if record.get("imports") is False:
            return True  # nothing to say either way
        entry = record.get("names", {}).get(name)
        return entry is not None and entry.get("status", PRESENT) in RUNS

    def names(self) -> list[tuple[str, str]]:
        """Every public name some release has, sorted."""
        return sorted(key for key, spans in self.spans.items() if spans)

    @functools.cached_property
    def anchors(self) -> dict[tuple[str, str], str]:
        """Each name's row id: ``name_anchor`` (what doctor links to), with a number after it
        for a second spelling that differs only in case (``pl.Squeezed``, ``pl.squeezed``)."""
        found: dict[tuple[str, str], str] = {}
        taken: dict[str, int] = {}
        for key in sorted(self.names(), key=lambda k: Location(*k).spelling):
            anchor = name_anchor(Location(*key).spelling)
            taken[anchor] = taken.get(anchor, 0) + 1
            found[key] = anchor if taken[anchor] == 1 else f"{anchor}-{taken[anchor]}"
        return found

    def anchor(self, module: str, name: str) -> str:
        return self.anchors.get((module, name)) or name_anchor(Location(module, name).spelling)

    def state(self, release: str, module: str, name: str) -> tuple[str, str | None]:
        """(present | deprecated | absent, JAX's message) of ``module.name`` on ``release``."""
        spans = self.spans.get((module, name), [])
        if not works_in(spans, release):
            return ABSENT, self.message(release, module, name)
        warns = release_ranges()["deprecated"].get(f"{module}:{name}", [])
        if works_in(warns, release):
            return DEPRECATED, self.message(release, module, name)
        return PRESENT, None

    def message(self, release: str, module: str, name: str) -> str | None:
        """JAX's deprecation or removal message: the probed release's own, else the newest
        probed release's at or before it, else the scan's (the newest wording)."""
        candidates = [s for s in self.snapshots if s.version <= Version(release)]
        for snap in reversed(candidates):
            entry = snap.data["modules"].get(module, {}).get("names", {}).get(name)
            if entry and entry.get("message"):
                return str(entry["message"])
        scanned = release_ranges()["names"].get(f"{module}:{name}", {})
        return scanned.get("message")

    def first(self, module: str, name: str, state: str, after: str | None = None) -> str | None:
        """The first release (after ``after``) on which the name is in ``state``."""
        floor = Version(after) if after else None
        for release in self.releases:
            if floor is not None and Version(release) <= floor:
                continue
            if self.state(release, module, name)[0] == state:
                return release
        return None


def split(key: str) -> tuple[str, str]:
    module, _, name = key.partition(":")
    return module, name
