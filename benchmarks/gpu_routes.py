"""JAX 0.4.30's own Triton kernels and JAX 0.6.2's Mosaic GPU flash attention on the installed
JAX, by each route, against the installed release's shipped kernel, XLA and (for attention)
cuDNN: timed side by side on a GPU.

    python benchmarks/gpu_routes.py [--repeat 50] [--check]

Workloads: flash attention forward and forward+backward (batch 4, sequence 2048, 16 heads,
head dim 64, bfloat16, causal), softmax and layer norm (8192 rows of 4096, float32), and the
Mosaic GPU (Hopper) flash attention forward of JAX 0.6.2 (batch 1, sequence 4096, 16 heads,
head dim 128, float16, not causal: its authors' own benchmark; issue 42). Contenders: the old
file through ``patch()``, through the shim's imports and after ``migrate`` (the corpus's own
preparation of each route), the installed release's shipped kernel where it still ships one,
XLA, and cuDNN. Each contender is jitted and warmed, then timed in turns
(one call each, round robin, ``--repeat`` rounds) so that clocks and load hit all alike; the
table gives the median and the ratio to the migrated code. Target (issues 42 and 43): the
routes within 1.05x of each other and of the migrated code. Without a GPU it says so and exits 0;
``--check`` builds every contender and lowers it for CUDA instead (a CPU machine's check
that the script itself works; it times nothing).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

OLD = "0.4.30"
#: The release of the Mosaic GPU attention the issue names (its Hopper flash attention).
OLD_MOSAIC_GPU = "0.6.2"
ROUTES = ("patch", "shim", "migrate")
TARGET = 1.05


def old_module(name: str, route: str, work: Path, release: str = OLD) -> Any:
    """JAX ``release``'s ``gpu/<name>.py`` as ``route`` prepares it (the corpus's
    preparation)."""
    import jax
    from fetch_ops import default_cache

    from kernels.corpus._package import Tree
    from kernels.corpus._run import load

    ops = default_cache() / "ops" / release
    if not ops.is_dir():
        raise SystemExit(f"{ops}: not fetched (python scripts/fetch_ops.py --releases {release})")
    tag = f"gpu_routes_{name}_{release.replace('.', '_')}_{route}"
    return load(Tree(ops, written_for=release), f"gpu/{name}.py", route, jax.__version__, work, tag)


def shipped(name: str) -> Any:
    """The installed release's own ``ops/gpu/<name>.py``, or None where it no longer ships."""
    import importlib
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 0.11 deprecates them, pointing to tokamax
        try:
            return importlib.import_module(f"jax.experimental.pallas.ops.gpu.{name}")
        except ImportError:
            return None


def workloads(work: Path) -> dict[str, tuple[tuple[Any, ...], dict[str, Callable[..., Any]]]]:
    """name -> (arguments, contender -> function of them)."""
    import jax
    import jax.numpy as jnp

    import pallas_compat

    key = jax.random.PRNGKey(0)
    qkv = tuple(
        jax.random.normal(k, (4, 2048, 16, 64), jnp.bfloat16) for k in jax.random.split(key, 3)
    )
    x = jax.random.normal(key, (8192, 4096), jnp.float32)
    w, b = jnp.ones((4096,), jnp.float32), jnp.zeros((4096,), jnp.float32)
    scale = 64**-0.5

    def xla_attention(implementation: str) -> Callable[..., Any]:
        def attend(q: Any, k: Any, v: Any) -> Any:
            return jax.nn.dot_product_attention(
                q, k, v, scale=scale, is_causal=True, implementation=implementation
            )

        return attend

    def layer_norm_xla(x: Any, w: Any, b: Any) -> Any:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) * jax.lax.rsqrt(var + 1e-5) * w + b

    def grad_of(forward: Callable[..., Any]) -> Callable[..., Any]:
        return jax.grad(lambda q, k, v: forward(q, k, v).astype(jnp.float32).sum(), (0, 1, 2))

    attention, softmax, layer_norm, hopper = {}, {}, {}, {}
    hopper_qkv = tuple(
        jax.random.normal(k, (1, 4096, 16, 128), jnp.float16) for k in jax.random.split(key, 3)
    )
    for route in ROUTES:
        if route == "patch":
            pallas_compat.patch()
        try:
            mha = old_module("attention", route, work).mha
            attention[route] = lambda q, k, v, f=mha: f(q, k, v, None, sm_scale=scale, causal=True)
            softmax[route] = old_module("softmax", route, work).softmax
            layer_norm[route] = old_module("layer_norm", route, work).layer_norm
            hopper[route] = mosaic_gpu_attention(
                old_module("attention_mgpu", route, work, OLD_MOSAIC_GPU)
            )
        finally:
            pallas_compat.unpatch()
    own = {name: shipped(name) for name in ("attention", "softmax", "layer_norm")}
    if own["attention"] is not None:
        mha_now = own["attention"].mha
        attention["shipped"] = lambda q, k, v: mha_now(q, k, v, None, sm_scale=scale, causal=True)
    if own["softmax"] is not None:
        softmax["shipped"] = own["softmax"].softmax
    if own["layer_norm"] is not None:
        layer_norm["shipped"] = own["layer_norm"].layer_norm
    if (own_hopper := shipped("attention_mgpu")) is not None:
        hopper["shipped"] = mosaic_gpu_attention(own_hopper)

    def unscaled(implementation: str) -> Callable[..., Any]:  # the Mosaic GPU kernel's scale 1
        return lambda q, k, v: jax.nn.dot_product_attention(
            q, k, v, scale=1.0, implementation=implementation
        )

    hopper |= {"XLA": unscaled("xla"), "cuDNN": unscaled("cudnn")}
    attention |= {"XLA": xla_attention("xla"), "cuDNN": xla_attention("cudnn")}
    softmax["XLA"] = lambda x: jax.nn.softmax(x, axis=-1)
    layer_norm["XLA"] = layer_norm_xla
    both = {name: grad_of(f) for name, f in attention.items()}
    return {
        "attention forward": (qkv, attention),
        "attention forward+backward": (qkv, both),
        "softmax": ((x,), softmax),
        "layer norm": ((x[None], w, b), layer_norm),  # [batch, rows, features]
        "Mosaic GPU attention forward": (hopper_qkv, hopper),
    }


