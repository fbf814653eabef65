"""The declarative table of Pallas API facts.

One table serves everything: the shim resolves names from it, the probes record where each
feature resolved, and the report and ``migrate`` read its hints. A feature lists the places it
may live, **oldest to newest**; the last place is the modern spelling.
"""

from __future__ import annotations

import enum
import functools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TypedDict

from packaging.version import Version

PL = "jax.experimental.pallas"
TPU = f"{PL}.tpu"
TRITON = f"{PL}.triton"
GPU_LEGACY = f"{PL}.gpu"
MOSAIC_GPU = f"{PL}.mosaic_gpu"
#: ``pallas_call``'s key in the scan's per-callable tables (``keywords``).
PALLAS_CALL = f"{PL}:pallas_call"
#: JAX modules outside Pallas that old kernel files import (measured from the corpora).
FOR_LOOP = "jax._src.lax.control_flow.for_loop"
JAX_UTIL = "jax.util"
PRIVATE_UTIL = "jax._src.util"
PRIVATE_DTYPES = "jax._src.dtypes"
OLD_PRNG = "jax._src.prng"
PRNG = "jax._src.random.prng"
THREEFRY = "jax._src.random.threefry2x32"

#: Which releases have each location and accept each call form, measured by
#: ``scripts/scan_releases.py`` over every JAX release on PyPI from 0.4.30.
RANGES_FILE = Path(__file__).with_name("release_ranges.json")
#: TPU chip facts recorded from the newest JAX, for releases without JAX's own table.
TPU_CHIPS_FILE = Path(__file__).with_name("tpu_chips.json")


#: ``[[first, last], ...]``: runs of consecutive scanned releases.
Spans = list[list[str]]


class ScannedName(TypedDict):
    releases: Spans
    #: JAX's own deprecation message, where it wrote one.
    message: str | None
    #: ``module:name`` where the same object lives now (both names import one object).
    moved_to: str | None


class ScannedPositions(TypedDict):
    lived: Spans
    positions: list[tuple[str, Spans]]


class ReleaseRanges(TypedDict):
    """``release_ranges.json``, written by ``scripts/scan_releases.py`` from every release's
    sources; keys are ``module:name`` (``jax.experimental.pallas.tpu:TPUCompilerParams``)."""

    source: str
    releases: list[str]
    #: The table's locations (``Feature.locations``), private ones included.
    locations: dict[str, Spans]
    call_forms: dict[str, Spans]
    #: Of a call form's releases, those that take it with a ``DeprecationWarning``.
    call_forms_warned: dict[str, Spans]
    #: backend key -> field of its CompilerParams dataclass -> releases.
    compiler_params_fields: dict[str, dict[str, Spans]]
    #: Public Pallas names that came or went, with JAX's message and proven moves.
    names: dict[str, ScannedName]
    other_names: dict[str, Spans]
    #: ``module:callable`` -> each keyword that came or went while the callable lived.
    keywords: dict[str, dict[str, Spans]]
    #: ``module:callable`` -> the releases it lived in and each position in order, ``[name,
    #: releases that take an argument there]``, for the callables whose positions changed
    #: while they lived (``plgpu.Barrier`` became keyword-only in 0.6.2).
    positional: dict[str, ScannedPositions]
    #: Names that still work but warn (JAX's ``_deprecations`` holds them with their object).
    deprecated: dict[str, Spans]
    #: ``module:Enum.MEMBER`` -> releases.
    members: dict[str, Spans]


@functools.cache
def release_ranges() -> ReleaseRanges:
    ranges: ReleaseRanges = json.loads(RANGES_FILE.read_text())
    return ranges


@functools.cache
def installed_jax() -> str:
    """The installed JAX version, read from metadata so that no JAX import is needed."""
    try:
        return metadata.version("jax")
    except metadata.PackageNotFoundError:
        return "unknown"


def scanned_releases() -> list[str]:
    return release_ranges()["releases"]


def works_in(spans: Sequence[Sequence[str]], release: str) -> bool:
    """Is ``release`` inside one of the ``[first, last]`` spans?"""
    version = parsed(release)
    return any(parsed(first) <= version <= parsed(last) for first, last in spans)


@functools.cache
def parsed(release: str) -> Version:
    """``Version(release)``, parsed once: doctor asks about every use on every release."""
    return Version(release)


def pairs(spans: Iterable[Sequence[str]]) -> tuple[tuple[str, str], ...]:
    """``[[first, last], ...]`` as a tuple of pairs (hashable, for frozen records)."""
    return tuple((first, last) for first, last in spans)


def releases_in(spans: Sequence[Sequence[str]]) -> list[str]:
    """The scanned releases inside ``spans``, oldest first."""
    return [r for r in scanned_releases() if works_in(spans, r)]


def spans_of(releases: Iterable[str]) -> Spans:
    """``releases`` as ``[[first, last], ...]`` runs of consecutive scanned releases."""
    wanted = set(releases)
    found: Spans = []
    previous = False
    for release in scanned_releases():
        if release in wanted and previous:
            found[-1][1] = release
        elif release in wanted:
            found.append([release, release])
        previous = release in wanted
    return found


