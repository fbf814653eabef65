"""Where the real-kernel corpora run their cases (``--mode``): ``interpret``, the default, in
the interpreters on any machine, each case also lowered for its hardware; ``gpu``, compiled
and run on the GPU JAX sees, the GPU-style cases only, every route, at each case's stated
matmul precision (the results name the device and go apart from the machine-independent
goldens, ``reports/gpu/``); or ``tpu_compile``, opt-in where libtpu is installed: the
TPU-style cases as by default, and each also compiled with no TPU attached for TPU v4, v5e,
v5p and v6e (``nox -s tpu_compile``)."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator

from common import UsageError

MODES = ("interpret", "gpu", "tpu_compile")


def add_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--mode",
        choices=MODES,
        default="interpret",
        help="interpret: the interpreters, plus a lowering verdict per case (default); gpu: "
        "the GPU cases compiled and run on this machine's GPU; tpu_compile: the TPU cases also "
        "compiled per TPU chip with libtpu (jax[tpu])",
    )


def gpu_device() -> str | None:
    """The device kind of the GPU JAX sees (``NVIDIA H200``), or None."""
    import jax

    try:
        devices = jax.devices("gpu")
    except RuntimeError:  # "Unknown backend gpu" / no CUDA or ROCm plugin
        return None
    return devices[0].device_kind if devices else None


def configure(args: argparse.Namespace) -> dict[str, str]:
    """What the results document says of the run's mode; one line and exit 2 for ``gpu`` on a
    machine without one."""
    if args.mode == "tpu_compile":
        from kernels._compile import libtpu_missing

        missing = libtpu_missing()
        if missing:
            raise UsageError(f"--mode tpu_compile: {missing}")
        return {"mode": "tpu_compile"}
    if args.mode != "gpu":
        return {}
    device = gpu_device()
    if device is None:
        raise UsageError("--mode gpu: no GPU here (JAX sees none); run it where one is")
    return {"mode": "gpu", "device": device}


def wanted(hardware: str, mode: str) -> bool:
    """Does a case written for ``hardware`` run in ``mode``?"""
    return {"gpu": hardware == "GPU", "tpu_compile": hardware == "TPU"}.get(mode, True)


@contextlib.contextmanager
def compiled_on_gpu(precision: str) -> Iterator[None]:
    """Every ``pallas_call`` compiled for the GPU (``interpret`` off, the case's interpreter
    contexts aside), float32 products at ``precision`` (Triton's default is TF32). JAX's
    caches are cleared first: a program it lowered for the interpreter must not stand in."""
    import jax

    from kernels.corpus._compiles import interpret_off

    jax.clear_caches()
    with interpret_off(), jax.default_matmul_precision(precision):
        yield
