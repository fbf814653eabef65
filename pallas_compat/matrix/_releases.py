"""Which JAX releases ``pallas-compat matrix`` runs on, and which Python each one allows.

The releases are those scanned into ``release_ranges.json`` (every release from 0.4.30 on), so
that ``matrix``, ``doctor`` and ``migrate`` know the same ones. ``default`` is the main job's
rule: the oldest release plus the newest patch of every minor series.
"""

from __future__ import annotations

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from pallas_compat._usage import UsageError
from pallas_compat.facts._table import scanned_releases

#: Requires-Python of JAX, from the first release that declared each (jax-matrix.json's
#: ``every`` list; a test keeps the two in step).
REQUIRES_PYTHON: tuple[tuple[str, str], ...] = (
    ("0.4.30", ">=3.9"),
    ("0.4.31", ">=3.10"),
    ("0.7.0", ">=3.11"),
    ("0.11.0", ">=3.12"),
)

#: Interpreters to try, in order of preference: one 3.12 covers every release from 0.4.30 on
#: (0.4.30's jaxlib has no wheel for 3.13).
PREFERRED_PYTHONS = ("3.12", "3.13", "3.11", "3.10")

NAMED = {
    "default": "the oldest release plus the newest patch of every minor series",
    "every": "every release scanned",
}


def default_releases() -> tuple[str, ...]:
    """The oldest scanned release plus the newest patch of every minor series."""
    scanned = scanned_releases()
    newest: dict[tuple[int, ...], str] = {}
    for release in scanned:
        newest[Version(release).release[:2]] = release  # scanned is in release order
    return tuple(sorted({scanned[0], *newest.values()}, key=Version))


def parse_version(text: str, spec: str) -> Version:
    try:
        return Version(text)
    except InvalidVersion:
        raise UsageError(f"--jax {spec!r}: {text!r} is not a release number") from None


def releases_of(spec: str) -> tuple[str, ...]:
    """``0.6.2,0.9.2``, ``0.6.2..0.12.0.1``, ``default`` or ``every`` (any of them comma-joined)
    -> the releases, oldest first; a one-line UsageError for anything unknown or empty."""
    scanned = scanned_releases()
    chosen: set[str] = set()
    for item in (part.strip() for part in spec.split(",")):
        if not item:
            continue
        if item == "default":
            chosen.update(default_releases())
        elif item == "every":
            chosen.update(scanned)
        elif ".." in item:
            first, _, last = item.partition("..")
            low, high = parse_version(first, spec), parse_version(last, spec)
            if low > high:
                raise UsageError(f"--jax {item!r}: the oldest release comes first")
            inside = [r for r in scanned if low <= Version(r) <= high]
            if not inside:
                raise UsageError(
                    f"--jax {item!r}: no JAX release in that range (known: {scanned[0]} ... "
                    f"{scanned[-1]})"
                )
            chosen.update(inside)
        elif item in scanned:
            chosen.add(item)
        else:
            parse_version(item, spec)
            raise UsageError(
                f"unknown JAX release {item!r}: --jax takes releases from {scanned[0]} to "
                f"{scanned[-1]}, a range (0.6.2..0.12.0.1), default or every"
            )
    if not chosen:
        raise UsageError(f"--jax {spec!r}: names no release")
    return tuple(sorted(chosen, key=Version))


def requires_python(release: str) -> SpecifierSet:
    version = Version(release)
    found = [spec for first, spec in REQUIRES_PYTHON if Version(first) <= version]
    return SpecifierSet(found[-1] if found else "")


def pythons_for(release: str) -> tuple[str, ...]:
    """The preferred interpreters the release's Requires-Python allows, best first."""
    allowed = requires_python(release)
    return tuple(p for p in PREFERRED_PYTHONS if Version(p) in allowed)