def describe(spans: list[list[str]]) -> str:
    """``"0.4.30-0.7.0"``, ``"0.6.2 on"`` or ``"no release"``, for people."""
    newest = scanned_releases()[-1]
    parts = [
        f"{first} on" if last == newest else (first if first == last else f"{first}-{last}")
        for first, last in spans
    ]
    return ", ".join(parts) or "no release"


#: The Pallas modules people import, old and new: the release scan reads each one's names.
PUBLIC_MODULES: tuple[str, ...] = (PL, TPU, TRITON, GPU_LEGACY, MOSAIC_GPU)
#: What the probes inventory on every release: the public modules plus the smaller public
#: ones (and any other non-underscore submodule the release ships, found at run time).
INVENTORIED_MODULES: tuple[str, ...] = (*PUBLIC_MODULES, f"{PL}.tpu_sc", f"{PL}.fuser", f"{PL}.ops")

#: The aliases people (and the chapter) use for each Pallas module: how doctor and the
#: report spell a name, and what migrate imports a module as. (``NAMESPACE_OF`` below is the
#: shim's namespace for each module; ``pallas_compat.plgpu`` answers to both.)
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
    def releases(self) -> list[list[str]]:
        """``[[first, last], ...]``: the releases that have this location (scanned, see
        ``release_ranges.json``; public names that never changed are not listed there)."""
        key = f"{self.module}:{self.attr}"
        ranges = release_ranges()
        if key in ranges["locations"]:
            return ranges["locations"][key]
        if key in ranges["names"]:
            return ranges["names"][key]["releases"]
        return []

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
    #: What to write instead; ``{new}`` stands for the modern spelling (``{new_import}`` for
    #: the import of it), so a rename (a new last location) reaches the advice with no other
    #: edit.
    write: str
    #: What old code wrote before any location existed (e.g. a dict form), if anything.
    fallback: str | None = None
    #: A private home of the *old* callable, same signature, after its public name went.
    backfill: Location | None = None
    #: Every location is the same API under another name, so ``migrate`` may rewrite one
    #: spelling into another.
    renamed: bool = False
    #: A JAX API outside Pallas that kernel files use (``for_loop``, ``jax.util``): doctor
    #: lists its uses though its locations are private, and the shim serves it.
    outside: bool = False

    @property
    def modern(self) -> Location:
        return self.locations[-1]

    @property
    def hint(self) -> str:
        """What to write instead, in the spelling of the newest release."""
        new = self.modern
        return self.write.replace("{new}", new.spelling).replace(
            "{new_import}", f"from {new.module} import {new.attr}"
        )

    @property
    def since(self) -> str | None:
        """First release with a public location; None when every scanned release has one."""
        firsts = [span[0] for loc in self.locations if not loc.private for span in loc.releases]
        if not firsts:
            return None
        first = min(firsts, key=Version)
        return None if first == scanned_releases()[0] else first


#: The features the report's summary gives a column each (feature key -> column heading).
HEADLINE_FEATURES: dict[str, str] = {
    "load": "masked load",
    "tpu_compiler_params": "TPU compiler params",
    "tpu_simulator": "TPU simulator",
}
#: The forms ``interpret=`` takes: the behaviour probe that passes each, and the feature whose
#: object it passes (None: ``interpret=True``).
INTERPRET_FORMS: tuple[tuple[str, str | None], ...] = (
    ("interpret_true", None),
    ("interpret_tpu_params", "tpu_simulator"),
    ("interpret_gpu_params", "gpu_simulator"),
)


