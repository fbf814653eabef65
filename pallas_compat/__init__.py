"""pallas-compat: one stable JAX Pallas API across JAX releases.

``from pallas_compat import pl, pltpu, pltriton, plmgpu`` gives the installed JAX's Pallas
modules with old names back-filled and new names forward-filled; ``patch()`` installs the same
into JAX itself. ``features()`` says what the installed JAX supports and where each feature of
the shared API-facts table resolves. Type checkers read the namespaces from stubs
(``pallas_compat/pl.pyi``, ...).

Public: this facade, ``pallas_compat.facts`` (the release knowledge, read only),
``pallas_compat.rules`` (the drift rules) and ``pallas_compat.pytest_plugin``. The rooms behind
them are private: ``shim/`` (this API and ``patch()``), ``lint/`` (doctor, migrate), ``matrix/``
and the CLI (``_cli``); ``tests/test_floors.py`` keeps each above the ones it imports.
"""

from __future__ import annotations

from pallas_compat._version import __version__
from pallas_compat.shim._cpu_threads import keep_callbacks_unblocked
from pallas_compat.shim._libtpu_env import keep_libtpu_offline

keep_libtpu_offline()
keep_callbacks_unblocked()

from typing import Any  # noqa: E402

from pallas_compat.facts._table import FEATURES, FEATURES_BY_KEY, Feature, Location  # noqa: E402
from pallas_compat.shim._errors import (  # noqa: E402
    MissingFeatureError,
    PallasCompatError,
    RefusedArgumentError,
    UnsupportedFeatureError,
)
from pallas_compat.shim._interpret import (  # noqa: E402
    InterpretMode,
    interpret,
    reset_interpret_state,
)
from pallas_compat.shim._lower import lower  # noqa: E402
from pallas_compat.shim._namespaces import SPELLINGS, enable_x64, install_module_finder, namespace  # noqa: E402
from pallas_compat.shim._patch import patch, unpatch  # noqa: E402
from pallas_compat.shim._resolve import (  # noqa: E402
    Resolution,
    Resolved,
    deprecation_table,
    find,
    resolve,
    resolve_all,
)
from pallas_compat.shim._tpu_info import tpu_info  # noqa: E402
from pallas_compat.shim._warnings import PallasCompatDeprecationWarning  # noqa: E402

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
    "deprecation_table",
    "enable_x64",
    "features",
    "find",
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
