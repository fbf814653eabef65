"""A real kernel lowered for the hardware it was written for, ``interpret`` off, on this CPU
machine: what the interpreters cannot see (Triton's and Mosaic's unimplemented primitives,
a block shape a backend refuses, a parameter it cannot hash).

A case's entry point is called exactly as for its interpreter verdict, inside ``jax.jit``,
and lowered for CUDA or TPU on an abstract device (``pallas_compat.lower``'s). Every
``pallas_call`` it traces lowers as if ``interpret`` were off, whatever the case or a context
(``force_tpu_interpret_mode``) asked for: the interpreter is the harness's choice, not the
kernel's. A case's own interpreter contexts stand aside while it lowers (``compiling()``):
the TPU simulator, chosen when the call is traced, leaves callbacks in the program. The
lowered program must hold the backend's kernel call, so a kernel that slipped back into an
interpreter is never counted as compiled.
"""

from __future__ import annotations

import contextlib
import contextvars
import warnings
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

from common import LoweringStatus
from kernels._compile import GPU_KIND
from pallas_compat.shim._lower import target_device

#: The platform JAX lowers for, and the device it names, per kind of kernel (the chapter's
#: kernels lower for the same: ``gpu_lower``'s device kind, ``tpu_lower``'s chip).
PLATFORMS = {"GPU": ("cuda", GPU_KIND), "TPU": ("tpu", "v5e")}
#: A lowered program's kernel call -> the backend that compiled the kernel.
KERNEL_CALLS = {
    "__gpu$xla.gpu.triton": "Triton",
    "mosaic_gpu": "Mosaic GPU",
    "tpu_custom_call": "Mosaic TPU",
}


_COMPILING = contextvars.ContextVar("compiling", default=False)


def compiling() -> bool:
    """Is a case's call being traced to lower for hardware? Then it enters no interpreter."""
    return _COMPILING.get()


@contextlib.contextmanager
def interpret_off() -> Iterator[None]:
    """Every ``pallas_call`` lowered in the block lowers for its hardware, as with
    ``interpret=False``: the primitive's lowering rule (one rule on every release of the
    matrix, dispatching on the platform) is called with ``interpret=False``."""
    from jax._src.interpreters import mlir
    from jax._src.pallas.pallas_call import pallas_call_p

    entry = mlir._lowerings[pallas_call_p]
    rule = getattr(entry, "rule", entry)  # a LoweringRuleEntry from JAX 0.5 on

    def compiled(ctx: Any, *args: Any, interpret: Any = False, **params: Any) -> Any:
        return rule(ctx, *args, interpret=False, **params)

    mlir.register_lowering(pallas_call_p, compiled)
    token = _COMPILING.set(True)
    try:
        yield
    finally:
        _COMPILING.reset(token)
        mlir._lowerings[pallas_call_p] = entry


def lowered_text(run: Callable[[], Any], hardware: str, device: str | None = None) -> str:
    """``run`` traced under ``jax.jit`` and lowered for ``hardware`` (its default device, or
    ``device``), as StableHLO text."""
    import jax

    platform, default = PLATFORMS[hardware]
    device = device or default
    # What the interpreter run left in JAX's caches (a library's own jitted function traced
    # with the shim's TPU interpreter before 0.7, which no config state keys) must not stand in.
    jax.clear_caches()

    # A GPU kernel is traced on the abstract GPU: from 0.11 tracing asks which GPU it is. A
    # TPU kernel is traced on this machine and only lowered on the abstract TPU: some compile
    # a cost estimate of their own while they trace (0.4.35's flash attention), which needs a
    # real device, as it has on a TPU.
    def on_device(step: str) -> contextlib.AbstractContextManager[None]:
        wanted = step == ("trace" if hardware == "GPU" else "lower")
        return target_device(platform, device) if wanted else contextlib.nullcontext()

    with interpret_off(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with on_device("trace"):
            traced = jax.jit(run).trace()
        with on_device("lower"):
            return str(traced.lower(lowering_platforms=(platform,)).as_text())


def lowering(
    run: Callable[[ModuleType], Any],
    module: ModuleType,
    hardware: str,
    describe: Callable[[BaseException], dict[str, str]],
    device: str | None = None,
) -> dict[str, Any]:
    """The ``lowered`` part of a record: ``for`` (GPU or TPU), ``status``, and the backend that
    compiled the kernel or, where it failed, ``describe(exc)`` (first line, whose)."""
    try:
        text = lowered_text(lambda: run(module), hardware, device)
    except Exception as exc:
        return {"for": hardware, "status": LoweringStatus.FAILS, **describe(exc)}
    backends = sorted({name for call, name in KERNEL_CALLS.items() if call in text})
    if not backends:
        detail = "the lowered program calls no GPU or TPU kernel (it ran an interpreter)"
        return {"for": hardware, "status": LoweringStatus.FAILS, "detail": detail}
    return {"for": hardware, "status": LoweringStatus.LOWERS, "by": ", ".join(backends)}


def compiled_per_chip(
    run: Callable[[ModuleType], Any],
    module: ModuleType,
    describe: Callable[[BaseException], dict[str, str]],
) -> dict[str, str]:
    """Opt-in (``--mode tpu_compile``, libtpu installed): the call compiled with no TPU
    attached for each chip the chapter's kernels compile for, which catches what lowering
    cannot (a VMEM budget the chip lacks): chip -> ``fits`` or why not."""
    import jax
    from jax.experimental import topologies
    from jax.sharding import SingleDeviceSharding

    from kernels._compile import TOPOLOGIES

    verdicts = {}
    for chip, topology in TOPOLOGIES.items():
        device = topologies.get_topology_desc(topology, "tpu").devices[0]
        placed = SingleDeviceSharding(device)
        try:
            with interpret_off(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                traced = jax.jit(lambda: run(module), out_shardings=placed).trace()
                with target_device("tpu", chip):
                    traced.lower(lowering_platforms=("tpu",)).compile()
        except Exception as exc:
            verdicts[chip] = f"does not compile: {describe(exc)['detail']}"
        else:
            verdicts[chip] = "fits"
    return verdicts