def _feature(
    key: str,
    title: str,
    places: str,
    hint: str,
    fallback: str | None = None,
    *,
    backfill: str | None = None,
    renamed: bool = False,
    outside: bool = False,
) -> Feature:
    locations = tuple(Location.parse(p) for p in places.split())
    twin = Location.parse(backfill) if backfill else None
    return Feature(key, title, locations, hint, fallback, twin, renamed, outside)


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
        f"{TPU}:CostEstimate {PL}:CostEstimate",
        "{new}(flops=, transcendentals=, bytes_accessed=)",
        renamed=True,
    ),
    _feature(
        "squeezed",
        "Squeezed block dimension",
        f"{PL}:Squeezed",
        "pl.Squeezed() (or pl.squeezed, or None) as a block dimension",
        fallback="None as the block dimension",
    ),
    _feature(
        "squeezed_marker",
        "squeezed marker",
        f"{PL}:squeezed",
        "pl.squeezed as a block dimension",
        fallback="None as the block dimension",
    ),
    _feature(
        "compiler_params_base",
        "CompilerParams base class",
        f"{PL}:CompilerParams",
        "subclass of the backend CompilerParams dataclasses",
    ),
    _feature(
        "kernel",
        "kernel (core_map)",
        f"{PL}:core_map {PL}:kernel",
        "pl.kernel(...)",
    ),
    # -- TPU (Mosaic)
    _feature(
        "tpu_compiler_params",
        "TPU compiler params",
        f"{TPU}:TPUCompilerParams {TPU}:CompilerParams",
        "{new}(dimension_semantics=..., vmem_limit_bytes=...)",
        fallback='compiler_params={"mosaic": {...}}',
        renamed=True,
    ),
    _feature(
        "tpu_memory_space",
        "TPU memory space enum",
        f"{TPU}:TPUMemorySpace {TPU}:MemorySpace",
        "{new}",
        renamed=True,
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
    ),
    _feature(
        "tpu_simulator_reset",
        "reset the TPU simulator after it raised",
        "jax._src.pallas.mosaic.interpret:reset_tpu_interpret_mode_state "
        f"{TPU}:reset_tpu_interpret_mode_state",
        "pltpu.reset_tpu_interpret_mode_state()",
    ),
    _feature(
        "tpu_interpret_block",
        "run a block's pallas_calls interpreted (TPU kernels on CPU)",
        f"{TPU}:force_tpu_interpret_mode",
        "with pltpu.force_tpu_interpret_mode(): ...",
        fallback="pass interpret= to each pallas_call",
    ),
    _feature(
        "grid_dimension_semantics",
        "grid dimension semantics enum",
        f"{TPU}:GridDimensionSemantics",
        'pltpu.GridDimensionSemantics, or "parallel"/"arbitrary"',
        fallback='the strings "parallel" and "arbitrary"',
    ),
    _feature(
        "chip_version",
        "TPU chip version enum",
        f"jax._src.pallas.mosaic.tpu_info:ChipVersion {TPU}:ChipVersion",
        "pltpu.ChipVersion.TPU_V5E",
    ),
    _feature(
        "tpu_info",
        "TPU hardware table",
        f"jax._src.pallas.mosaic.tpu_info:get_tpu_info_for_chip {TPU}:get_tpu_info_for_chip",
        "pltpu.get_tpu_info_for_chip(pltpu.ChipVersion.X, 1)",
    ),
    _feature(
        "any_memory_space",
        "memory space ANY (leave the operand where it is)",
        f"{TPU}:ANY {PL}:ANY",
        "{new}",
        renamed=True,
    ),
    _feature(
        "host_memory_space",
        "host memory space",
        f"{TPU}:HOST {PL}:HOST",
        "{new}",
        renamed=True,
    ),
    _feature(
        "run_scoped",
        "run_scoped (scoped scratch allocation)",
        f"{TPU}:run_scoped {PL}:run_scoped",
        "{new}(body, *scratch_types)",
        renamed=True,
    ),
    _feature(
        "tpu_repeat",
        "repeat (tile along an axis)",
        f"{TPU}:repeat",
        "jnp.concatenate([x] * repeats, axis=axis) (jnp.tile along one axis)",
    ),
    _feature(
        "tpu_reciprocal",
        "approximate reciprocal",
        f"{PL}:reciprocal {TPU}:reciprocal",
        "{new}(x, approx=True)",
        renamed=True,
    ),
    # -- GPU: Triton and Mosaic GPU
    _feature(
        "triton_compiler_params",
        "Triton compiler params",
        f"{GPU_LEGACY}:TritonCompilerParams {TRITON}:TritonCompilerParams {TRITON}:CompilerParams",
        "{new}(num_warps=..., num_stages=...)",
        fallback='compiler_params={"triton": {...}}',
        renamed=True,
    ),
    _feature(
        "mosaic_gpu_compiler_params",
        "Mosaic GPU compiler params",
        f"{MOSAIC_GPU}:GPUCompilerParams {MOSAIC_GPU}:CompilerParams",
        "{new}(...)",
        renamed=True,
    ),
    _feature(
        "gpu_simulator",
        "Mosaic GPU simulator (interpret params)",
        f"{MOSAIC_GPU}:InterpretGPUParams",
        "interpret=plgpu.InterpretGPUParams()",
    ),
    _feature(
        "mosaic_gpu_block_spec",
        "Mosaic GPU block spec",
        f"{MOSAIC_GPU}:GPUBlockSpec {MOSAIC_GPU}:BlockSpec",
        "{new}(block_shape, index_map, transforms=...)",
        renamed=True,
    ),
    _feature(
        "mosaic_gpu_memory_space",
        "Mosaic GPU memory space enum",
        f"{MOSAIC_GPU}:GPUMemorySpace {MOSAIC_GPU}:MemorySpace",
        "{new}.SMEM",
        renamed=True,
    ),
    _feature(
        "mosaic_gpu_lowering_semantics",
        "Mosaic GPU lowering semantics (same members: Lane, Warpgroup)",
        f"{MOSAIC_GPU}:ThreadSemantics {MOSAIC_GPU}:LoweringSemantics",
        "{new}.Warpgroup",
        renamed=True,
    ),
    _feature(
        "mosaic_gpu_layout",
        "Mosaic GPU register layouts",
        f"{MOSAIC_GPU}:Layout",
        "plgpu.Layout.WGMMA, plgpu.Layout.WGMMA.reduce(1) for its rows",
    ),
    _feature(
        "nd_loop_info",
        "what plgpu.nd_loop hands its body",
        f"{MOSAIC_GPU}:NDLoopInfo",
        "def body(loop_info): idx = loop_info.index",
    ),
    # -- names that left pl
    _feature(
        "load",
        "masked load",
        f"{PL}:load {TRITON}:load",
        "x_ref[idx] (no mask); masked: pltriton.load(ref.at[idx], mask=..., other=...) on GPU, "
        "pltpu.load(ref.at[idx], mask=...) on TPU (JAX 0.7.1 on)",
        backfill="jax._src.pallas.primitives:load",
    ),
    _feature(
        "store",
        "masked store",
        f"{PL}:store {TRITON}:store",
        "x_ref[idx] = v (no mask); masked: pltriton.store(ref.at[idx], v, mask=...) on GPU, "
        "pltpu.store(ref.at[idx], v, mask=...) on TPU (JAX 0.7.1 on)",
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
        f"{PL}:dot {TRITON}:dot",
        "{new}(a, b, trans_a=..., trans_b=...) in Triton kernels (the same function, same "
        "dtype rules); in TPU and Mosaic GPU kernels jnp.dot, jnp.einsum or @ (JAX's advice)",
        backfill="jax._src.pallas.primitives:dot",
        renamed=True,
    ),
    _feature(
        "max_contiguous",
        "max_contiguous",
        f"{PL}:max_contiguous {TRITON}:max_contiguous",
        "{new}",
        backfill="jax._src.pallas.triton.primitives:max_contiguous",
        renamed=True,
    ),
    *(
        _feature(
            f"atomic_{op}",
            f"atomic_{op}",
            f"{PL}:atomic_{op} {TRITON}:atomic_{op}",
            "{new}",
            backfill=f"jax._src.pallas.triton.primitives:atomic_{op}",
            renamed=True,
        )
        for op in ("add", "and", "cas", "max", "min", "or", "xchg", "xor")
    ),
    # -- outside Pallas, but every kernel test uses it
    _feature(
        "enable_x64",
        "enable_x64 context manager",
        "jax.experimental:enable_x64 jax:enable_x64",
        "with {new}(True): ...",
        renamed=True,
    ),
    # -- outside Pallas, imported by kernel files of the corpora (JAX's own ops, libraries)
    _feature(
        "for_loop",
        "for_loop over refs (the in-kernel loop of the 0.4 era)",
        f"{FOR_LOOP}:for_loop",
        "jax.lax.fori_loop over values: migrate writes a local _for_loop that hands the body "
        "ref-like boxes (JAX's own kernels rewrote their bodies to return the new state)",
        outside=True,
    ),
    _feature(
        "for_loop_module",
        "the for_loop module, imported whole (for_loop.for_loop(...))",
        "jax._src.lax.control_flow:for_loop",
        "jax.lax.fori_loop over values: migrate drops the import and writes a local _for_loop "
        "that hands the body ref-like boxes",
        outside=True,
    ),
    _feature(
        "jax_util",
        "jax.util helpers (HashableFunction, safe_map, ...)",
        "jax:util jax._src:util",
        "{new_import}: the module JAX's own kernels import since jax.util went "
        "(there is no public successor)",
        renamed=True,
        outside=True,
    ),
    _feature(
        "bit_width",
        "bits per element of a dtype",
        f"{PRIVATE_DTYPES}:bit_width jax.dtypes:itemsize_bits",
        "{new}(dtype)",
        renamed=True,
        outside=True,
    ),
    _feature(
        "prng",
        "the PRNG implementation module (threefry, PRNGImpl)",
        "jax._src:prng jax._src.random:prng",
        "{new_import} (the module moved; there is no public successor)",
        renamed=True,
        outside=True,
    ),
    *(  # what JAX's random kernels take from it, which left it for a module of its own
        _feature(
            f"prng_{name}",
            f"prng.{name}",
            f"{OLD_PRNG}:{name} {THREEFRY}:{name}",
            "{new} (the Threefry functions left the PRNG module in JAX 0.10.2)",
            renamed=True,
            outside=True,
        )
        for name in (
            "threefry2x32_p",
            "threefry_2x32",
            "threefry_seed",
            "threefry_split",
            "threefry_fold_in",
        )
    ),
)

