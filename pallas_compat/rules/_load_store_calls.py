"""The removed ``pl.load``, ``pl.store`` and ``pl.swap`` in every spelling old code wrote them.

``pl.load(ref, idx, mask=m)``, ``pl.load(ref, idx=idx, mask=m)`` and ``pl.load(x_ref=ref,
idx=idx, mask=m)`` are one call; ``pl.store(ref, idx=..., val=..., mask=...)`` likewise.
``migrate`` first binds a call's arguments to the old signature (``canonical``), then
rewrites that one form, so every spelling gets the same rewrite. ``pl.swap`` used for its
value (``old = pl.swap(ref, idx, v)``) becomes the read and the write it was.
"""

from __future__ import annotations

import libcst as cst

#: The old signatures' arguments that could be given by position, in order.
PARAMETERS: dict[str, tuple[tuple[str, ...], ...]] = {
    "load": (("x_ref_or_view", "x_ref", "ref"), ("idx",)),
    "store": (("x_ref_or_view", "x_ref", "ref"), ("idx",), ("val", "value")),
    "swap": (("x_ref_or_view", "x_ref", "ref"), ("idx",), ("val", "value")),
}


def canonical(call: cst.Call, name: str) -> cst.Call | None:
    """``call`` with the old signature's leading arguments positional, in order, and the rest
    (``mask=``, ``other=``, hints) after them as they were; None where that cannot be told
    (``*args``, ``**kwargs``, an argument missing)."""
    if any(arg.star for arg in call.args):
        return None
    given = [arg for arg in call.args if arg.keyword is None]
    by_name = {arg.keyword.value: arg for arg in call.args if arg.keyword is not None}
    ordered = list(given)
    for spellings in PARAMETERS[name][len(given) :]:
        found = next((by_name.pop(s) for s in spellings if s in by_name), None)
        if found is None:
            return None
        ordered.append(found.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT))
    rest = [a for a in call.args if a.keyword is not None and a.keyword.value in by_name]
    if len(ordered) + len(rest) != len(call.args):
        return None
    args = [*ordered, *rest]
    args[-1] = args[-1].with_changes(comma=call.args[-1].comma)
    return call.with_changes(args=args)
