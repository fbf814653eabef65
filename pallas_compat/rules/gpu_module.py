"""PAL104 gpu-module: ``jax.experimental.pallas.gpu``, Triton's module until JAX renamed it
``jax.experimental.pallas.triton``.

Found in imports; ``migrate`` imports the new module under the old binding, so uses stay.
"""

from __future__ import annotations

import ast
import re

from pallas_compat.facts._table import GPU_LEGACY, GPU_MODULE, TRITON
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import form_use

RULE = Rule(
    "PAL104",
    "gpu-module",
    f"an import of {GPU_LEGACY} (Triton's module, renamed {TRITON})",
    Fix.REWRITES,
    Example(
        before="""\
from jax.experimental.pallas import gpu as plgpu

params = plgpu.TritonCompilerParams(num_warps=4)
""",
        after="""\
from jax.experimental.pallas import triton as plgpu

params = plgpu.TritonCompilerParams(num_warps=4)
""",
        target="0.6.2",
    ),
)
#: The call form of the table (``CallForm``) this rule finds.
FORMS = frozenset({GPU_MODULE})


def find_import(f: FindContext, module: str, where: ast.AST) -> Finding | None:
    if module != GPU_LEGACY:
        return None
    return Finding(form_use(f, where, GPU_MODULE), where, lambda m: to_triton(m, where))


def to_triton(m: FixContext, where: ast.AST) -> None:
    """``from ...pallas.gpu import X`` -> ``from ...pallas.triton import X``; ``from
    ...pallas import gpu [as g]`` and ``import ...pallas.gpu as g`` -> the new module under
    the old binding, so that its uses stay."""
    if m.form_works(GPU_MODULE):
        return
    text = m.edits.source
    if isinstance(where, ast.ImportFrom):
        found = FROM.match(text.text, text.start(where))
        if found is not None:
            m.edits.replace(found.start(1), found.end(1), TRITON)
    elif isinstance(where, ast.alias) and where.name == GPU_LEGACY:
        if where.asname:  # a bare ``import ...pallas.gpu`` binds ``jax``: its uses stay
            m.replace(where, f"{TRITON} as {where.asname}")
    elif isinstance(where, ast.alias):  # from jax.experimental.pallas import gpu [as g]
        m.replace(where, f"{TRITON.rpartition('.')[2]} as {where.asname or where.name}")


#: The module of a ``from`` import: where it is in the text.
FROM = re.compile(r"from\s+([\w.]+)")