FEATURES_BY_KEY: dict[str, Feature] = {f.key: f for f in FEATURES}

#: Enum members JAX moved out of an enum to a name of their own: (the enum's feature, member)
#: -> the feature that serves the member now (``pltpu.TPUMemorySpace.ANY`` -> ``pl.ANY``).
MEMBER_MOVES: dict[tuple[str, str], str] = {
    ("tpu_memory_space", "ANY"): "any_memory_space",
    ("tpu_memory_space", "HOST"): "host_memory_space",
}

#: Enum members JAX replaced by a form built from another member: (enum feature, member) ->
#: (the form, written after the enum's name; the first release that takes it). The scan
#: reads where each member was; ``Layout.reduce`` came with 0.7.0's ``SomeLayout``, which
#: kept the old members as aliases of exactly these forms to 0.9.1 (``core.py``).
MEMBER_FORMS: dict[tuple[str, str], tuple[str, str]] = {
    ("mosaic_gpu_layout", "WGMMA_ROW"): ("WGMMA.reduce(1)", "0.7.0"),
    ("mosaic_gpu_layout", "WGMMA_COL"): ("WGMMA.reduce(0)", "0.7.0"),
    ("mosaic_gpu_layout", "TCGEN05_ROW"): ("TCGEN05.reduce(1)", "0.7.0"),
    ("mosaic_gpu_layout", "TCGEN05_COL"): ("TCGEN05.reduce(0)", "0.7.0"),
    ("mosaic_gpu_layout", "TCGEN05_TMEM_NATIVE_ROW"): ("TCGEN05_TMEM_NATIVE.reduce(1)", "0.7.0"),
}

