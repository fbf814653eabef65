"""Import every section so that its cases register; the order is the chapter's."""

from __future__ import annotations

from kernels import (  # noqa: F401  (imported for their registrations)
    advanced,
    basics,
    exercises,
    flash_attention,
    gpu_flash_attention,
    gpu_variants,
    interpret_mode,
    tpu_params,
    transforms,
    wrong,
)
from kernels._case import CASES, WRONG


def names() -> set[str]:
    return set(CASES) | set(WRONG)
