"""The declarative table of Pallas API facts.

One table serves everything: the shim resolves names from it, the probes record where each
feature resolved, and the report and ``migrate`` read its hints. A feature lists the places it
may live, **oldest to newest**; the last place is the modern spelling.
"""

from __future__ import annotations

from dataclasses import dataclass

PL = "jax.experimental.pallas"
TPU = f"{PL}.tpu"
TRITON = f"{PL}.triton"
GPU_LEGACY = f"{PL}.gpu"
MOSAIC_GPU = f"{PL}.mosaic_gpu"

#: The aliases people (and the chapter) use for each Pallas module.
ALIASES: dict[str, str] = {
    PL: "pl",
    TPU: "pltpu",
    TRITON: "pltriton",
    MOSAIC_GPU: "plgpu",
}


@dataclass(frozen=True)
class Location:
    """One place a feature may live: ``module`` plus an attribute name."""

    module: str
    attr: str

    @classmethod
    def parse(cls, text: str) -> Location:
        module, _, attr = text.partition(":")
        return cls(module, attr)

    @property
    def private(self) -> bool:
        return "._src" in self.module or self.module.startswith("jax._src")

    @property
    def spelling(self) -> str:
        """How people write it: ``pltpu.CompilerParams``, or the full dotted path."""
        alias = ALIASES.get(self.module)
        return f"{alias}.{self.attr}" if alias else f"{self.module}.{self.attr}"


@dataclass(frozen=True)
class Feature:
    """A logical Pallas feature and every place it has lived."""

    key: str
    title: str
    locations: tuple[Location, ...]
    hint: str
    #: What old code wrote before any location existed (e.g. a dict form), if anything.
    fallback: str | None = None
    #: First JAX release with a public location (None: every release since 0.4.30). Found by
    #: scanning the Pallas sources of every release on PyPI from 0.4.30 to 0.12.0.1.
    since: str | None = None
    #: A private home of the *old* callable, same signature, after its public name went.
    backfill: Location | None = None

    @property
    def modern(self) -> Location:
        return self.locations[-1]


def _feature(
    key: str,
    title: str,
    places: str,
    hint: str,
    fallback: str | None = None,
    *,
    since: str | None = None,
    backfill: str | None = None,
) -> Feature:
    locations = tuple(Location.parse(p) for p in places.split())
    twin = Location.parse(backfill) if backfill else None
    return Feature(key, title, locations, hint, fallback, since, twin)