#: Functions JAX deprecated in favour of a method of their first argument, (module, name) ->
#: the method: ``plgpu.transpose_ref(ref, perm)`` is ``ref.transpose(perm)`` (JAX's own
#: deprecation message says so; the releases that deprecate it take the method).
METHOD_FORMS: dict[tuple[str, str], str] = {(MOSAIC_GPU, "transpose_ref"): "transpose"}

#: Loop decorators whose body JAX began to hand an info object where it had handed the index
#: tuple: (module, decorator) -> the feature of the info class (its first release is the
#: change). The shim hands every body an index tuple that carries the info's fields too.
LOOP_BODIES: dict[tuple[str, str], str] = {(MOSAIC_GPU, "nd_loop"): "nd_loop_info"}

#: The shim namespace that serves each public Pallas module (``pallas.gpu`` was Triton's),
#: and each JAX module outside Pallas that kernel files import.
NAMESPACE_OF: dict[str, str] = {
    PL: "pl",
    TPU: "pltpu",
    TRITON: "pltriton",
    GPU_LEGACY: "pltriton",
    MOSAIC_GPU: "plmgpu",
    FOR_LOOP: "for_loop",
    JAX_UTIL: "jax_util",
    PRIVATE_DTYPES: "dtypes",
    OLD_PRNG: "prng",
}
#: Of those, the modules outside Pallas: ``patch()`` puts the shim's namespace where one is
#: gone (``jax.util`` after 0.7.2) and its back-fills into the ones that stay.
OUTSIDE_MODULES: tuple[str, ...] = (FOR_LOOP, JAX_UTIL, PRIVATE_DTYPES, OLD_PRNG)


def backfilled_features() -> tuple[Feature, ...]:
    """Features whose old callable JAX keeps in a private module after the public name went."""
    return tuple(f for f in FEATURES if f.backfill is not None)


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


class FieldAction(str, enum.Enum):
    """What the shim does with a params field the installed release lacks."""

    DROP = "drop"  #: a hint: results stay the same without it
    REFUSE = "refuse"  #: dropping it would change results: raise instead

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class FieldRule:
    """What to do with a compiler-params field that the installed release does not have."""

    action: FieldAction
    #: Passing the default is always safe to drop silently.
    default: object = None


_DROP, _REFUSE = FieldAction.DROP, FieldAction.REFUSE

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


@dataclass(frozen=True)
class Backend:
    """One lowering backend, under every name old and new code gives it."""

    #: The ``compiler_params`` dict key (``{"mosaic": {...}}``) and ``PARAM_FIELDS`` key.
    key: str
    #: Its value of ``pallas_call(backend=...)`` (0.4.35 to 0.9.0.1).
    call_name: str
    #: The feature (above) of its ``CompilerParams`` dataclass.
    feature: str
    #: Old spellings of the dict key.
    old_keys: tuple[str, ...] = ()
    #: The keys the dict-only releases (0.4.30, 0.4.31) read from ``compiler_params[key]``;
    #: empty for a backend that never had a dict form.
    dict_fields: frozenset[str] = frozenset()
    #: What ``pallas_call`` lowers with when no params pick a backend (on a TPU).
    default: bool = False
    #: Where JAX's sources define its CompilerParams (the release scan reads the fields there).
    params_source: str = ""
    #: The dict era's lowering read the keys it knew and ignored the rest (Triton: ``num_warps``
    #: and ``num_stages``), and interpret mode read none: a dict key no release knows (a
    #: misspelt ``num_wraps``) is dropped with a warning, as those releases dropped it.
    dict_ignored_unknown_keys: bool = False


BACKENDS: tuple[Backend, ...] = (
    Backend(
        "mosaic",
        "mosaic_tpu",
        "tpu_compiler_params",
        old_keys=("mosaic_params",),
        dict_fields=frozenset(
            {
                "dimension_semantics",
                "vmem_limit_bytes",
                "flags",
                "allow_input_fusion",
                "collective_id",
            }
        ),
        default=True,
        params_source="jax/_src/pallas/mosaic/core.py",
    ),
    Backend(
        "triton",
        "triton",
        "triton_compiler_params",
        dict_fields=frozenset({"num_warps", "num_stages", "serialized_metadata"}),
        params_source="jax/_src/pallas/triton/core.py",
        dict_ignored_unknown_keys=True,
    ),
    Backend(
        "mosaic_gpu",
        "mosaic_gpu",
        "mosaic_gpu_compiler_params",
        params_source="jax/_src/pallas/mosaic_gpu/core.py",
    ),
)
BACKENDS_BY_KEY: dict[str, Backend] = {b.key: b for b in BACKENDS}
#: The TPU backend (Mosaic): what ``pallas_call`` uses when nothing picks another.
TPU_BACKEND: Backend = next(b for b in BACKENDS if b.default)
#: Custom-call targets by which a lowered GPU kernel shows which backend lowered it.
GPU_CUSTOM_CALLS: tuple[str, ...] = ("__gpu$xla.gpu.triton", "mosaic_gpu", "triton_kernel_call")
#: ``pallas_call(backend=...)`` -> the backend whose params pick the same lowering after it went
#: (the type of ``compiler_params`` chooses the backend).
CALL_BACKENDS: dict[str, Backend] = {b.call_name: b for b in BACKENDS}


