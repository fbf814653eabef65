"""What ``doctor`` and ``migrate`` check against and which rules they run: the command line
first, then ``[tool.pallas-compat]`` of the user's ``pyproject.toml``, then the installed JAX
and every rule."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from packaging.version import Version

from pallas_compat._usage import UsageError
from pallas_compat.facts._table import installed_jax, scanned_releases
from pallas_compat.lint import _config
from pallas_compat.lint._options import Choice
from pallas_compat.rules import RULES_BY_CODE, lookup


@dataclass(frozen=True)
class Settings:
    #: The releases a use must work on: one target, or every scanned release of a window.
    releases: tuple[str, ...]
    #: How to name them: ``JAX 0.12.0.1`` or ``the support window 0.6.2-0.12.0.1``.
    label: str
    #: The rule codes that run.
    selected: frozenset[str]

    @property
    def target(self) -> str:
        """The newest release checked: what ``migrate`` writes for."""
        return self.releases[-1]


def known(release: str) -> str:
    scanned = scanned_releases()
    if release not in scanned:
        raise UsageError(
            f"unknown JAX release {release!r}: it takes one of {scanned[0]} ... {scanned[-1]} "
            "(the releases scanned into pallas_compat/facts/release_ranges.json)"
        )
    return release


def window(first: str, last: str) -> tuple[str, ...]:
    low, high = Version(known(first)), Version(known(last))
    if low > high:
        raise UsageError(f"support window {first}-{last}: the oldest release comes first")
    return tuple(r for r in scanned_releases() if low <= Version(r) <= high)


def parse_window(text: str) -> tuple[str, str]:
    first, sep, last = text.partition(":")
    if not sep or not first or not last:
        raise UsageError(f"--support {text!r}: write OLDEST:NEWEST (--support 0.6.2:0.12.0.1)")
    return first, last


def selection(select: list[str], ignore: list[str], config: _config.Config) -> frozenset[str]:
    chosen = select or list(config.select) or ["ALL"]
    dropped = ignore or list(config.ignore)
    try:
        return lookup(chosen) - lookup(dropped) if chosen else frozenset(RULES_BY_CODE)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def settings(paths: Sequence[str], choice: Choice) -> Settings:
    """The command line's ``choice``, then the ``pyproject.toml`` above ``paths``, then the
    installed JAX and every rule."""
    try:
        config = _config.load(list(paths))
    except _config.ConfigError as exc:
        raise UsageError(str(exc)) from None
    selected = selection(list(choice.select), list(choice.ignore), config)
    support, target = choice.support, choice.target
    if target is not None and not target.strip():
        raise UsageError("--target '': name a JAX release (--target 0.12.0.1)")
    if target is not None or (support is None and config.support is None):
        release = target or config.target or installed_jax()
        if release == "unknown":
            raise UsageError("JAX is not installed here: pass --target X.Y.Z")
        return Settings((known(release),), f"JAX {release}", selected)
    first, last = parse_window(support) if support is not None else config.support  # type: ignore[misc]
    releases = window(first, last)
    return Settings(releases, f"the support window {first}-{last}", selected)
