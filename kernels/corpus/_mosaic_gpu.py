"""Mosaic GPU kernels on a machine without a GPU: the interpreter where the release has one,
and the device's answers stood in while a kernel loads, runs and lowers.

JAX's Mosaic GPU kernels ask the machine what GPU it has: they size their grids by its
streaming multiprocessors (``backend.get_default_device().core_count``, ``jax.devices()[0].
core_count``) and refuse to start without CUDA (``assert cuda_versions is not None``, which is
``None`` in a CPU-only jaxlib). Lowered for an abstract H100 on a CPU machine, they get that
GPU's answers: 132 SMs and the CUDA runtime 12.9.1 their authors ask for (12.8.0-12.9.0
miscompile causal masks). On a machine with a GPU nothing is stood in.

A Mosaic GPU kernel runs in ``plgpu.force_gpu_interpret_mode()`` (JAX 0.11.1 on), like the
TPU kernels in theirs. Where the release has no Mosaic GPU interpreter, or it cannot run the
kernel, the case's verdict is its lowering alone (``CorpusStatus.LOWERED_ONLY``).
"""

from __future__ import annotations

import contextlib
import importlib
import types
from collections.abc import Iterator
from typing import Any

from pallas_compat.shim._lower import GPU_CORES

#: The CUDA runtime the stand-in reports (``cuda_runtime_get_version``'s encoding).
CUDA_RUNTIME = 12091


class NotInterpreted(Exception):
    """No interpreter runs this Mosaic GPU kernel here: its verdict is its lowering's."""


class _Device:
    """A real (CPU) device that answers a GPU's questions; everything else is the device's."""

    def __init__(self, device: Any, kind: str) -> None:
        self._device = device
        self.device_kind = kind
        self.core_count = GPU_CORES[kind]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._device, name)


@contextlib.contextmanager
def as_if_on_gpu(kind: str) -> Iterator[None]:
    """While the block runs, a CPU-only JAX answers as GPU ``kind`` would (see the module's
    docstring); with a GPU present, as it is. A release without one of the places asked
    (``backend.get_default_device`` came in 0.4.36) keeps it missing."""
    import jax
    import jax.extend.backend as backend
    from jax._src import lib

    if jax.devices()[0].platform == "gpu":
        yield
        return
    real_devices, default = jax.devices, getattr(backend, "get_default_device", None)
    saved = [(jax, "devices", real_devices), (lib, "cuda_versions", lib.cuda_versions)]

    def devices(*args: Any, **kwargs: Any) -> list[Any]:
        return [_Device(d, kind) for d in real_devices(*args, **kwargs)]

    jax.devices = devices
    if lib.cuda_versions is None:
        lib.cuda_versions = types.SimpleNamespace(cuda_runtime_get_version=lambda: CUDA_RUNTIME)
    if default is not None:
        saved.append((backend, "get_default_device", default))
        backend.get_default_device = lambda: _Device(default(), kind)
    try:
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


def since_when() -> str:
    """``plgpu.force_gpu_interpret_mode: JAX 0.11.1 on``, from the release scan."""
    from pallas_compat.facts import describe, release_ranges

    key = "jax.experimental.pallas.mosaic_gpu:force_gpu_interpret_mode"
    return f"plgpu.force_gpu_interpret_mode: JAX {describe(release_ranges()['names'][key]['releases'])}"


def interpreter(why_not: str | None) -> contextlib.AbstractContextManager[Any]:
    """Where a Mosaic GPU kernel's call runs: compiled (lowered, or on a GPU) as it is; else
    in the release's Mosaic GPU interpreter. Raises ``NotInterpreted`` where the release has
    none, or where the case says why the interpreter cannot run it (``why_not``)."""
    from kernels.corpus._compiles import compiling

    if compiling():
        return contextlib.nullcontext()
    try:  # no Mosaic GPU at all before 0.4.35 (nor its bindings in 0.4.30's jaxlib)
        plgpu = importlib.import_module("jax.experimental.pallas.mosaic_gpu")
    except ImportError:
        plgpu = None
    force = getattr(plgpu, "force_gpu_interpret_mode", None)
    if force is None:
        raise NotInterpreted(f"this JAX has no Mosaic GPU interpreter ({since_when()})")
    if why_not:
        raise NotInterpreted(why_not)
    return force()  # type: ignore[no-any-return]
