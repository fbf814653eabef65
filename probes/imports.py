"""``python -m probes.imports``: import every public Pallas module in this (fresh) environment
and print, as one JSON line, what failed and which missing packages JAX did not declare."""

from __future__ import annotations

import importlib
import json
import os
import sys

from pallas_compat.facts import MOSAIC_GPU, PL, TPU, TRITON
from probes._runner import fork

#: Import name -> the distribution that provides it, where they differ.
DISTRIBUTIONS = {"absl": "absl-py", "yaml": "pyyaml", "google": "protobuf"}

MODULES = (PL, TPU, TRITON, MOSAIC_GPU)


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


def check_forked() -> dict[str, object]:
    """check() in a forked child: it shares the JAX this process imported (seconds saved) and
    leaves this process's own modules as they were, so the probes that follow see no change."""
    read_fd, write_fd = os.pipe()
    pid = fork()
    if pid == 0:  # the child: never return into the caller
        code = 70
        try:
            os.close(read_fd)
            with os.fdopen(write_fd, "w") as pipe:
                pipe.write(json.dumps(check(), sort_keys=True))
            code = 0
        finally:
            os._exit(code)
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        text = pipe.read()
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0 or not text:
        raise RuntimeError(
            f"the import check died (exit status {os.waitstatus_to_exitcode(status)})"
        )
    return json.loads(text)


if __name__ == "__main__":
    print(json.dumps(check(), sort_keys=True))
    sys.exit(0)