FEATURES: tuple[Feature, ...] = (
    # -- the core of pl: stable names, listed so that a removal would show up at once
    _feature(
        "pallas_call", "pallas_call", f"{PL}:pallas_call", "pl.pallas_call(kernel, out_shape, ...)"
    ),
    _feature(
        "block_spec",
        "BlockSpec",
        f"{PL}:BlockSpec",
        "pl.BlockSpec(block_shape, index_map): block shape first since JAX 0.4.31",
    ),
    _feature(
        "grid_spec",
        "GridSpec",
        f"jax._src.pallas.core:GridSpec {PL}:GridSpec",
        "pl.GridSpec(grid=..., in_specs=..., out_specs=...)",
    ),
    _feature("program_id", "program_id", f"{PL}:program_id", "pl.program_id(axis)"),
    _feature("num_programs", "num_programs", f"{PL}:num_programs", "pl.num_programs(axis)"),
    _feature("when", "when", f"{PL}:when", "@pl.when(cond) on a no-argument function"),
    _feature("cdiv", "cdiv", f"{PL}:cdiv", "pl.cdiv(a, b)"),
    _feature("ds", "dynamic slice", f"{PL}:ds", "x_ref[pl.ds(start, size)]"),
    _feature("debug_print", "debug_print", f"{PL}:debug_print", "pl.debug_print(fmt, *args)"),
    _feature(
        "cost_estimate",
        "CostEstimate",
        f"{PL}:CostEstimate",
        "pl.CostEstimate(flops=, transcendentals=, bytes_accessed=)",
        since="0.4.33",
    ),
    _feature(
        "squeezed",
        "Squeezed block dimension",
        f"{PL}:Squeezed",
        "pl.Squeezed() (or pl.squeezed, or None) as a block dimension",
        fallback="None as the block dimension",
        since="0.6.1",
    ),
    _feature(
        "squeezed_marker",
        "squeezed marker",
        f"{PL}:squeezed",
        "pl.squeezed as a block dimension",
        fallback="None as the block dimension",
        since="0.6.1",
    ),
    _feature(
        "compiler_params_base",
        "CompilerParams base class",
        f"{PL}:CompilerParams",
        "subclass of the backend CompilerParams dataclasses",
        since="0.4.33",
    ),
    _feature(
        "kernel",
        "kernel (core_map)",
        f"{PL}:core_map {PL}:kernel",
        "pl.kernel(...)",
        since="0.4.35",
    ),
    # -- TPU (Mosaic)
    _feature(
        "tpu_compiler_params",
        "TPU compiler params",
        f"{TPU}:TPUCompilerParams {TPU}:CompilerParams",
        "pltpu.CompilerParams(dimension_semantics=..., vmem_limit_bytes=...)",
        fallback='compiler_params={"mosaic": {...}}',
        since="0.4.33",
    ),
    _feature(
        "tpu_memory_space",
        "TPU memory space enum",
        f"{TPU}:TPUMemorySpace {TPU}:MemorySpace",
        "pltpu.MemorySpace",
    ),
    _feature("vmem", "VMEM scratch", f"{TPU}:VMEM", "pltpu.VMEM(shape, dtype)"),
    _feature("smem", "SMEM scratch", f"{TPU}:SMEM", "pltpu.SMEM(shape, dtype)"),
    _feature(
        "tpu_simulator",
        "TPU simulator (interpret params)",
        "jax._src.pallas.mosaic.interpret:TPUInterpretParams "
        "jax._src.pallas.mosaic.interpret:InterpretParams "
        f"{TPU}:InterpretParams",
        "interpret=pltpu.InterpretParams(...)",
        since="0.6.2",
    ),
    _feature(
        "tpu_simulator_reset",
        "reset the TPU simulator after it raised",
        "jax._src.pallas.mosaic.interpret:reset_tpu_interpret_mode_state "
        f"{TPU}:reset_tpu_interpret_mode_state",
        "pltpu.reset_tpu_interpret_mode_state()",
        since="0.7.0",
    ),
    _feature(
        "grid_dimension_semantics",
        "grid dimension semantics enum",
        f"{TPU}:GridDimensionSemantics",
        'pltpu.GridDimensionSemantics, or "parallel"/"arbitrary"',
        fallback='the strings "parallel" and "arbitrary"',
        since="0.5.3",
    ),
    _feature(
        "chip_version",
        "TPU chip version enum",
        f"jax._src.pallas.mosaic.tpu_info:ChipVersion {TPU}:ChipVersion",
        "pltpu.ChipVersion.TPU_V5E",
        since="0.8.1",
    ),
    _feature(
        "tpu_info",
        "TPU hardware table",
        f"jax._src.pallas.mosaic.tpu_info:get_tpu_info_for_chip {TPU}:get_tpu_info_for_chip",
        "pltpu.get_tpu_info_for_chip(pltpu.ChipVersion.X, 1)",
        since="0.9.2",
    ),
    _feature(
        "tpu_reciprocal",
        "approximate reciprocal",
        f"{PL}:reciprocal {TPU}:reciprocal",
        "pltpu.reciprocal(x, approx=True)",
        since="0.5.3",
    ),
    # -- GPU: Triton and Mosaic GPU
    _feature(
        "triton_compiler_params",
        "Triton compiler params",
        f"{GPU_LEGACY}:TritonCompilerParams {TRITON}:TritonCompilerParams {TRITON}:CompilerParams",
        "pltriton.CompilerParams(num_warps=..., num_stages=...)",
        fallback='compiler_params={"triton": {...}}',
        since="0.4.33",
    ),
    _feature(
        "mosaic_gpu_compiler_params",
        "Mosaic GPU compiler params",
        f"{MOSAIC_GPU}:GPUCompilerParams {MOSAIC_GPU}:CompilerParams",
        "plgpu.CompilerParams(...)",
        since="0.4.35",
    ),
    _feature(
        "gpu_simulator",
        "Mosaic GPU simulator (interpret params)",
        f"{MOSAIC_GPU}:InterpretGPUParams",
        "interpret=plgpu.InterpretGPUParams()",
        since="0.11.1",
    ),
    # -- names that left pl
    _feature(
        "load",
        "masked load",
        f"{PL}:load {TRITON}:load",
        "x_ref[idx] (no mask); pltriton.load(ref, mask=..., other=...) for masked loads",
        backfill="jax._src.pallas.primitives:load",
    ),
    _feature(
        "store",
        "masked store",
        f"{PL}:store {TRITON}:store",
        "x_ref[idx] = v (no mask); pltriton.store(ref, v, mask=...) for masked stores",
        backfill="jax._src.pallas.primitives:store",
    ),
    _feature(
        "swap",
        "swap",
        f"{PL}:swap {TRITON}:swap",
        "old = x_ref[idx]; x_ref[idx] = v",
        backfill="jax._src.pallas.primitives:swap",
    ),
    _feature(
        "dot",
        "dot",
        f"{PL}:dot",
        "jnp.dot / the @ operator inside kernels",
        backfill="jax._src.pallas.primitives:dot",
    ),
    _feature(
        "max_contiguous",
        "max_contiguous",
        f"{PL}:max_contiguous {TRITON}:max_contiguous",
        "pltriton.max_contiguous",
        backfill="jax._src.pallas.triton.primitives:max_contiguous",
    ),
    *(
        _feature(
            f"atomic_{op}",
            f"atomic_{op}",
            f"{PL}:atomic_{op} {TRITON}:atomic_{op}",
            f"pltriton.atomic_{op}",
            backfill=f"jax._src.pallas.triton.primitives:atomic_{op}",
        )
        for op in ("add", "and", "cas", "max", "min", "or", "xchg", "xor")
    ),
    # -- outside Pallas, but every kernel test uses it
    _feature(
        "enable_x64",
        "enable_x64 context manager",
        "jax.experimental:enable_x64 jax:enable_x64",
        "with jax.enable_x64(True): ...",
    ),
)

