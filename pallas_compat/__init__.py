"""pallas-compat: one stable JAX Pallas API across JAX releases.

Public facade; the modules behind it are private. ``features()`` says what the installed JAX
supports and where each feature of the shared API-facts table resolves.
"""

from __future__ import annotations

from pallas_compat._env import keep_libtpu_offline

keep_libtpu_offline()

from pallas_compat._errors import MissingFeatureError, PallasCompatError  # noqa: E402
from pallas_compat._facts import FEATURES, FEATURES_BY_KEY, Feature, Location  # noqa: E402
from pallas_compat._resolve import Resolution, Resolved, resolve, resolve_all  # noqa: E402

__version__ = "0.1.0"

__all__ = [
    "FEATURES",
    "FEATURES_BY_KEY",
    "Feature",
    "Location",
    "MissingFeatureError",
    "PallasCompatError",
    "Resolution",
    "Resolved",
    "__version__",
    "features",
    "resolve",
]


def features() -> dict[str, dict[str, object]]:
    """What this JAX supports: feature key -> status, where it resolves, its modern spelling."""
    return {key: resolved.as_record() for key, resolved in resolve_all().items()}