def params_class_names() -> frozenset[str]:
    """Every name the CompilerParams class of a dict-era backend had (``TPUCompilerParams``,
    ``CompilerParams``, ...): old code passes it dict-era fields."""
    return frozenset(
        loc.attr
        for backend in BACKENDS
        if backend.dict_fields
        for loc in FEATURES_BY_KEY[backend.feature].locations
    )


def backend_of(key: str) -> Backend | None:
    """The backend a ``compiler_params`` dict key names, old spellings included."""
    return next((b for b in BACKENDS if key == b.key or key in b.old_keys), None)


class CallForm(str, enum.Enum):
    """A call form JAX stopped (or started) accepting; the value is the text people wrote,
    and the key of its releases in ``release_ranges.json``."""

    BLOCK_SPEC_ORDER = "BlockSpec(index_map, block_shape)"
    F_KEYWORD = "pallas_call(f=...)"
    DICT_PARAMS = 'compiler_params={"mosaic": {...}}'
    GPU_MODULE = GPU_LEGACY
    #: ``class PatchBlockSpec(pl.BlockSpec): def __init__(self, index_map, block_shape)``: works
    #: until JAX rebuilds specs with ``spec.replace(memory_space=...)`` (0.10.0), which calls
    #: the subclass with every field by keyword.
    BLOCK_SPEC_SUBCLASS = "class X(BlockSpec) with its own __init__"
    #: ``pl.Blocked()``, the indexing mode (0.4.31-0.6.0); from 0.6.1 ``pl.Blocked(n)`` is a
    #: block dimension, whose size is required.
    BLOCKED_MODE = "pl.Blocked() (the indexing mode)"
    #: ``pltpu.InterpretParams(grid_point_recorder=f)`` with ``f(grid_point, core_id)``; later
    #: releases call ``f(token, grid_point, core_id)`` and want the token back.
    RECORDER_TWO_ARGS = "grid_point_recorder=f(grid_point, core_id)"
    #: ``pl.CostEstimate(bytes_accessed=np.prod(shape) * itemsize)``: a NumPy integer (or a
    #: float, as ``Compiled.cost_analysis()`` gives) where later releases check for ``int``.
    COST_ESTIMATE_NUMBERS = "pl.CostEstimate(<a field that is a NumPy integer or a float>)"

    def __str__(self) -> str:
        return str(self.value)


def params_spelling(backend: Backend) -> str:
    """How the newest release spells a backend's params class (``pltpu.CompilerParams``)."""
    return FEATURES_BY_KEY[backend.feature].modern.spelling


class Advice(Mapping[str, str]):
    """What to write instead of each call form or keyword. A text that names a spelling is a
    function of the table, made when read, so that a rename reaches it with no other edit."""

    def __init__(self, texts: dict[str, str | Callable[[], str]]) -> None:
        self.texts = texts

    def __getitem__(self, key: str) -> str:
        text = self.texts[key]
        return text() if callable(text) else text

    def __iter__(self) -> Iterator[str]:
        return iter(self.texts)

    def __len__(self) -> int:
        return len(self.texts)


#: What to write instead of each call form.
CALL_FORMS: Advice = Advice(
    {
        CallForm.BLOCK_SPEC_ORDER: lambda: (
            f"{FEATURES_BY_KEY['block_spec'].modern.spelling}(block_shape, index_map)"
        ),
        CallForm.F_KEYWORD: lambda: (
            f"{FEATURES_BY_KEY['pallas_call'].modern.spelling}(kernel, ...)"
        ),
        CallForm.DICT_PARAMS: lambda: f"compiler_params={params_spelling(TPU_BACKEND)}(...)",
        CallForm.GPU_MODULE: TRITON,
        CallForm.RECORDER_TWO_ARGS: "def f(token, grid_point, core_id): ...; return token (the "
        "simulator threads a token through the recorder)",
        CallForm.BLOCKED_MODE: "leave indexing_mode= out: blocked is the default (from JAX 0.6.1 "
        "pl.Blocked(block_size) is a block dimension)",
        CallForm.COST_ESTIMATE_NUMBERS: lambda: (
            f"{FEATURES_BY_KEY['cost_estimate'].modern.spelling}(flops=int(...), "
            "transcendentals=int(...), bytes_accessed=int(...)): every field a Python int"
        ),
        CallForm.BLOCK_SPEC_SUBCLASS: "an __init__ that passes every other field on: def __init__("
        "self, index_map, block_shape, **fields): super().__init__(block_shape=block_shape, "
        "index_map=index_map, **fields) (JAX rebuilds specs with spec.replace(memory_space=...))",
    }
)


def dict_params_form(key: str) -> tuple[str, str]:
    """(what people wrote, what to write instead) for a ``compiler_params`` dict keyed by
    ``key``: ``compiler_params={"triton": {...}}`` -> ``pltriton.CompilerParams(...)``. The
    releases are the dict form's (``DICT_PARAMS``) whichever backend the dict names."""
    backend = backend_of(key)
    if backend is None or backend is TPU_BACKEND:
        return str(CallForm.DICT_PARAMS), CALL_FORMS[CallForm.DICT_PARAMS]
    params = params_spelling(backend)
    return f'compiler_params={{"{backend.key}": {{...}}}}', f"compiler_params={params}(...)"


