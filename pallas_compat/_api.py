"""The namespaces ``pl``, ``pltpu``, ``pltriton``, ``plmgpu``: built once, on first use."""

from __future__ import annotations

import functools
import warnings
from typing import Any

from pallas_compat._fills import NAMESPACES
from pallas_compat._namespace import Namespace
from pallas_compat._resolve import import_optional


@functools.cache
def namespace(alias: str) -> Namespace:
    modules, fills = NAMESPACES[alias]
    native = None
    for name in modules:
        with warnings.catch_warnings():
            # 0.4.33-0.6.0 warn when the old ``pallas.gpu`` module is imported.
            warnings.simplefilter("ignore", DeprecationWarning)
            native = import_optional(name)
        if native is not None:
            break
    return Namespace(f"pallas_compat.{alias}", native, fills())


def enable_x64(new_val: bool = True) -> Any:
    """``jax.enable_x64`` (or ``jax.experimental.enable_x64`` before it moved)."""
    from pallas_compat._facts import FEATURES_BY_KEY
    from pallas_compat._resolve import resolve

    return resolve(FEATURES_BY_KEY["enable_x64"]).obj(new_val)
