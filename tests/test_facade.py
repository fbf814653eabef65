"""pallas_compat.shim._facade: a facade counts as its native class, whatever metaclass that has."""

from __future__ import annotations

import dataclasses
from typing import Protocol, runtime_checkable

from pallas_compat.shim._facade import facade


@runtime_checkable
class CompilerParams(Protocol):
    """Like JAX 0.4.35's ``pallas_core.CompilerParams``: a runtime Protocol."""

    PLATFORM: str


@dataclasses.dataclass(frozen=True)
class TPUCompilerParams(CompilerParams):
    """Like 0.4.35's ``TPUCompilerParams``: a dataclass that subclasses the Protocol."""

    PLATFORM = "mosaic"
    dimension_semantics: tuple[str, ...] | None = None


def test_protocol_checks_after_a_facade_exist_do_not_recurse() -> None:
    """On 0.4.35 ``isinstance({}, CompilerParams)`` inside ``pallas_call``, after the shim had
    made its params facade, walked the Protocol's subclasses into the facade and back:
    RecursionError. Seen with a second pallas_call whose BlockSpec used pl.squeezed."""
    params = facade(TPUCompilerParams, lambda args, kwargs: (args, kwargs), name="CompilerParams")
    made = params(dimension_semantics=("parallel",))
    assert type(made) is TPUCompilerParams
    assert not isinstance({}, CompilerParams)
    assert isinstance(made, CompilerParams) and isinstance(made, params)
    assert issubclass(TPUCompilerParams, params) and not issubclass(dict, params)