BLOCK_SPEC_ORDER = CallForm.BLOCK_SPEC_ORDER
F_KEYWORD = CallForm.F_KEYWORD
DICT_PARAMS = CallForm.DICT_PARAMS
GPU_MODULE = CallForm.GPU_MODULE
BLOCK_SPEC_SUBCLASS = CallForm.BLOCK_SPEC_SUBCLASS
BLOCKED_MODE = CallForm.BLOCKED_MODE
RECORDER_TWO_ARGS = CallForm.RECORDER_TWO_ARGS
COST_ESTIMATE_NUMBERS = CallForm.COST_ESTIMATE_NUMBERS


#: What to write for a ``pallas_call`` keyword that some release lacks (the releases of each
#: keyword are scanned); a keyword not listed here is described by its releases alone.
CALL_KEYWORDS: Advice = Advice(
    {
        "backend": lambda: (
            "compiler_params="
            + " / ".join(f"{params_spelling(b)}()" for b in BACKENDS if not b.default)
            + ": the params' type picks the backend"
        ),
        "scratch_shapes": "grid_spec=pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=0, "
        "scratch_shapes=...) on releases before it",
        "kernel": lambda: f"{CALL_FORMS[CallForm.F_KEYWORD]} (positional)",
    }
)


#: What to write for a public name JAX dropped with no alias, no feature above and no message
#: that spells a successor ("module:name" -> a spelling or a line of code). A successor named
#: here must exist in the newest snapshot (tests/test_guide.py checks).
WRITE_INSTEAD: dict[str, str] = {
    f"{PL}:IndexingMode": "pl.BlockSpec((pl.Element(n), pl.Blocked(m)), index_map): the mode "
    "goes into each block_shape entry",
    f"{PL}:Unblocked": "pl.BlockSpec((pl.Element(n), ...), index_map)",
    f"{PL}:unblocked": "pl.BlockSpec((pl.Element(n), ...), index_map)",
    f"{PL}:mosaic_gpu": "from jax.experimental.pallas import mosaic_gpu as plgpu",
    f"{PL}:pallas": "import from jax.experimental.pallas itself (the submodule was private)",
    f"{PL}:debug_checks_enabled": "pl.enable_debug_checks.value",
    f"{PL}:DeviceIdType": "leave device_id_type= out of semaphore and DMA calls (JAX drops both)",
    f"{MOSAIC_GPU}:GPUMesh": "plgpu.Mesh(grid=..., grid_names=..., num_threads=..., "
    "thread_name=...): axis_names split into the grid's names and the thread's",
    f"{MOSAIC_GPU}:transpose_ref": "ref.transpose(...)",
    f"{TPU}:delay": "pl.delay",
    f"{TPU}:device_id": "jax.lax.axis_index(axis_name): the device's index along a mesh axis, "
    "in a kernel run under shard_map (the distributed TPU kernels of JAX's docs use it)",
    f"{TPU}:create_tensorcore_mesh": "pltpu.TensorCoreMesh(...)",
    f"{TPU}:enable_runtime_assert": "pl.enable_debug_checks(True) with pl.debug_check(cond, msg)",
    f"{TPU}:runtime_assert_enabled": "pl.enable_debug_checks.value",
    f"{TPU}:make_pipeline_allocations": "pltpu.emit_pipeline_with_allocations(...)",
    f"{TPU}:get_pipeline_schedule": "pltpu.emit_pipeline(...) (schedules are internal)",
}


#: The first release whose ``Compiled.cost_analysis()`` returns one dict, not a list holding
#: it (measured: ``behaviours.cost_analysis_shape``; 0.4.38 returns the list). Old TPU kernels
#: index it with ``[0]`` to build their ``CostEstimate``.
COST_ANALYSIS_DICT_SINCE = "0.5.0"
COST_ANALYSIS_INDEX = "Compiled.cost_analysis()[0]"
COST_ANALYSIS_HINT = (
    f'compiled.cost_analysis()["flops"]: one dict from JAX {COST_ANALYSIS_DICT_SINCE}, no [0]'
)


def cost_analysis_index_releases(scanned: list[str]) -> tuple[tuple[str, str], ...]:
    """The scanned releases where ``cost_analysis()[0]`` works: those before the change."""
    old = [r for r in scanned if Version(r) < Version(COST_ANALYSIS_DICT_SINCE)]
    return ((old[0], old[-1]),) if old else ()


#: Keyword arguments JAX renamed on a callable: each group is one argument's spellings, oldest
#: first; the shim passes whichever the installed callable takes (from its signature), and
#: ``migrate`` writes the newest one the target takes.
KEYWORD_RENAMES: dict[tuple[str, str], tuple[tuple[str, ...], ...]] = {
    (PL, "kernel"): (("out_shape", "out_type"), ("scratch_shapes", "scratch_types")),
    (MOSAIC_GPU, "kernel"): (("out_shape", "out_type"), ("scratch_shapes", "scratch_types")),
    (MOSAIC_GPU, "Barrier"): (("for_tensor_core", "orders_tensor_core"),),
    (TPU, "InterpretParams"): (
        ("num_cores_per_device", "num_cores_or_threads_per_device", "num_cores_or_threads"),
    ),
}


