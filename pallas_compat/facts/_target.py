"""A migration's target release, and every question a migration asks of it.

A migration depends on its target only through the answers it gets (is the target inside
these release spans, is it at least that release), or through the release itself where a note
names it. Another target that gives every recorded answer alike gets the same tree from the
same walk: ``Migration`` walks once per set of answers, not once per target.
"""

from __future__ import annotations

from collections.abc import Sequence

from packaging.version import Version

from pallas_compat.facts._table import works_in

__all__ = ["Target", "asked_of"]

#: Release spans, ``[first, last]`` each, as a key.
Spans = tuple[tuple[str, ...], ...]


class Target:
    """One target release; what was asked of it, and whether its name was read."""

    def __init__(self, release: str) -> None:
        self._release = release
        #: Each ``works_in`` question asked, with the target's answer.
        self.spans_asked: dict[Spans, bool] = {}
        #: Each ``since`` question asked, with the target's answer.
        self.since_asked: dict[str, bool] = {}
        #: The release itself was read (a note names it), so no other target answers alike.
        self.named = False

    @property
    def release(self) -> str:
        self.named = True
        return self._release

    def is_release(self, release: str) -> bool:
        """Is this the target ``release`` (not a question: the answer is not recorded)?"""
        return self._release == release

    def works_in(self, spans: Sequence[Sequence[str]]) -> bool:
        """Is the target inside one of the ``[first, last]`` spans?"""
        key = tuple(tuple(span) for span in spans)
        if key not in self.spans_asked:
            self.spans_asked[key] = works_in(key, self._release)
        return self.spans_asked[key]

    def since(self, release: str) -> bool:
        """Is the target ``release`` or newer?"""
        if release not in self.since_asked:
            self.since_asked[release] = Version(self._release) >= Version(release)
        return self.since_asked[release]

    def answers_alike(self, release: str) -> bool:
        """Would ``release`` answer every question asked so far as this target did?"""
        version = Version(release)
        return (
            not self.named
            and all(works_in(spans, release) == given for spans, given in self.spans_asked.items())
            and all((version >= Version(r)) == given for r, given in self.since_asked.items())
        )


def asked_of(target: str | Target) -> Target:
    """``target`` as a ``Target`` (the whole-module passes are also called with a release)."""
    return target if isinstance(target, Target) else Target(target)
