"""A kernel case: how to build it for a mode, its seeded inputs, its float64 reference, and the
tolerance the chapter justifies. Cases register themselves on import of their section module."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from common import KernelStatus

#: Builds the function under test for one ``interpret=`` value; it takes the case's inputs.
Build = Callable[[Any], Callable[..., Any]]


@dataclass(frozen=True)
class Tolerance:
    """``|out - ref| <= atol + rtol * |ref|`` elementwise, with the chapter's reason."""

    rtol: float
    atol: float
    why: str


#: Elementwise float32 arithmetic: one rounding per element.
EXACTISH = Tolerance(1e-6, 0.0, "float32 elementwise: one rounding per element (chapter §0-§2)")
#: float32 matmul, K up to a few hundred, accumulated in float32.
MATMUL = Tolerance(1e-4, 1e-4, "float32 accumulation over K <= 512 (chapter §2.3, §4.1)")


@dataclass(frozen=True)
class Kernel:
    """``build(interpret)(*inputs)`` against the float64 ``reference(*inputs)``."""

    name: str
    section: str
    build: Build
    inputs: Callable[[np.random.Generator], tuple[Any, ...]]
    reference: Callable[..., Any]
    tolerance: Tolerance

    def rng(self) -> np.random.Generator:
        """Seeded per case, so that every release sees the same inputs."""
        return np.random.default_rng(zlib.crc32(self.name.encode()))


@dataclass(frozen=True)
class Case(Kernel):
    """One chapter kernel that must be right."""

    #: The TPU lowering verdict the chapter predicts: True, or why Mosaic refuses it.
    lowers: bool | str = True
    #: Modes where the case has nothing to run (e.g. it needs the grid recorder): mode -> why.
    skip_modes: dict[str, str] = field(default_factory=dict)
    #: tpu_compile: chip -> does it fit, predicted from the hardware table (None: all fit).
    fits: dict[str, bool] | None = None
    #: A GPU variant (power-of-two blocks, no cross-program accumulation): gpu_lower runs it,
    #: calling ``build(interpret, triton=True)``.
    gpu: bool = False


@dataclass(frozen=True)
class WrongCase(Kernel):
    """One of the chapter's wrong kernels and how each mode is expected to show the bug."""

    #: mode -> CAUGHT (a wrong result or an error) or MISSED (the bug hides), per the chapter.
    chapter_says: dict[str, KernelStatus] = field(default_factory=dict)


CASES: dict[str, Case] = {}
WRONG: dict[str, WrongCase] = {}


def case(
    name: str,
    section: str,
    *,
    inputs: Callable[[np.random.Generator], tuple[Any, ...]],
    reference: Callable[..., Any],
    tolerance: Tolerance = EXACTISH,
    lowers: bool | str = True,
    skip_modes: dict[str, str] | None = None,
    fits: dict[str, bool] | None = None,
    gpu: bool = False,
) -> Callable[[Build], Build]:
    def register(build: Build) -> Build:
        if name in CASES:
            raise ValueError(f"kernel case {name!r} registered twice")
        CASES[name] = Case(
            name, section, build, inputs, reference, tolerance, lowers, skip_modes or {}, fits, gpu
        )
        return build

    return register


def wrong(
    name: str,
    section: str,
    *,
    inputs: Callable[[np.random.Generator], tuple[Any, ...]],
    reference: Callable[..., Any],
    chapter_says: dict[str, KernelStatus],
    tolerance: Tolerance = EXACTISH,
) -> Callable[[Build], Build]:
    def register(build: Build) -> Build:
        WRONG[name] = WrongCase(name, section, build, inputs, reference, tolerance, chapter_says)
        return build

    return register


def f64(x: Any) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def normal(rng: np.random.Generator, *shape: int, scale: float = 1.0) -> np.ndarray:
    return (rng.standard_normal(shape) * scale).astype(np.float32)