#: Keywords JAX moved off a callable to another place, (module, callable, keyword) -> what to
#: write instead (the scan says which releases take the old keyword). The shim moves each
#: there; ``migrate`` rewrites the forms it can prove (the authors' own kernels moved so).
KEYWORD_MOVES: dict[tuple[str, str, str], str] = {
    (MOSAIC_GPU, "emit_pipeline", "delay_release"): (
        "give each input its own: plgpu.BlockSpec(..., delay_release=n) in in_specs"
    ),
    (MOSAIC_GPU, "copy_gmem_to_smem", "partitioned_axis"): (
        "leader_tracked=plgpu.CopyPartition.PARTITIONED(axis) (None: leave it out)"
    ),
    (
        MOSAIC_GPU,
        "load",
        "idx",
    ): "index the ref: plgpu.load(src.at[idx], ...) (idx=(): plgpu.load(src))",
}


#: The Mosaic GPU meshes (``module:name``), and the backend whose compiler params took the
#: options JAX moved off them (``approx_math``, found by the scan: ``mesh_options_moved``).
GPU_MESHES = (f"{MOSAIC_GPU}:GPUMesh", f"{MOSAIC_GPU}:Mesh")
MESH_PARAMS_BACKEND = "mosaic_gpu"


#: What to write instead of a keyword JAX dropped from a callable with no successor, where
#: leaving it out changes what the call does (``module:name``, keyword) -> advice.
KEYWORD_ADVICE: dict[tuple[str, str], str] = {
    (f"{PL}:BlockSpec", "indexing_mode"): "for pl.Blocked() leave it out (the default); for "
    "pl.Unblocked(padding) make each block_shape entry pl.Element(n, (low, high)) (JAX 0.6.1)",
    (f"{TPU}:emit_pipeline", "should_accumulate_out"): "accumulate in the body: zero the output "
    "block on the first step of its reduction (pl.when) and add to it (JAX 0.10.0 removed "
    "the automatic accumulation)",
    (f"{TPU}:emit_pipeline_with_allocations", "should_accumulate_out"): "accumulate in the body, "
    "as for pltpu.emit_pipeline (JAX 0.10.0 removed the automatic accumulation)",
}


def keyword_spellings(groups: tuple[tuple[str, ...], ...], takes: set[str]) -> dict[str, str]:
    """Each spelling a callable does not take -> the one of its group it does take."""
    return {
        given: taken
        for group in groups
        for taken in group
        if taken in takes
        for given in group
        if given not in takes
    }


def call_form_releases(form: str) -> list[list[str]]:
    return release_ranges()["call_forms"][form]


def call_form_warned_releases(form: str) -> list[list[str]]:
    """Of ``call_form_releases(form)``, the releases that warn (``BlockSpec(index_map,
    block_shape)`` in 0.4.31-0.4.34, which swap the two back)."""
    return release_ranges().get("call_forms_warned", {}).get(form, [])


def param_field_releases(backend: str, field: str) -> list[list[str]]:
    """Releases whose ``backend`` CompilerParams dataclass has ``field``."""
    return release_ranges()["compiler_params_fields"].get(backend, {}).get(field, [])


def pallas_call_keyword_releases(name: str) -> list[list[str]]:
    """The releases whose ``pallas_call`` takes keyword ``name``, where that changed; [] where
    every scanned release takes it (or none does)."""
    return keyword_releases(PALLAS_CALL, name)


def keyword_releases(callable_key: str, name: str) -> list[list[str]]:
    """The releases whose ``callable_key`` (``module:name``) takes keyword ``name``, where that
    changed while the callable lived; [] where it never did (or is not known)."""
    return release_ranges().get("keywords", {}).get(callable_key, {}).get(name, [])


def positions(callable_key: str) -> list[tuple[str, Spans]]:
    """Each position of ``callable_key`` in order, with the releases that take an argument
    there; [] where its positions never changed (or it is not known)."""
    found = release_ranges().get("positional", {}).get(callable_key)
    return [(name, spans) for name, spans in found["positions"]] if found else []


def positions_dropped() -> frozenset[str]:
    """The callables (``module:name``) a later release takes fewer arguments by position than
    an earlier one (``plgpu.Barrier``, keyword-only from 0.6.2): the shim takes the old
    positions as keywords there."""
    return frozenset(
        key
        for key, found in release_ranges().get("positional", {}).items()
        if any(
            parsed(spans[-1][1]) < parsed(found["lived"][-1][1]) for _, spans in found["positions"]
        )
    )


def positional_releases(callable_key: str, given: int) -> tuple[Spans, Spans] | None:
    """(the releases whose ``callable_key`` takes ``given`` arguments by position, the releases
    it lived in), where its positions changed while it lived and some of them do not; None
    where all do (or it is not known)."""
    found = release_ranges().get("positional", {}).get(callable_key)
    if not found or not 0 < given <= len(found["positions"]):
        return None
    spans = found["positions"][given - 1][1]
    return None if spans == found["lived"] else (spans, found["lived"])


def renamed_keyword(callable_key: str, name: str) -> str | None:
    """The newest spelling of a keyword JAX renamed on a callable (``KEYWORD_RENAMES``)."""
    module, _, attr = callable_key.partition(":")
    for group in KEYWORD_RENAMES.get((module, attr), ()):
        if name in group and name != group[-1]:
            return group[-1]
    return None
