"""What to write instead of a drifted name, for the releases a user checks: never a spelling
those releases lack, and never the very spelling that is written.

A rule's hint names the newest spelling (``pltpu.CompilerParams(...)``). On an older target
that spelling may not exist: then an older name of the same feature that the target has
(``pltpu.TPUCompilerParams`` on 0.4.33), or what code wrote before the feature had a name
(``compiler_params={"mosaic": {...}}`` on 0.4.30), or, where no one spelling serves every
release checked, the shim's import, which does.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from packaging.version import Version

from pallas_compat.facts._registry import Drift, registry
from pallas_compat.facts._table import works_in
from pallas_compat.rules._use import Use, UseState

__all__ = ["instead", "write_for"]


@functools.cache
def by_spelling() -> dict[str, Drift]:
    """Each drifted public name by how people write it (``pltpu.CompilerParams``)."""
    found: dict[str, Drift] = {}
    for drift in registry().drifted_names.values():
        found.setdefault(drift.location.spelling, drift)
    return found


def everywhere(spans: Sequence[Sequence[str]], releases: Sequence[str]) -> bool:
    return bool(spans) and all(works_in([list(s) for s in spans], r) for r in releases)


def instead(drift: Drift, releases: Sequence[str], label: str) -> str:
    """What to write instead of ``drift``'s name on ``releases`` (called ``label``)."""
    feature = drift.feature
    if feature is None:
        return drift.hint
    modern = feature.modern
    if not modern.releases or everywhere(modern.releases, releases):
        return drift.hint
    for location in reversed(feature.locations[:-1]):
        if not location.private and everywhere(location.releases, releases):
            written = feature.write.replace("{new}", location.spelling)
            return written.replace("{new_import}", f"from {location.module} import {location.attr}")
    since = feature.since
    if feature.fallback and since and all(Version(r) < Version(since) for r in releases):
        return f"{feature.fallback} (before JAX {since} it had no name)"
    return (
        f"{drift.hint} from JAX {modern.releases[0][0]}; no one spelling serves {label}: "
        f"import it from pallas_compat, which serves each release"
    )


def write_for(use: Use, releases: Sequence[str], label: str) -> str:
    """doctor's advice for ``use`` on ``releases``: ``instead`` for a drifted name; for the
    newest spelling itself where it works there, that nothing needs writing."""
    drift = by_spelling().get(use.api)
    if drift is None or not use.certain:
        return use.hint
    feature = drift.feature
    if (
        feature is not None
        and feature.modern.spelling == use.api
        and use.state_over(releases) in (UseState.WORKS, UseState.WARNS)
    ):
        return f"nothing: {use.api} is the spelling of {label}"
    if use.state_over(releases) is UseState.WORKS:
        return use.hint
    return instead(drift, releases, label)
