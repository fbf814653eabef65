"""The scope analysis reads every name as libcst's ``QualifiedNameProvider`` read it (the rules
were written against its answers): checked node by node against its answers on code that
shadows, rebinds and nests, recorded by libcst itself (``scripts/record_scopes_golden.py``)."""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import pytest

from pallas_compat.rules._scopes import Scopes

CASES = {
    "module alias and from-import": """
        import jax.experimental.pallas as pl
        from jax.experimental.pallas import tpu as pltpu, load
        import jax.experimental.pallas
        x = pl.load(r, 0) + load(r) + pltpu.repeat(x, 2, 0)
        y = jax.experimental.pallas.store
    """,
    "a parameter shadows the import": """
        from jax.experimental import pallas as pl
        def kernel(pl, ref):
            return pl.load(ref, 0)
        def other(ref):
            return pl.load(ref, 0)
    """,
    "a rebinding after the read, and in a function": """
        from jax.experimental import pallas as pl
        a = pl.load
        pl = None
        def f():
            return pl.store
        def g():
            from jax.experimental import pallas as pl
            b = pl.store
            pl = 3
            return pl
    """,
    "class bodies are not seen by their methods": """
        from jax.experimental import pallas as pl
        class K:
            pl = None
            spec = pl.BlockSpec
            def m(self):
                return pl.BlockSpec
    """,
    "comprehensions, lambdas, global and nonlocal": """
        import functools
        from jax.experimental import pallas as pl
        specs = [pl.BlockSpec(s) for s in shapes if pl]
        f = lambda pl: pl.load
        g = functools.partial(pl.pallas_call, out_shape=None)
        def outer():
            global pl
            pl = 1
            def inner():
                nonlocal q
                return pl.load
            q = 2
        for pl in range(3):
            pass
        with open(p) as pl:
            pass
    """,
    "calls and subscripts in a dotted name": """
        from jax.experimental import pallas as pl
        a = pl.BlockSpec((8,), lambda i: (i,)).replace(block_shape=(4,))
        b = pl.program_id(0)[0].x
        c = len
    """,
    "decorators, defaults and annotations are read outside the function": """
        import functools
        from jax.experimental import pallas as pl
        from jax.experimental.pallas import mosaic_gpu as plgpu
        @plgpu.nd_loop((4,), collective_axes="x")
        def body(idx, pl=pl.load, *args: pl.BlockSpec, **kw) -> pl.BlockSpec:
            try:
                del idx
            except pl.Error as pl:
                pass
            if (n := pl.program_id(0)):
                return n
        @functools.partial(pl.pallas_call, out_shape=None)
        def k(ref):
            return ref
    """,
    "relative and star imports": """
        from . import kernels as pl
        from ..ops import attention
        from jax.experimental.pallas import *
        x = pl.load + attention.mha + load
    """,
}


GOLDEN = Path(__file__).parent / "fixtures" / "scopes_golden.json"


def ast_names(source: str) -> dict[str, list[str]]:
    module = ast.parse(source)
    scopes = Scopes(module)
    found = {}
    for node in ast.walk(module):
        if isinstance(node, (ast.Name, ast.Attribute)):
            key = f"{node.lineno}:{node.col_offset}:{node.end_lineno}:{node.end_col_offset}"
            found[key] = sorted(scopes.qualified(node))
    return found


@pytest.mark.parametrize("case", CASES)
def test_every_name_reads_as_libcst_read_it(case: str) -> None:
    theirs = json.loads(GOLDEN.read_text())[case]
    ours = ast_names(textwrap.dedent(CASES[case]))
    assert set(ours) <= set(theirs)  # every expression's name (libcst also has imports, defs)
    assert {k: (v, theirs[k]) for k, v in ours.items() if v != theirs[k]} == {}
