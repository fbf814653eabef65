"""The removed ``pl.load``, ``pl.store`` and ``pl.swap`` in every spelling old code wrote them.

``pl.load(ref, idx, mask=m)``, ``pl.load(ref, idx=idx, mask=m)`` and ``pl.load(x_ref=ref,
idx=idx, mask=m)`` are one call; ``pl.store(ref, idx=..., val=..., mask=...)`` likewise.
``migrate`` first binds a call's arguments to the old signature (``canonical``), then
rewrites that one form, so every spelling gets the same rewrite. ``pl.swap`` used for its
value (``old = pl.swap(ref, idx, v)``) becomes the read and the write it was.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from pallas_compat.rules._arguments import Argument, arguments
from pallas_compat.rules._edits import Text

#: The old signatures' arguments that could be given by position, in order.
PARAMETERS: dict[str, tuple[tuple[str, ...], ...]] = {
    "load": (("x_ref_or_view", "x_ref", "ref"), ("idx",)),
    "store": (("x_ref_or_view", "x_ref", "ref"), ("idx",), ("val", "value")),
    "swap": (("x_ref_or_view", "x_ref", "ref"), ("idx",), ("val", "value")),
}


@dataclass(frozen=True)
class Bound:
    """A call's arguments bound to the old signature: the leading ones in order (``ref``,
    ``idx``, ``val``), then the rest (``mask=``, ``other=``, hints) as they were written."""

    leading: list[Argument]
    rest: list[Argument]
    #: What followed the call's last argument (its comma, the space before ``)``): the last
    #: argument of the bound form takes it.
    closing: str


def canonical(call: ast.Call, name: str, text: Text) -> Bound | None:
    """``call``'s arguments bound to the old signature of ``name``; None where that cannot be
    told (``*args``, ``**kwargs``, an argument missing)."""
    found = arguments(call, text)
    if any(a.starred for a in found):
        return None
    given = [a for a in found if a.keyword is None]
    by_name = {a.keyword: a for a in found if a.keyword is not None}
    leading = list(given)
    for spellings in PARAMETERS[name][len(given) :]:
        hit = next((by_name.pop(s) for s in spellings if s in by_name), None)
        if hit is None:
            return None
        leading.append(hit)
    rest = [a for a in found if a.keyword is not None and a.keyword in by_name]
    if len(leading) + len(rest) != len(found):
        return None
    closing = text.text[found[-1].end : found[-1].slot_end] if found else ""
    return Bound(leading, rest, closing)
