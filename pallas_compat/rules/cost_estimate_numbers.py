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

from pallas_compat.facts._table import COST_ESTIMATE_NUMBERS, FEATURES_BY_KEY
from pallas_compat.rules import _calls
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._numbers import not_an_int
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import form_use

RULE = Rule(
    "PAL212",
    "cost-estimate-numbers",
    "a pl.CostEstimate field that is a NumPy integer or a float, which JAX 0.5.3 on refuse",
    Fix.REWRITES,
    Example(
        before="""\
from jax.experimental import pallas as pl

cost = pl.CostEstimate(flops=2.0 * n, transcendentals=0, bytes_accessed=4 * n)
""",
        after="""\
from jax.experimental import pallas as pl

cost = pl.CostEstimate(flops=int(2.0 * n), transcendentals=0, bytes_accessed=4 * n)
""",
    ),
)
#: The call form of the table (``CallForm``) this rule finds.
FORMS = frozenset({COST_ESTIMATE_NUMBERS})
#: ``module:CostEstimate`` in every place the table knows it.
COST_ESTIMATES = frozenset(
    f"{loc.module}:{loc.attr}" for loc in FEATURES_BY_KEY["cost_estimate"].locations
)


def fields(call: ast.Call) -> list[ast.expr]:
    return [*_calls.positional(call), *(k.value for k in call.keywords if k.arg is not None)]


def find_call(f: FindContext, node: ast.Call) -> Finding | None:
    target = _calls.called(node, f, lambda: f.bindings)
    if target is None or target[0] not in COST_ESTIMATES:
        return None
    module_of = lambda name: next(iter(sorted(f.qualified(name))), None)  # noqa: E731
    values_of = lambda name: f.bindings.values.get(name, [])  # noqa: E731
    numbers = [value for value in fields(node) if not_an_int(value, module_of, values_of)]
    if not numbers:
        return None
    return Finding(form_use(f, node, COST_ESTIMATE_NUMBERS), node, lambda m: as_ints(m, numbers))


def as_ints(m: FixContext, numbers: list[ast.expr]) -> None:
    """``int(...)`` around each field the source shows is not an int."""
    if m.form_works(COST_ESTIMATE_NUMBERS):
        return
    for value in numbers:
        m.replace(value, f"int({m.current(value)})")
