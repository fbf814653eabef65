"""pallas-compat: one stable JAX Pallas API across JAX releases.

``from pallas_compat import pl, pltpu, pltriton, plmgpu`` gives the installed JAX's Pallas
modules with old names back-filled and new names forward-filled; ``patch()`` installs the same
into JAX itself. ``features()`` says what the installed JAX supports and where each feature of
the shared API-facts table resolves. The modules behind this facade are private.
"""

from __future__ import annotations

from pallas_compat._cpu_threads import keep_callbacks_unblocked
from pallas_compat._env import keep_libtpu_offline

keep_libtpu_offline()
keep_callbacks_unblocked()

from typing import TYPE_CHECKING, Any  # noqa: E402

from pallas_compat._api import SPELLINGS, enable_x64, install_module_finder, namespace  # noqa: E402
from pallas_compat._errors import (  # noqa: E402
    MissingFeatureError,
    PallasCompatError,
    RefusedArgumentError,
    UnsupportedFeatureError,
)
from pallas_compat._facts import FEATURES, FEATURES_BY_KEY, Feature, Location  # noqa: E402
from pallas_compat._interpret import (  # noqa: E402
    InterpretMode,
    interpret,
    reset_interpret_state,
)
from pallas_compat._lower import lower  # noqa: E402
from pallas_compat._patch import patch, unpatch  # noqa: E402
from pallas_compat._resolve import Resolution, Resolved, resolve, resolve_all  # noqa: E402
from pallas_compat._tpu_info import tpu_info  # noqa: E402
from pallas_compat._warnings import PallasCompatDeprecationWarning  # noqa: E402

if TYPE_CHECKING:
    # Type checkers see JAX's own modules, so that ``pl.BlockSpec`` and the rest are known;
    # the namespaces add only old names (which warn) on top of them.
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import mosaic_gpu as plgpu
    from jax.experimental.pallas import mosaic_gpu as plmgpu
    from jax.experimental.pallas import tpu as pltpu
    from jax.experimental.pallas import triton as pltriton

__version__ = "0.1.0"

__all__ = [
    "FEATURES",
    "FEATURES_BY_KEY",
    "Feature",
    "InterpretMode",
    "Location",
    "MissingFeatureError",
    "PallasCompatDeprecationWarning",
    "PallasCompatError",
    "RefusedArgumentError",
    "Resolution",
    "Resolved",
    "UnsupportedFeatureError",
    "__version__",
    "enable_x64",
    "features",
    "interpret",
    "lower",
    "patch",
    "pl",
    "plgpu",
    "plmgpu",
    "pltpu",
    "pltriton",
    "reset_interpret_state",
    "resolve",
    "tpu_info",
    "unpatch",
]

install_module_finder()


def __getattr__(name: str) -> Any:
    """The namespaces import their JAX module on first use (``pltpu`` alone costs ~0.8 s)."""
    if name not in SPELLINGS:
        raise AttributeError(f"module 'pallas_compat' has no attribute {name!r}")
    value = namespace(SPELLINGS[name])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(SPELLINGS))


def features() -> dict[str, dict[str, object]]:
    """What this JAX supports: feature key -> status, where it resolves, its modern spelling."""
    return {key: resolved.as_record() for key, resolved in resolve_all().items()}
