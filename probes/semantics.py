"""Changes of meaning that no spelling fixes: the same code, a different program.

Each probe records what it observed and a ``summary`` in words; the report groups releases by
summary. Nothing here is translated by the shim or by ``migrate``: users must read these.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import re
import warnings
from typing import Any

from probes._observe import error_record
from probes._pallas import block_spec
from probes._registry import probe

#: Where a pipeline input lives, as written in its BlockSpec (None: not written).
SPEC_SPACES = (None, "VMEM", "SMEM", "ANY")


def tpu_target() -> contextlib.AbstractContextManager[Any]:
    """From 0.11 a TPU lowering on a CPU host must name its chip through an abstract mesh."""
    import jax
    from jax._src import mesh

    device = getattr(mesh, "AbstractDevice", None)
    if device is None or "platform" not in inspect.signature(device).parameters:
        return contextlib.nullcontext()
    chip = device(device_kind="TPU v5 lite", num_cores=1, platform="tpu")
    return jax.sharding.use_abstract_mesh(
        jax.sharding.AbstractMesh((1,), ("x",), abstract_device=chip)
    )


@probe("behaviours.kernel_ref_aliasing")
def kernel_ref_aliasing() -> dict[str, Any]:
    """``pl.kernel`` on two refs passed in, one only read, one written (copied into): which
    does the TPU program alias in and out? (0.11.0's changelog: only refs the kernel writes.)"""
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu

    if not hasattr(pl, "kernel") or not hasattr(jax, "new_ref"):
        return {"summary": "n/a: no pl.kernel taking refs (pl.kernel and jax.new_ref)"}
    with warnings.catch_warnings():  # deprecated for pltpu.TensorCoreMesh in 0.12; same mesh
        warnings.simplefilter("ignore", DeprecationWarning)
        mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)
    out = "out_type" if "out_type" in inspect.signature(pl.kernel).parameters else "out_shape"

    def body(read_ref: Any, written_ref: Any) -> None:
        pltpu.sync_copy(read_ref, written_ref)

    def program(x: Any, y: Any) -> Any:
        read, written = jax.new_ref(x), jax.new_ref(y)
        pl.kernel(body, mesh=mesh, **{out: ()})(read, written)
        return read[...], written[...]

    shape = jax.ShapeDtypeStruct((8, 128), jnp.float32)
    try:
        with tpu_target():
            text = jax.jit(program).trace(shape, shape).lower(lowering_platforms=("tpu",)).as_text()
    except Exception as exc:
        return {"summary": "could not lower on this host", "error": error_record(exc)}
    calls = [line for line in text.splitlines() if "tpu_custom_call" in line]
    if not calls:
        return {"kernel_in_program": False, "summary": "the kernel is dropped: its writes are lost"}
    names = {"0": "read-only ref", "1": "written ref"}
    aliased = [names[i] for i in re.findall(r"operand_index = (\d+)", calls[0]) if i in names]
    summary = "aliases " + (" and ".join(aliased) if aliased else "no ref")
    return {"kernel_in_program": True, "aliased": aliased, "summary": summary}


@probe("behaviours.pipeline_buffers")
def pipeline_buffers() -> dict[str, Any]:
    """The window ``emit_pipeline`` allocates for an input block, by the memory space its
    BlockSpec names: where it lives and how many buffers (the double-buffering default)."""
    import jax.numpy as jnp
    from jax._src.pallas.mosaic import pipeline
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu

    spaces = {
        "VMEM": pltpu.VMEM,
        "SMEM": pltpu.SMEM,
        "ANY": getattr(pl, "ANY", None) or pltpu.TPUMemorySpace.ANY,
    }
    spec = block_spec((8, 128), lambda i: (i, 0))
    record: dict[str, Any] = {}
    for space in SPEC_SPACES:
        written = spec if space is None else dataclasses.replace(spec, memory_space=spaces[space])
        try:
            buffered = pipeline.BufferedRef.input(written, jnp.float32)
        except Exception as exc:
            record[str(space)] = f"refused: {error_record(exc)['message'].splitlines()[0]}"
            continue
        window = getattr(buffered, "window_ref", getattr(buffered, "vmem_ref", None))
        if window is None:
            record[str(space)] = "no window: used in place, not pipelined"
        else:
            where = str(getattr(window, "memory_space", "?")).split(".")[-1].upper()
            record[str(space)] = f"{window.shape[0]} x {where} window"
    record["summary"] = "; ".join(
        f"{'unset' if s is None else s}: {record[str(s)]}" for s in SPEC_SPACES
    )
    return record


@probe("behaviours.cost_analysis_shape")
def cost_analysis_shape() -> dict[str, Any]:
    """What ``jax.jit(f).lower(x).compile().cost_analysis()`` returns: old TPU kernels index
    it as a list (``[0]["flops"]``) to build their ``CostEstimate``."""
    import jax

    cost = jax.jit(lambda x: x + 1).lower(1.0).compile().cost_analysis()
    if isinstance(cost, list | tuple):
        shape = f"a {type(cost).__name__} of {len(cost)} {type(cost[0]).__name__}"
    else:
        shape = f"one {type(cost).__name__}"
    return {"returns": shape, "summary": f"Compiled.cost_analysis() returns {shape}"}