def mosaic_gpu_attention(module: Any) -> Callable[..., Any]:
    """A Mosaic GPU ``attention_mgpu.attention`` at its authors' benchmark setting (block_q
    64, block_kv 128, two steps in flight, not causal)."""
    config = module.TuningConfig(block_q=64, block_kv=128, max_concurrent_steps=2)
    return lambda q, k, v: module.attention(q, k, v, config)


def patched(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """The patch route runs with ``patch()`` on while it traces, as a user's program would."""
    import pallas_compat

    if name != "patch":
        return fn

    def call(*args: Any) -> Any:
        pallas_compat.patch()
        try:
            return fn(*args)
        finally:
            pallas_compat.unpatch()

    return call


def check(name: str, contenders: dict[str, Callable[..., Any]], args: tuple[Any, ...]) -> None:
    """Lower every contender for CUDA on this machine: the script's own check, no timing."""
    import jax

    import pallas_compat

    shapes = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in args]
    for who, fn in contenders.items():
        try:
            text = pallas_compat.lower(
                patched(who, fn), *shapes, platform="cuda", chip="NVIDIA H100 80GB HBM3"
            )
            verdict = "lowers" if "custom_call" in text or who in ("XLA", "cuDNN") else "no kernel"
        except Exception as exc:
            verdict = f"does not lower here: {type(exc).__name__}: {str(exc).splitlines()[0][:90]}"
        print(f"{name:28} {who:8} {verdict}")


def timed(
    contenders: dict[str, Callable[..., Any]], args: tuple[Any, ...], repeat: int
) -> dict[str, float | str]:
    """Median milliseconds per contender, one call of each per round."""
    import jax

    jitted: dict[str, Callable[..., Any]] = {}
    result: dict[str, float | str] = {}
    for who, fn in contenders.items():
        try:
            call = jax.jit(patched(who, fn))
            jax.block_until_ready(call(*args))  # compile and warm
            jitted[who] = call
        except Exception as exc:
            result[who] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:60]}"
    samples: dict[str, list[float]] = {who: [] for who in jitted}
    for _ in range(repeat):
        for who, call in jitted.items():
            start = time.perf_counter()
            jax.block_until_ready(call(*args))
            samples[who].append((time.perf_counter() - start) * 1000)
    return result | {who: statistics.median(ms) for who, ms in samples.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=50, help="timed rounds (default 50)")
    parser.add_argument(
        "--check", action="store_true", help="lower every contender for CUDA, time nothing"
    )
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    import jax

    from kernels.corpus._mode import gpu_device

    device = gpu_device()
    if device is None and not args.check:
        print(f"no GPU: skipped (JAX {jax.__version__} sees none; --check lowers for CUDA)")
        return 0
    from kernels._compile import GPU_KIND
    from kernels.corpus._mosaic_gpu import as_if_on_gpu

    with (
        tempfile.TemporaryDirectory(prefix="gpu-routes-") as work,
        as_if_on_gpu(GPU_KIND),  # --check on a CPU: the Mosaic GPU kernels ask which GPU
    ):
        loads = workloads(Path(work))
        if args.check:
            for name, (inputs, contenders) in loads.items():
                check(name, contenders, inputs)
            return 0
        print(f"{device}, JAX {jax.__version__}, median of {args.repeat} (ms; x migrate)")
        worst = 1.0
        for name, (inputs, contenders) in loads.items():
            times = timed(contenders, inputs, args.repeat)
            base = times.get("migrate")
            cells = []
            for who, ms in times.items():
                if isinstance(ms, str):
                    cells.append(f"{who} {ms}")
                    continue
                ratio = ms / base if isinstance(base, float) else float("nan")
                if who in ROUTES:
                    worst = max(worst, ratio, 1 / ratio)
                cells.append(f"{who} {ms:.3f} ({ratio:.2f}x)")
            print(f"{name:28} " + "; ".join(cells))
        verdict = "met" if worst <= TARGET else "not met"
        print(f"routes within {worst:.3f}x of the migrated code (target {TARGET}x): {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
