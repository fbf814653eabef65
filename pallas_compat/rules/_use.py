"""What ``doctor`` reports: one use of a drifted API (``Use``), and the drifted public names
the table and the release scan know (``drifted_names``), which the rules look names up in."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from packaging.version import Version

from pallas_compat.facts._table import (
    CALL_FORMS,
    call_form_releases,
    call_form_warned_releases,
    pairs,
    release_ranges,
    scanned_releases,
    works_in,
)
from pallas_compat.rules._context import FindContext

if TYPE_CHECKING:
    import ast


class UseState(str, enum.Enum):
    """How a use fares on one release; the values are the words doctor prints."""

    WORKS = "works"
    WARNS = "works with a warning"
    BREAKS = "breaks"
    UNKNOWN = "cannot tell"

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class Use:
    """One use of a drifted API in one file."""

    path: str
    line: int
    column: int
    api: str
    #: The releases it works in, as ``(first, last)`` spans.
    releases: tuple[tuple[str, str], ...]
    hint: str
    #: False when the releases it works in cannot be told from the source (``order unknown``).
    certain: bool = True
    #: Of the releases it works in, those where it warns (JAX deprecated it).
    warns: tuple[tuple[str, str], ...] = ()
    #: The rule that found it (``PAL101``): the dispatcher stamps it.
    code: str = ""

    def state_on(self, release: str) -> UseState:
        if not self.certain:
            return UseState.UNKNOWN
        if not works_in([list(span) for span in self.releases], release):
            return UseState.BREAKS
        if works_in([list(span) for span in self.warns], release):
            return UseState.WARNS
        return UseState.WORKS

    def breaks_on(self, release: str) -> bool:
        return self.state_on(release) is UseState.BREAKS

    def removed_in(self) -> str | None:
        """The first release after the last one it works in, if any."""
        if not self.releases:
            return None
        last = max((Version(end) for _, end in self.releases))
        later = [r for r in scanned_releases() if Version(r) > last]
        return later[0] if later else None

    def verdict(self, release: str) -> str:
        state = self.state_on(release)
        if state is UseState.UNKNOWN:
            return f"cannot tell from the source whether it breaks on {release}"
        if state is UseState.WARNS:
            gone = self.removed_in()
            return f"works with a warning on {release}: deprecated" + (
                f", gone in JAX {gone}" if gone else ""
            )
        return f"{state} on {release}"

    def state_over(self, releases: Sequence[str]) -> UseState:
        """The worst of its states on ``releases`` (a support window)."""
        states = {self.state_on(r) for r in releases}
        for worst in (UseState.BREAKS, UseState.UNKNOWN, UseState.WARNS):
            if worst in states:
                return worst
        return UseState.WORKS

    def verdict_over(self, releases: Sequence[str], label: str) -> str:
        """``verdict`` for one release; for a window, which of its releases it breaks on."""
        if len(releases) == 1:
            return self.verdict(releases[0])
        state = self.state_over(releases)
        if state is UseState.UNKNOWN:
            return f"cannot tell from the source whether it breaks in {label}"
        if state is UseState.WORKS:
            return f"works across {label}"
        hit = [r for r in releases if self.state_on(r) is state]
        return f"{state} on {runs(hit)} ({label})"


def runs(releases: Sequence[str]) -> str:
    """``0.4.30-0.6.0, 0.9.0``: ``releases`` as runs of consecutive scanned releases."""
    order = {r: i for i, r in enumerate(scanned_releases())}
    groups: list[list[str]] = []
    for release in sorted(releases, key=order.__getitem__):
        if groups and order[release] == order[groups[-1][-1]] + 1:
            groups[-1].append(release)
        else:
            groups.append([release])
    return ", ".join(g[0] if len(g) == 1 else f"{g[0]}-{g[-1]}" for g in groups)


def use_at(
    finder: FindContext,
    node: ast.AST,
    api: str,
    releases: tuple[tuple[str, str], ...] | list[list[str]],
    hint: str,
    *,
    certain: bool = True,
    warns: tuple[tuple[str, str], ...] = (),
) -> Use:
    """A use at ``node`` of the file ``finder`` (the dispatcher) walks."""
    line, column = finder.position(node)
    spans = tuple(tuple(span) for span in releases)
    return Use(finder.path, line, column, api, spans, hint, certain, warns)  # type: ignore[arg-type]


def form_use(finder: FindContext, node: ast.AST, form: str) -> Use:
    """A use of a call form some release refuses, with its scanned releases (and those that
    take it with a deprecation warning)."""
    warns = pairs(call_form_warned_releases(form))
    return use_at(finder, node, str(form), call_form_releases(form), CALL_FORMS[form], warns=warns)


def name_use(finder: FindContext, node: ast.AST, qname: str) -> Use:
    """A use of a drifted public name, with JAX's deprecation spans where it has any."""
    drift = finder.table.drifted_names[qname]
    loc = drift.location
    warns = release_ranges().get("deprecated", {}).get(f"{loc.module}:{loc.attr}", [])
    return use_at(finder, node, loc.spelling, drift.spans, drift.hint, warns=pairs(warns))


def feature_name_use(
    finder: FindContext, node: ast.AST, qname: str, keys: frozenset[str]
) -> Use | None:
    """``name_use`` where ``qname`` is a name of one of the table features ``keys`` (the rules
    that own a few features' names: masked accesses, ``pltpu.repeat``, ``for_loop``)."""
    drift = finder.table.drifted_names.get(qname)
    if drift is None or drift.feature is None or drift.feature.key not in keys:
        return None
    return name_use(finder, node, qname)
