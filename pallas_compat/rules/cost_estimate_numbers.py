"""PAL212 cost-estimate-numbers: a ``pl.CostEstimate`` field that is not a Python ``int``
(``bytes_accessed=np.prod(shape) * itemsize``, a NumPy integer; ``flops=cost["flops"]``, a
float from ``cost_analysis()``), which JAX 0.5.3 on refuse ("All fields in CostEstimate must
be ints").

The scan finds the releases (``CostEstimate.__post_init__``'s ``isinstance(v, int)``); the
source tells a field's type where it can (``_numbers``: NumPy calls, floats, true division,
names bound once to them); a field it cannot type is left alone. ``migrate`` writes
``int(...)`` around each field it knows is not an int; the shim's ``CostEstimate`` makes them
ints when it is called.
"""

from __future__ import annotations

import ast

import libcst as cst

from pallas_compat.facts._table import COST_ESTIMATE_NUMBERS, FEATURES_BY_KEY
from pallas_compat.rules import _read
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._numbers import not_an_int
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._syntax import called
from pallas_compat.rules._use import Use, form_use

RULE = Rule(
    "PAL212",
    "cost-estimate-numbers",
    "a pl.CostEstimate field that is a NumPy integer or a float, which JAX 0.5.3 on refuse",
    Fix.REWRITES,
)
#: The call form of the table (``CallForm``) this rule finds.
FORMS = frozenset({COST_ESTIMATE_NUMBERS})
#: ``module:CostEstimate`` in every place the table knows it.
COST_ESTIMATES = frozenset(
    f"{loc.module}:{loc.attr}" for loc in FEATURES_BY_KEY["cost_estimate"].locations
)


def fields(call: ast.Call) -> list[ast.expr]:
    return [*_read.positional(call), *(k.value for k in call.keywords if k.arg is not None)]


def find_call(f: FindContext, node: ast.Call) -> Use | None:
    target = _read.called(node, f, lambda: f.bindings)
    if target is None or target[0] not in COST_ESTIMATES:
        return None
    module_of = lambda name: next(iter(sorted(f.qualified(name))), None)  # noqa: E731
    values_of = lambda name: f.bindings.values.get(name, [])  # noqa: E731
    if any(not_an_int(value, module_of, values_of) for value in fields(node)):
        return form_use(f, node, COST_ESTIMATE_NUMBERS)
    return None


def rewrite_call(m: RewriteContext, original: cst.Call, updated: cst.Call) -> cst.Call | None:
    target = called(original, m, m.bindings)
    if target is None or target[0] not in COST_ESTIMATES or m.form_works(COST_ESTIMATE_NUMBERS):
        return None
    readings = m.source_reading()
    args = list(updated.args)
    changed = False
    for i, (seen, arg) in enumerate(zip(original.args, updated.args, strict=True)):
        if seen.star:
            continue
        value = ast.parse(f"({m.code(seen.value)})", mode="eval").body
        if not_an_int(value, readings.module_of, readings.values_of):
            args[i] = arg.with_changes(value=cst.Call(cst.Name("int"), [cst.Arg(arg.value)]))
            changed = True
    return updated.with_changes(args=args) if changed else None
