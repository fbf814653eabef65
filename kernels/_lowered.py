"""One lowering for programs that are the same, in one process: the routes of a corpus case
(as shipped, patched, through the shim's imports, migrated) trace one kernel to jaxprs that
differ only in debug information (the path of each route's copy of the file), and JAX keys
its lowering cache by the jaxpr object, so it lowers each again: a third of a corpus session.

Here a lowering is keyed by the jaxpr's structure instead: its equations in order (primitive,
parameters, variables renumbered by first appearance, abstract values, effects, context), its
constants by value, and the other arguments of JAX's ``_cached_lowering_to_hlo`` (platform,
shardings, devices, ...) as JAX's own cache compares them. Left out is only what JAX itself
uses for messages and locations: the ``DebugInfo`` of a jaxpr and the source of a Pallas
kernel (``NameAndSrcInfo``, its name kept), so a shared module names the first route's file in
its locations, as JAX's per-equation cache already does inside one module. A parameter that
cannot be hashed leaves its program unshared.

A lowering's host callbacks come with it. One a kernel makes itself (``io_callback``, a debug
print) is a parameter of its equation, keyed as the object it is, so one route's never stands
for another's. Those the TPU simulator's lowering rule makes are JAX's own functions of the
keyed parameters, apart from the source they keep for race reports (left out, as above): a
shared simulator program is the one the second route would have built, and JAX's own cache
compiles it once. Entries live in memory, the last ``KEPT`` of them: a case's routes run one
after another.
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import functools
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

#: How many lowerings the process asked for, and how many of them were shared.
counts = {"asked": 0, "shared": 0}
#: The lowerings kept for programs to come.
KEPT = 64
#: Debug information, left out of the key (JAX keeps it for messages and locations).
DEBUG_TYPES = frozenset({"DebugInfo", "JaxprDebugInfo"})


def add_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-shared-lowerings",
        action="store_true",
        help="lower every program the routes trace, even one lowered before in this run",
    )


def configure(args: argparse.Namespace) -> None:
    if not args.no_shared_lowerings:
        share_lowerings()


def share_lowerings() -> None:
    """Wrap ``pxla._cached_lowering_to_hlo``, which every jit lowering of every release in the
    matrix goes through (``lower_sharding_computation`` calls it through the module)."""
    from jax._src.interpreters import pxla

    if not getattr(pxla._cached_lowering_to_hlo, "shares_programs", False):
        pxla._cached_lowering_to_hlo = sharing(pxla._cached_lowering_to_hlo)


def sharing(lower: Callable[..., Any]) -> Callable[..., Any]:
    kept: OrderedDict[Hashable, Any] = OrderedDict()

    @functools.wraps(lower)
    def shared(*args: Any, **kwargs: Any) -> Any:
        counts["asked"] += 1
        try:
            key = lowering_key(args, kwargs)
            hash(key)
        except Exception:  # an unhashable parameter, or a jaxpr of a shape not known here
            return lower(*args, **kwargs)
        if key in kept:
            counts["shared"] += 1
            kept.move_to_end(key)
            return kept[key]
        kept[key] = lowered = lower(*args, **kwargs)
        if len(kept) > KEPT:
            kept.popitem(last=False)
        return lowered

    shared.shares_programs = True  # type: ignore[attr-defined]
    return shared


def lowering_key(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Hashable:
    """The arguments of one lowering, the jaxpr among them by structure."""
    keyer = Keyer()
    return (
        tuple(keyer.key(a) for a in args),
        tuple(sorted((name, keyer.key(v)) for name, v in kwargs.items())),
    )


class Keyer:
    """Keys for the values of one lowering; variables numbered as first met, one numbering
    for the whole program (an inner jaxpr is closed, so its own numbers would do as well)."""

    def __init__(self) -> None:
        self.numbers: dict[Any, int] = {}

    def key(self, x: Any) -> Hashable:
        import jax
        from jax._src import core, effects

        kind = type(x)
        if kind.__name__ in DEBUG_TYPES:
            return "debug information"
        if kind.__name__ == "NameAndSrcInfo":
            return ("kernel", x.name)
        if isinstance(x, (float, complex)):
            return (kind, repr(x))  # 0.0 == -0.0, and a literal of either lowers apart
        if isinstance(x, (type(None), bool, int, str, bytes)):
            return (kind, x)
        closed = getattr(core, "ClosedJaxpr", None)  # from JAX 0.11 a Jaxpr has its consts
        if closed is not None and isinstance(x, closed):
            return ("closed", self.jaxpr(x.jaxpr), tuple(self.key(c) for c in x.consts))
        if isinstance(x, core.Jaxpr):
            return self.jaxpr(x)
        if isinstance(x, (np.ndarray, np.generic)):
            return (kind, x.dtype, x.shape, np.ascontiguousarray(x).tobytes())
        if isinstance(x, (tuple, list)):
            return (kind, tuple(self.key(e) for e in x))
        if isinstance(x, dict):
            return (kind, tuple(sorted((k, self.key(v)) for k, v in x.items())))
        if isinstance(x, (set, frozenset)):
            return (kind, frozenset(self.key(e) for e in x))
        if isinstance(x, (np.dtype, enum.Enum, core.AbstractValue, core.Primitive)):
            return x
        if isinstance(x, core.Var):
            return self.var(x)
        if isinstance(x, effects.Effect) and hasattr(x, "__dict__"):
            # a ref's read or write names its input by variable on newer releases
            return (kind, tuple(sorted((k, self.key(v)) for k, v in vars(x).items())))
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            fields = dataclasses.fields(x)
            return (kind, tuple((f.name, self.key(getattr(x, f.name))) for f in fields))
        if not isinstance(x, core.Tracer) and (
            isinstance(x, jax.Array) or (hasattr(x, "__array__") and hasattr(x, "dtype"))
        ):
            return (kind, self.key(np.asarray(x)))  # a constant (or 0.7's literal), by value
        hash(x)  # anything else as JAX's cache compares it (unhashable: left unshared)
        return (kind, x)

    def var(self, v: Any) -> Hashable:
        from jax._src import core

        if isinstance(v, core.Literal):
            return ("literal", self.key(v.val), v.aval)
        if isinstance(v, core.DropVar):
            return ("dropped", v.aval)
        return (self.numbers.setdefault(v, len(self.numbers)), v.aval)

    def jaxpr(self, jaxpr: Any) -> Hashable:
        constvars = tuple(self.var(v) for v in jaxpr.constvars)
        invars = tuple(self.var(v) for v in jaxpr.invars)
        eqns = tuple(
            (
                eqn.primitive,
                tuple(sorted((name, self.key(p)) for name, p in eqn.params.items())),
                tuple(self.var(v) for v in eqn.invars),
                tuple(self.var(v) for v in eqn.outvars),
                self.key(eqn.effects),
                self.context(getattr(eqn, "ctx", None)),
            )
            for eqn in jaxpr.eqns
        )
        return (
            "jaxpr",
            constvars,
            invars,
            eqns,
            tuple(self.var(v) for v in jaxpr.outvars),
            self.key(jaxpr.effects),
            getattr(jaxpr, "is_high", False),
            tuple(self.key(c) for c in getattr(jaxpr, "consts", ())),
        )

    def context(self, ctx: Any) -> Hashable:
        """An equation's context (compute type, threefry mode, mesh, ...), by its public
        attributes: on older releases it compares by identity."""
        if ctx is None:
            return None
        slots = getattr(type(ctx), "__slots__", None)
        attributes = {s: getattr(ctx, s, None) for s in slots} if slots else vars(ctx)
        return tuple(
            sorted((k, self.key(v)) for k, v in attributes.items() if not k.startswith("_"))
        )
