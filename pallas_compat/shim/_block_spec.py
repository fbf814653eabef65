"""BlockSpec in either argument order, with old indexing modes and new block dimensions.

JAX 0.4.31 flipped ``BlockSpec(index_map, block_shape)`` to ``BlockSpec(block_shape,
index_map)``; 0.6.1 replaced ``indexing_mode=pl.Unblocked(padding)`` with per-dimension
``pl.Element(size, padding)`` and added ``pl.Squeezed`` for what ``None`` meant.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pallas_compat.facts._table import PL, installed_jax
from pallas_compat.shim._errors import RefusedArgumentError, missing_name
from pallas_compat.shim._facade import facade
from pallas_compat.shim._resolve import native
from pallas_compat.shim._warnings import warn_once


@dataclasses.dataclass(frozen=True)
class Unblocked:
    """``pl.Unblocked(padding)`` for releases after 0.6.0: becomes ``pl.Element`` dimensions."""

    padding: tuple[tuple[int, int], ...] | None = None


@dataclasses.dataclass(frozen=True)
class BlockedMode:
    """``pl.blocked`` for releases after 0.6.0: the default, so it is dropped."""


@dataclasses.dataclass(frozen=True)
class Element:
    """``pl.Element(block_size, padding)`` for releases before 0.6.1: becomes Unblocked."""

    block_size: int
    padding: tuple[int, int] = (0, 0)


@dataclasses.dataclass(frozen=True)
class Squeezed:
    """``pl.Squeezed()`` for releases before 0.6.1: becomes ``None``."""


unblocked = Unblocked()
blocked = BlockedMode()
squeezed = Squeezed()


def block_spec_class() -> type:
    """A BlockSpec facade: takes either argument order and every indexing spelling."""
    cls = native(PL, "BlockSpec")
    fields = [f.name for f in dataclasses.fields(cls)]
    shape_first = fields[0] == "block_shape"
    has_mode = "indexing_mode" in fields
    native_unblocked = native(PL, "Unblocked")
    native_element = native(PL, "Element")
    native_squeezed = native(PL, "Squeezed")

    def reorder(args: tuple[Any, ...]) -> tuple[Any, ...]:
        mixed = len(args) >= 2 and callable(args[0]) != callable(args[1])
        if mixed and callable(args[0]) == shape_first:
            if shape_first:
                warn_once(
                    "block_spec_order",
                    "pl.BlockSpec(index_map, block_shape) is the pre-0.4.31 argument order; "
                    "write pl.BlockSpec(block_shape, index_map)",
                )
            return (args[1], args[0], *args[2:])
        return args

    def convert(
        args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        args = reorder(args)
        if len(args) == 1 and callable(args[0]) == shape_first:
            kwargs = {"index_map" if shape_first else "block_shape": args[0], **kwargs}
            args = ()
        names = fields[: len(args)]
        spec = {**dict(zip(names, args, strict=True)), **kwargs}
        shape = spec.get("block_shape")
        mode = spec.pop("indexing_mode", None)
        if isinstance(mode, BlockedMode):
            mode = None
        if isinstance(mode, Unblocked):
            if native_unblocked is not None:
                mode = native_unblocked(mode.padding)
            else:
                shape = to_elements(shape, mode.padding, native_element)
                mode = None
        if shape is not None and native_element is None:
            shape, mode = from_new_dims(shape, mode, native_unblocked)
        elif shape is not None and native_squeezed is not None:
            shape = tuple(native_squeezed() if isinstance(d, Squeezed) else d for d in shape)
        if shape is not None:
            spec["block_shape"] = shape
        if mode is not None:
            if not has_mode:
                raise RefusedArgumentError(
                    f"BlockSpec(indexing_mode={mode!r}) is not supported by JAX {installed_jax()}"
                )
            spec["indexing_mode"] = mode
        return (), spec

    return facade(cls, convert, name="BlockSpec")


def blocked_class() -> Any:
    """``pl.Blocked``: on releases where it is a block dimension (0.6.1 on), ``pl.Blocked()``
    with no size still means what it meant before, the default indexing mode, which the
    BlockSpec facade drops."""
    cls = native(PL, "Blocked")
    if cls is None:
        raise missing_name(PL, "Blocked")
    if (
        not isinstance(cls, type)
        or not dataclasses.is_dataclass(cls)
        or not dataclasses.fields(cls)
    ):
        return cls

    def old_mode(args: tuple[Any, ...], kwargs: dict[str, Any]) -> BlockedMode | None:
        if args or kwargs:
            return None
        warn_once(
            "blocked_mode",
            "pl.Blocked() is the indexing mode of JAX 0.4.31-0.6.0 (the default); leave "
            "indexing_mode= out. From 0.6.1 pl.Blocked(block_size) is a block dimension",
        )
        return blocked

    return facade(cls, lambda args, kwargs: (args, kwargs), name="Blocked", instead=old_mode)


def to_elements(shape: Any, padding: Any, element: Any) -> tuple[Any, ...]:
    warn_once(
        "unblocked",
        "BlockSpec(indexing_mode=pl.Unblocked(padding)) was removed in JAX 0.6.1; write "
        "pl.Element(block_size, (low, high)) for each dimension of block_shape",
    )
    pads = padding or ((0, 0),) * len(shape)
    return tuple(element(size, tuple(pad)) for size, pad in zip(shape, pads, strict=True))


def from_new_dims(shape: Any, mode: Any, unblocked_cls: Any) -> tuple[tuple[Any, ...], Any]:
    """Squeezed -> None; all-Element block shapes -> Unblocked indexing (before 0.6.1)."""
    dims = tuple(None if isinstance(d, Squeezed) else d for d in shape)
    elements = [isinstance(d, Element) for d in dims]
    if not any(elements):
        return dims, mode
    if not all(elements) or unblocked_cls is None:
        raise RefusedArgumentError(
            f"block_shape={shape!r} mixes pl.Element with other dimensions, which JAX "
            f"{installed_jax()} cannot express (before 0.6.1 a whole BlockSpec is blocked or "
            "unblocked); use pl.Element for every dimension or upgrade JAX"
        )
    given = [d for d in dims if isinstance(d, Element)]  # every one, as checked above
    padding = tuple(tuple(d.padding) for d in given)
    unpadded = all(p == (0, 0) for p in padding)
    return tuple(d.block_size for d in given), unblocked_cls(None if unpadded else padding)
