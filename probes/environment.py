"""What was probed: versions of Python, JAX and its plugins, platform and backend."""

from __future__ import annotations

import importlib.metadata as metadata
import os
import platform
import re
from typing import Any

from probes import SCHEMA
from probes._observe import python_version
from probes._registry import probe

_PLUGIN = re.compile(
    r"^(libtpu|jax[-_]cuda\d*[-_].*|jax[-_]rocm.*|jax[-_]tpu.*|jax[-_]metal)$", re.I
)


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


@probe("environment.versions")
def versions() -> dict[str, Any]:
    plugins = {
        dist.metadata["Name"].lower(): dist.version
        for dist in metadata.distributions()
        if dist.metadata["Name"] and _PLUGIN.match(dist.metadata["Name"])
    }
    return {
        "schema": SCHEMA,
        "python": python_version(),
        "jax": _version("jax"),
        "jaxlib": _version("jaxlib"),
        "plugins": dict(sorted(plugins.items())),
        "platform": f"{platform.system().lower()}-{platform.machine()}",
        "xla_flags": os.environ.get("XLA_FLAGS", ""),
    }


@probe("environment.jax_requires")
def jax_requires() -> list[str]:
    """What jax declares it needs: an import of anything else is an undeclared dependency."""
    return sorted(metadata.requires("jax") or [])


@probe("environment.backend")
def backend() -> dict[str, Any]:
    import jax

    return {
        "default_backend": jax.default_backend(),
        "device_kinds": sorted({d.device_kind for d in jax.devices()}),
        "device_count": jax.device_count(),
    }
