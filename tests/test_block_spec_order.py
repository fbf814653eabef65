"""pallas_compat.rules._argument_order: the argument order of a BlockSpec call, from the source."""

from __future__ import annotations

import ast

import pytest

from pallas_compat.rules._argument_order import block_spec_order
from pallas_compat.rules._bindings import EMPTY, Bindings
from pallas_compat.rules._scopes import Scopes

MODULE = """\
def index_map(i):
    return (i, 0)


def shape(n):
    if n:
        return (n, 128)
    return (8, 128)


def unknown(n):
    return n


tile = (8, 128)
twice = (8, 128)
twice = lambda i: (i,)
"""


@pytest.mark.parametrize(
    ("call", "order"),
    [
        ("pl.BlockSpec(lambda i: (i,), (8,))", "old"),
        ("pl.BlockSpec((8,), lambda i: (i,))", "new"),
        ("pl.BlockSpec(index_map, tile)", "old"),
        ("pl.BlockSpec(tile, index_map)", "new"),
        ("pl.BlockSpec(index_map, shape(8))", "old"),
        ("pl.BlockSpec(functools.partial(f, k=1), spec)", "old"),
        ("pl.BlockSpec(unknown(8), other)", "unknown"),
        ("pl.BlockSpec(twice, other)", "unknown"),  # bound to a shape and to a lambda
        ("pl.BlockSpec(memory_space=pl.ANY)", None),
    ],
)
def test_order(call: str, order: str | None) -> None:
    bindings = Bindings.of(Scopes(ast.parse(MODULE)))
    node = ast.parse(call, mode="eval").body
    assert isinstance(node, ast.Call)
    assert block_spec_order(node, lambda: bindings) == order


def test_literals_need_no_bindings() -> None:
    def fail() -> Bindings:
        raise AssertionError("the module was read although literals tell")

    node = ast.parse("pl.BlockSpec(lambda i: (i,), (8,))", mode="eval").body
    assert isinstance(node, ast.Call) and block_spec_order(node, fail) == "old"
    assert EMPTY.values == {}
