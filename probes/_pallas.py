"""Lazy access to the installed JAX's Pallas for probes, through the shared API-facts table.

Probes import through here so that a Pallas module that fails to import costs only the probes
that need it, and so that old releases are driven with the spelling they understand.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from pallas_compat import FEATURES_BY_KEY, Resolution, resolve
from pallas_compat.facts import PL, TPU_BACKEND


class Unavailable(Exception):
    """The feature a probe needs does not exist on this JAX: recorded as data, not as a failure."""


def module(name: str) -> ModuleType:
    return importlib.import_module(name)


def pl() -> ModuleType:
    return module(PL)


def feature(key: str) -> Any:
    """The native object for a feature, or Unavailable naming what is missing."""
    resolved = resolve(FEATURES_BY_KEY[key])
    if resolved.status is Resolution.UNAVAILABLE:
        raise Unavailable(f"{FEATURES_BY_KEY[key].modern.spelling} is not available")
    return resolved.obj


def block_spec(block_shape: Any, index_map: Any) -> Any:
    """JAX's own BlockSpec, made by the shim in whichever argument order this JAX expects
    (``tests/test_jaxpr_identity.py``: the objects and jaxprs are JAX's)."""
    import pallas_compat

    return pallas_compat.pl.BlockSpec(block_shape, index_map)


def tpu_compiler_params(**fields: Any) -> Any:
    """TPU compiler params as this JAX wants them: a dataclass, or the old dict form."""
    try:
        return feature("tpu_compiler_params")(**fields)
    except Unavailable:
        return {TPU_BACKEND.key: fields}


def enable_x64() -> Any:
    return feature("enable_x64")
