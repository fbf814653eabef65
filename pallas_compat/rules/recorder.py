"""PAL210 two-argument-recorder: ``pltpu.InterpretParams(grid_point_recorder=f)`` with
``f(grid_point, core_id)``; from JAX 0.10.1 the simulator calls ``f(token, grid_point,
core_id)`` and wants the token back.

``migrate`` rewrites a recorder the module defines (``_recorder_calls.py``); the shim adapts either
way at run time.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator

from pallas_compat.facts._table import RECORDER_TWO_ARGS
from pallas_compat.rules import _recorder_calls
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._recorder_calls import FunctionNode, mendable, with_token
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import Use, form_use

RULE = Rule(
    "PAL210",
    "two-argument-recorder",
    "a grid_point_recorder of two arguments (newer simulators pass a token first)",
    Fix.REWRITES,
    Example(
        before="""\
from jax.experimental.pallas import tpu as pltpu


def record(grid_point, core_id):
    seen.append(grid_point)


params = pltpu.InterpretParams(grid_point_recorder=record)
""",
        after="""\
from jax.experimental.pallas import tpu as pltpu


def record(token, grid_point, core_id):
    seen.append(grid_point)
    return token


params = pltpu.InterpretParams(grid_point_recorder=record)
""",
    ),
)
#: The call form of the table (``CallForm``) this rule finds.
FORMS = frozenset({RECORDER_TWO_ARGS})


def find_module(f: FindContext, node: ast.Module) -> Iterator[Use | Finding]:
    for arg in _recorder_calls.recorder_arguments(f):
        recorder = _recorder_calls.two_argument_recorder(arg.value, f.bindings)
        if recorder is None:
            continue
        use = form_use(f, arg, RECORDER_TWO_ARGS)
        if not mendable(recorder):
            yield use  # it returns a value of its own: left for a person
            continue
        yield Finding(use, recorder, functools.partial(token_first, recorder=recorder))


def token_first(m: FixContext, recorder: FunctionNode) -> bool | None:
    if m.form_works(RECORDER_TWO_ARGS):
        return None
    with_token(m, recorder)
    return True  # one rewrite, however many calls hand it over
