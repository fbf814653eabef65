"""PAL207 unsupported-keyword: a keyword some releases of a Pallas callable do not take, with
no other spelling (``pltpu.emit_pipeline(should_accumulate_out=)``: 0.4.30-0.9.2;
``pallas_call(scratch_shapes=)``: 0.4.34 on).

The releases come from the scan of every release's signatures; the advice from the table's
``KEYWORD_ADVICE`` where leaving the keyword out changes what the call does. ``migrate``
notes the line: only a person can say what the call should do instead.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator

from pallas_compat.facts._table import (
    CALL_KEYWORDS,
    KEYWORD_ADVICE,
    PALLAS_CALL,
    Location,
)
from pallas_compat.rules import _calls, _keywords
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import Use

RULE = Rule(
    "PAL207",
    "unsupported-keyword",
    "a keyword some releases of a Pallas callable do not take",
    Fix.NOTES,
    Example(
        before="""\
from jax.experimental.pallas import tpu as pltpu

pipeline = pltpu.emit_pipeline(body, grid=(4,), in_specs=specs, out_specs=out, should_accumulate_out=True)
""",
        after="""\
from jax.experimental.pallas import tpu as pltpu

pipeline = pltpu.emit_pipeline(body, grid=(4,), in_specs=specs, out_specs=out, should_accumulate_out=True)  # pallas-compat: pltpu.emit_pipeline(should_accumulate_out=...) is not taken by JAX 0.12.0.1: accumulate in the body: zero the output block on the first step of its reduction (pl.when) and add to it (JAX 0.10.0 removed the automatic accumulation)
""",
    ),
)


def advice(callable_key: str, name: str) -> str | None:
    if callable_key == PALLAS_CALL and name in CALL_KEYWORDS:
        return CALL_KEYWORDS[name]
    return KEYWORD_ADVICE.get((callable_key, name))


def find_call(f: FindContext, node: ast.Call) -> Iterator[Finding | None]:
    target = _calls.called(node, f, lambda: f.bindings)
    if target is None:
        return
    key = target[0]
    for name, arg in _calls.keyword_args(node):
        if f.keyword_owner(key, name) is None:
            use = _keywords.keyword_use(f, key, arg, advice(key, name))
            if use is not None:
                yield Finding(use, node, functools.partial(note, key=key, name=name, use=use))


def note(m: FixContext, key: str, name: str, use: Use) -> None:
    """Only a person can say what the call should do without the keyword."""
    if not m.works_in(use.releases):
        spelling = Location.parse(key).spelling
        text = advice(key, name) or "leave it out or keep an older JAX"
        m.mark(f"{spelling}({name}=...) is not taken by JAX {m.target}: {text}")
