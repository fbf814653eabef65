"""An importable copy of the ops files one case needs, from one release, prepared for a route.

A shipped kernel imports its siblings by their absolute JAX path
(``from jax.experimental.pallas.ops.tpu.splash_attention import splash_attention_mask``). Run
from the installed JAX those would be the *installed* release's siblings, or missing: the
copy points them at the same old release instead, so an old kernel runs with its own mask
classes, block-size tables and helpers, and each file goes through the same route.
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

OPS = "jax.experimental.pallas.ops"
SHIM_IMPORTS = {
    "from jax.experimental import pallas as pl\n": "from pallas_compat import pl\n",
    "from jax.experimental.pallas import tpu as pltpu\n": "from pallas_compat import pltpu\n",
    "from jax.experimental.pallas import triton as plgpu\n": "from pallas_compat import pltriton as plgpu\n",
    "from jax.experimental.pallas import gpu as plgpu\n": "from pallas_compat import pltriton as plgpu\n",
}


def prepared_source(path: Path, route: str, target: str) -> str:
    """The file as the route runs it: as shipped, with the shim's imports, or migrated."""
    source = path.read_text()
    if route == "shim":
        for old, new in SHIM_IMPORTS.items():
            source = source.replace(old, new)
    elif route == "migrate":
        import libcst as cst

        from pallas_compat._migrate import migrate_module

        source = migrate_module(cst.parse_module(source), target).code
    return source


def ops_modules(source: str) -> list[str]:
    """Every ``jax.experimental.pallas.ops`` module the source imports (each imported name
    may itself be a module), as paths below ``ops`` without the suffix."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.startswith(OPS + ".")]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(OPS + "."):
            found += [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
    return [name.removeprefix(OPS + ".").replace(".", "/") for name in found]


def needed_files(release_dir: Path, file: str) -> list[str]:
    """``file``, the ``__init__.py`` of every folder above it, and every ops file they import."""
    todo, seen = [file], set[str]()
    while todo:
        current = todo.pop()
        if current in seen or not (release_dir / current).is_file():
            continue
        seen.add(current)
        parts = Path(current).parts[:-1]
        todo += ["/".join((*parts[:i], "__init__.py")) for i in range(len(parts) + 1)]
        for module in ops_modules((release_dir / current).read_text()):
            todo += [f"{module}.py", f"{module}/__init__.py"]
    return sorted(seen)


def build(release_dir: Path, file: str, route: str, target: str, root: Path, name: str) -> str:
    """Write package ``name`` under ``root``; return the dotted name of ``file`` in it."""
    for relative in needed_files(release_dir, file):
        source = prepared_source(release_dir / relative, route, target).replace(OPS, name)
        (root / name / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / name / relative).write_text(source)
    for folder in (root / name).rglob("*"):
        if folder.is_dir() and not (folder / "__init__.py").exists():
            (folder / "__init__.py").write_text("")
    if not (root / name / "__init__.py").exists():
        (root / name / "__init__.py").write_text("")
    return ".".join((name, *Path(file).with_suffix("").parts))


#: Where JAX keeps the PRNG implementations that modules register when imported (the
#: random ops register theirs): the module moved in 0.10.
PRNG_REGISTRIES = ("jax._src.prng", "jax._src.random.prng")


def prng_registry() -> dict[str, object]:
    for module in PRNG_REGISTRIES:
        try:
            registry = getattr(importlib.import_module(module), "prngs", None)
        except ImportError:
            continue
        if isinstance(registry, dict):
            return registry
    return {}


def forget(name: str, prngs_before: set[str]) -> None:
    """Drop the package from ``sys.modules``, and the PRNG implementations its import
    registered, so that the next route imports its own copy as if for the first time."""
    for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[module]
    registry = prng_registry()
    for added in set(registry) - prngs_before:
        del registry[added]
