"""``python -m probes.imports``: import every public Pallas module in this (fresh) environment
and print, as one JSON line, what failed and which missing packages JAX did not declare."""

from __future__ import annotations

import importlib
import json
import sys

#: Import name -> the distribution that provides it, where they differ.
DISTRIBUTIONS = {"absl": "absl-py", "yaml": "pyyaml", "google": "protobuf"}

MODULES = (
    "jax.experimental.pallas",
    "jax.experimental.pallas.tpu",
    "jax.experimental.pallas.triton",
    "jax.experimental.pallas.mosaic_gpu",
)


def check() -> dict[str, object]:
    errors: dict[str, str] = {}
    undeclared: set[str] = set()
    for module in MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            errors[module] = f"ModuleNotFoundError: {exc}"
            top = (exc.name or "").partition(".")[0]
            if top and top not in ("jax", "jaxlib"):
                undeclared.add(top)
        except Exception as exc:  # recorded, never fatal: the probes look closer
            errors[module] = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return {
        "errors": errors,
        "undeclared": sorted(undeclared),
        "install": sorted(DISTRIBUTIONS.get(name, name) for name in undeclared),
    }


if __name__ == "__main__":
    print(json.dumps(check(), sort_keys=True))
    sys.exit(0)