FEATURES_BY_KEY: dict[str, Feature] = {f.key: f for f in FEATURES}


def watched_names() -> dict[str, set[str]]:
    """Every public (module, name) the table mentions: the probes record these even when absent."""
    watched: dict[str, set[str]] = {}
    for feature in FEATURES:
        for loc in feature.locations:
            if not loc.private and loc.module.startswith(PL):
                watched.setdefault(loc.module, set()).add(loc.attr)
    # Names old tutorials use that no feature above owns.
    watched.setdefault(PL, set()).update(
        {"InterpretParams", "TPUInterpretParams", "Unblocked", "unblocked"}
    )
    watched.setdefault(TPU, set()).update({"TPUInterpretParams", "PARALLEL", "ARBITRARY"})
    return watched


@dataclass(frozen=True)
class FieldRule:
    """What to do with a compiler-params field that the installed release does not have."""

    #: ``drop`` (a hint: results stay the same) or ``refuse`` (dropping would change results).
    action: str
    #: Passing the default is always safe to drop silently.
    default: object = None


_DROP, _REFUSE = "drop", "refuse"

#: Every CompilerParams field seen from 0.4.30 to 0.12.0.1, per backend dict key.
PARAM_FIELDS: dict[str, dict[str, FieldRule]] = {
    "mosaic": {
        "dimension_semantics": FieldRule(_DROP),
        "allow_input_fusion": FieldRule(_DROP),
        "vmem_limit_bytes": FieldRule(_DROP),
        "collective_id": FieldRule(_REFUSE),
        "has_side_effects": FieldRule(_REFUSE, False),
        "flags": FieldRule(_DROP),
        "internal_scratch_in_bytes": FieldRule(_DROP),
        "serialization_format": FieldRule(_DROP, 1),
        "device_type": FieldRule(_REFUSE),
        "kernel_type": FieldRule(_REFUSE),
        "disable_bounds_checks": FieldRule(_DROP, False),
        "disable_semaphore_checks": FieldRule(_DROP, False),
        "skip_device_barrier": FieldRule(_REFUSE, False),
        "allow_collective_id_without_custom_barrier": FieldRule(_REFUSE, False),
        "shape_invariant_numerics": FieldRule(_REFUSE, True),
        "use_tc_tiling_on_sc": FieldRule(_DROP),
        "needs_layout_passes": FieldRule(_DROP, True),
        "fuse_transposed_lhs_in_matmul": FieldRule(_DROP, False),
        "opt_level": FieldRule(_DROP),
        "cost_estimate": FieldRule(_DROP),
    },
    "triton": {
        "num_warps": FieldRule(_DROP),
        "num_stages": FieldRule(_DROP),
        "serialized_metadata": FieldRule(_DROP),
    },
}

#: The keys the dict-only releases (0.4.30, 0.4.31) read from ``compiler_params[backend]``.
LEGACY_DICT_KEYS: dict[str, frozenset[str]] = {
    "mosaic": frozenset(
        {"dimension_semantics", "vmem_limit_bytes", "flags", "allow_input_fusion", "collective_id"}
    ),
    "triton": frozenset({"num_warps", "num_stages", "serialized_metadata"}),
}

#: Old spellings of the dict keys.
LEGACY_DICT_ALIASES: dict[str, str] = {"mosaic_params": "mosaic"}
