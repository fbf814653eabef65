"""``pytest -p pallas_compat.pytest_plugin``: run a test suite written for an older JAX on the
installed one. ``pallas_compat.patch()`` is installed when pytest loads the plugin, before any
conftest or test module imports Pallas; ``pallas-compat matrix`` uses it for its patch route."""

from __future__ import annotations

from importlib import metadata

import pallas_compat

pallas_compat.patch()


def pytest_report_header() -> str:
    return f"pallas-compat {pallas_compat.__version__}: patch() installed into JAX {_jax()}"


def _jax() -> str:
    try:
        return metadata.version("jax")
    except metadata.PackageNotFoundError:  # pragma: no cover - pallas_compat needs JAX
        return "unknown"
