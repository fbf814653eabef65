"""What the table and the release scan give, derived once and held in one object.

The API-facts table (``_table.FEATURES``) and the scan (``release_ranges.json``) are data;
the shim, ``doctor`` and ``migrate`` read views derived from them: the moves the scan proved,
every drifted public name with its advice, the enum members JAX moved, the words a source
must contain to use any of them. ``registry()`` builds those views once and rebuilds them
when the table is another tuple (a test adds a feature); ``reset()`` after the scan's dict
was edited in place. The dispatchers hand the registry to the rules (``f.table``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from pallas_compat.facts import _table
from pallas_compat.facts._table import (
    GPU_MESHES,
    MEMBER_FORMS,
    MEMBER_MOVES,
    MESH_PARAMS_BACKEND,
    NAMESPACE_OF,
    WRITE_INSTEAD,
    Feature,
    Location,
    ReleaseRanges,
    Spans,
    describe,
    pairs,
    releases_in,
    spans_of,
)


@dataclass(frozen=True)
class Drift:
    """A public name that some scanned release lacks, and what to write instead."""

    location: Location
    spans: tuple[tuple[str, str], ...]
    hint: str
    #: The API-facts feature it belongs to; None for names known only from the release scan.
    feature: Feature | None = None
    #: Where JAX moved the same object (proven by the scan: both names import one object).
    moved_to: Location | None = None


Members = dict[str, tuple[str, tuple[tuple[str, str], ...], str]]


@dataclass(frozen=True, eq=False)
class Registry:
    features: tuple[Feature, ...]
    ranges: ReleaseRanges

    @functools.cached_property
    def by_key(self) -> dict[str, Feature]:
        return {f.key: f for f in self.features}

    @functools.cached_property
    def moves(self) -> tuple[Feature, ...]:
        """Names JAX moved, proven by the release scan (the old and the new name import one
        object), that no feature of the table already owns: each a renamed feature."""
        owned = {loc for feature in self.features for loc in feature.locations}
        found = []
        for key, entry in sorted(self.ranges["names"].items()):
            old = Location.parse(key)
            moved_to = entry.get("moved_to")
            if moved_to and old not in owned:
                new = Location.parse(moved_to)
                title = f"{old.spelling} -> {new.spelling}"
                found.append(Feature(f"moved:{key}", title, (old, new), "{new}", renamed=True))
        return tuple(found)

    @functools.cached_property
    def drifted_names(self) -> dict[str, Drift]:
        """Qualified name -> Drift: the table's locations, then every other public Pallas name
        that came or went (with JAX's own deprecation message where it wrote one)."""
        releases = self.ranges["releases"]
        every = [[releases[0], releases[-1]]]
        table = {}
        for feature in self.features:
            for loc in feature.locations:
                if (not loc.private or feature.outside) and loc.releases != every:
                    spans = pairs(loc.releases)
                    table[f"{loc.module}.{loc.attr}"] = Drift(loc, spans, feature.hint, feature)
        for key, entry in self.ranges["names"].items():
            loc = Location.parse(key)
            spans = pairs(entry["releases"])
            hint = (
                WRITE_INSTEAD.get(key)
                or entry["message"]
                or f"JAX left no migration message; it exists in {describe(entry['releases'])}"
            )
            moved = Location.parse(entry["moved_to"]) if entry["moved_to"] else None
            table.setdefault(f"{loc.module}.{loc.attr}", Drift(loc, spans, hint, None, moved))
        return table

    @functools.cached_property
    def moved_members(self) -> Members:
        """``<module>.<enum>.<MEMBER>`` -> (spelling, the releases that have it, hint) for the
        members JAX moved out of an enum (``pltpu.MemorySpace.ANY``: 0.6.2-0.9.0.1, an alias from 0.8.2, then
        ``pl.ANY``); the release scan reads each release's enum."""
        found: Members = {}
        members = self.ranges.get("members", {})
        for (owner, member), key in MEMBER_MOVES.items():
            new = self.by_key[key].modern
            for loc in self.by_key[owner].locations:
                hint = f"{new.spelling} ({new.spelling} exists in JAX {describe(new.releases)})"
                spans = pairs(members.get(f"{loc.module}:{loc.attr}.{member}", []))
                found[f"{loc.module}.{loc.attr}.{member}"] = (
                    f"{loc.spelling}.{member}",
                    spans,
                    hint,
                )
        return found

    @functools.cached_property
    def member_forms(self) -> Members:
        """``<module>.<enum>.<MEMBER>`` -> (spelling, the releases that have it, hint) for the
        members JAX replaced by a form of another (``plgpu.Layout.WGMMA_ROW``: to 0.8.3, then
        ``plgpu.Layout.WGMMA.reduce(1)``, which 0.7.0 on take)."""
        found: Members = {}
        members = self.ranges.get("members", {})
        newest = self.ranges["releases"][-1]
        for (owner, member), (form, since) in MEMBER_FORMS.items():
            for loc in self.by_key[owner].locations:
                spelling = f"{loc.spelling}.{member}"
                hint = f"{loc.spelling}.{form} (JAX {since}-{newest})"
                spans = pairs(members.get(f"{loc.module}:{loc.attr}.{member}", []))
                found[f"{loc.module}.{loc.attr}.{member}"] = (spelling, spans, hint)
        return found

    @functools.cached_property
    def rename_releases(self) -> dict[tuple[str, str], Spans]:
        """(namespace alias, name) -> every release that has one spelling of the renamed or
        moved API the name spells (the first such API of the table, then of the scan): where
        the shim serves it. Derived once; doctor asks it for each use on each release."""
        found: dict[tuple[str, str], Spans] = {}
        for feature in (*(f for f in self.features if f.renamed), *self.moves):
            having = {r for loc in feature.locations for r in releases_in(loc.releases)}
            for loc in feature.locations:
                alias = NAMESPACE_OF.get(loc.module)
                if alias is not None and (not loc.private or feature.outside):
                    found.setdefault((alias, loc.attr), spans_of(having))
        return found

    @functools.cached_property
    def mesh_options_moved(self) -> dict[str, tuple[tuple[str, str], ...]]:
        """Option -> the releases whose Mosaic GPU mesh took it, for the options JAX moved off
        the mesh into the compiler params (``plgpu.GPUMesh(approx_math=)`` to 0.4.38, then
        ``pl.core_map(mesh, compiler_params=plgpu.CompilerParams(approx_math=))``): a keyword
        some release's mesh took that the params have, both scanned."""
        fields = self.ranges["compiler_params_fields"].get(MESH_PARAMS_BACKEND, {})
        keywords = self.ranges.get("keywords", {})
        return {
            option: pairs(spans)
            for mesh in GPU_MESHES
            for option, spans in sorted(keywords.get(mesh, {}).items())
            if option in fields
        }

    @functools.cached_property
    def needles(self) -> tuple[bytes, ...]:
        """Words a source must contain to use any drifted name: its Pallas or ``jax`` module
        part (``pallas`` for every Pallas module, ``enable_x64`` for
        ``jax.experimental.enable_x64``)."""
        words = set()
        for qname in self.drifted_names:
            parts = qname.split(".")
            rest = parts[2:] if parts[1] == "experimental" else parts[1:]
            words.add(rest[0].encode())
        return tuple(sorted(words))


_current: Registry | None = None


def registry() -> Registry:
    """The registry of the table and scan in force now."""
    global _current
    features, ranges = _table.FEATURES, _table.release_ranges()
    if _current is None or _current.features is not features or _current.ranges is not ranges:
        _current = Registry(features, ranges)
    return _current


def reset() -> None:
    """Derive everything again on the next read (after the scan's dict changed in place)."""
    global _current
    _current = None


def moves() -> tuple[Feature, ...]:
    """Names JAX moved, proven by the release scan, that no feature of the table owns."""
    return registry().moves


def renames() -> tuple[Feature, ...]:
    """Every feature whose spellings are one API under several names: the table's renamed
    features, then the scan's moves. The shim serves each spelling on every release that has
    any of them; ``migrate`` rewrites an old spelling into the newest one the target has."""
    return tuple(f for f in _table.FEATURES if f.renamed) + moves()


def drifted_names() -> dict[str, Drift]:
    """Qualified name -> Drift, of the table and scan in force now."""
    return registry().drifted_names


def moved_members() -> Members:
    """``<module>.<enum>.<MEMBER>`` -> (spelling, releases, hint), of the table and scan now."""
    return registry().moved_members


def member_forms() -> Members:
    """``<module>.<enum>.<MEMBER>`` -> (spelling, releases, hint) of the members JAX replaced
    by a form of another (``plgpu.Layout.WGMMA_ROW``), of the table and scan now."""
    return registry().member_forms


def features_and_moves() -> tuple[Feature, ...]:
    """Every feature of the table plus each move the release scan proved (old and new name
    import one object) that no feature owns; read at call time, so a new entry shows at once."""
    return (*_table.FEATURES, *moves())
