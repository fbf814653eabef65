"""PAL210 two-argument-recorder: ``pltpu.InterpretParams(grid_point_recorder=f)`` with
``f(grid_point, core_id)``; from JAX 0.10.1 the simulator calls ``f(token, grid_point,
core_id)`` and wants the token back.

``migrate`` rewrites a recorder the module defines (``_recorder_calls.py``); the shim adapts either
way at run time.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from pallas_compat.facts._table import RECORDER_TWO_ARGS
from pallas_compat.rules import _read
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._recorder_calls import (
    PARAMS,
    recorder_arguments,
    two_argument_recorder,
    with_token,
)
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._use import Use, form_use

RULE = Rule(
    "PAL210",
    "two-argument-recorder",
    "a grid_point_recorder of two arguments (newer simulators pass a token first)",
    Fix.REWRITES,
)
#: The call form of the table (``CallForm``) this rule finds.
FORMS = frozenset({RECORDER_TWO_ARGS})


def find_module(f: FindContext, node: ast.Module) -> Iterator[Use]:
    for arg in _read.recorder_arguments(f, PARAMS):
        if _read.two_argument_recorder(arg.value, f.bindings) is not None:
            yield form_use(f, arg, RECORDER_TWO_ARGS)


def prepare(m: RewriteContext, node: cst.Module) -> None:
    """Remember the module's two-argument recorders, to rewrite as their ``def``s are left."""
    found: set[cst.FunctionDef] = set()
    arguments = m.once("recorder_arguments", lambda: recorder_arguments(node, m))
    if arguments and not m.form_works(RECORDER_TWO_ARGS):
        for arg in arguments:
            recorder = two_argument_recorder(arg.value, m.bindings())
            if recorder is not None:
                found.add(recorder)
    m.state[RULE.code] = found


def rewrite_function(
    m: RewriteContext, original: cst.FunctionDef, updated: cst.FunctionDef
) -> cst.FunctionDef:
    if original not in m.state.get(RULE.code, ()):
        return updated
    return with_token(updated) or updated
