"""Which JAX rule tables hold ``pallas_call_p``: found by scanning, not from a fixed list."""

from __future__ import annotations

import importlib
from typing import Any

from probes._pallas import pl
from probes._registry import probe

#: Modules whose dict-valued attributes keyed by primitives are JAX's rule tables.
RULE_MODULES = (
    "jax._src.interpreters.ad",
    "jax._src.interpreters.partial_eval",
    "jax._src.interpreters.batching",
    "jax._src.interpreters.mlir",
)

#: The tables reverse-mode autodiff needs, by their short names.
REVERSE_MODE_TABLES = (
    "ad.primitive_transposes",
    "partial_eval.custom_partial_eval_rules",
    "partial_eval.partial_eval_jaxpr_custom_rules",
)


def tables_holding(primitive: Any) -> list[str]:
    """``module.table`` names of every rule table with an entry for ``primitive``."""
    from jax._src import core

    found = []
    for module_name in RULE_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        short = module_name.rsplit(".", 1)[-1]
        for attr, table in sorted(vars(module).items()):
            if not isinstance(table, dict) or not table:
                continue
            if not any(isinstance(k, core.Primitive) for k in list(table)[:8]):
                continue
            try:
                if primitive in table:
                    found.append(f"{short}.{attr}")
            except TypeError:
                continue
    return found


@probe("autodiff.rules")
def rules() -> dict[str, Any]:
    held = tables_holding(pl().pallas_call_p)
    return {
        "tables": held,
        "has_jvp": "ad.primitive_jvps" in held,
        "has_transpose": "ad.primitive_transposes" in held,
        "has_partial_eval": any(t in held for t in REVERSE_MODE_TABLES[1:]),
        "has_batching": any(t.startswith("batching.") for t in held),
    }
