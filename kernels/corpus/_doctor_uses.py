"""Doctor's uses of a source text, kept across sessions by ``_memo``: the doctor check of a
plain run reads them, and so does the migrate route, to leave alone a file in which there is
nothing to migrate. They do not depend on the target: each use carries the releases it works
in."""

from __future__ import annotations

import dataclasses
from typing import Any

from kernels.corpus import _memo
from pallas_compat.rules._use import Use


def uses_in(text: str) -> list[Use]:
    """Every use ``doctor`` finds in ``text``."""
    from pallas_compat.lint._finder import uses_in as found_in

    def found() -> list[dict[str, Any]]:
        return [dataclasses.asdict(u) for u in found_in("", text)]

    return [as_use(fields) for fields in _memo.remembered("uses", text, "", found)]  # type: ignore[union-attr]


def as_use(fields: dict[str, Any]) -> Use:
    """A use back from its JSON fields (spans were tuples)."""
    spans = {k: tuple(tuple(span) for span in fields[k]) for k in ("releases", "warns")}
    return Use(**{**fields, **spans})


def nothing_to_migrate(text: str, *, find: bool = True) -> bool:
    """Doctor finds no use in ``text`` at all: migrate gives it back as it came, on every
    target (``tests/test_doctor_uses.py`` holds it to that on real kernels), so migrate need
    not read it. A use that works on the target is not enough: migrate also writes the
    newest spelling where the target has it (``pltpu.TPUMemorySpace.ANY`` -> ``pl.ANY``) and
    turns a masked ``pl.ds`` read into index arrays, which 0.12 needs.

    ``find=False`` answers from kept uses only (a doctor check found them before), else
    False: finding them takes longer than the one walk that serves every target of a text
    without uses (``pallas_compat.facts._target``)."""
    if find:
        return not uses_in(text)
    kept = _memo.recalled("uses", text, "")
    return kept is not _memo.MISSING and not kept
