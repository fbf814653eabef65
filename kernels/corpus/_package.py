"""An importable copy of the files one case needs, from one source tree, prepared for a route.

A kernel imports its siblings by their absolute path (``from jax.experimental.pallas.ops.tpu.
splash_attention import splash_attention_mask``, ``from jaxite.jaxite_lib import jax_helpers``)
or relatively (``from ._utils import SegmentIds``). Run from the installed packages those
would be the *installed* siblings, or missing: the copy points them at the same old tree
instead, so an old kernel runs with its own helpers, and each file goes through the same route.
"""

from __future__ import annotations

import ast
import functools
import importlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

OPS = "jax.experimental.pallas.ops"


@dataclass(frozen=True)
class Tree:
    """Where a corpus's sources live and how they name each other."""

    #: The folder the dotted ``prefix`` names (``ops/0.4.30`` for ``jax...ops``).
    base: Path
    #: What the files' absolute imports of each other start with.
    prefix: str = OPS
    #: Copy the real ``__init__.py`` of every folder above a file (JAX's ops: a few lines
    #: each); a library's own package files import the whole library (flax, optax, ...), so
    #: there the folders get empty ones, unless a file imports from the package itself.
    parent_inits: bool = True
    #: The JAX release the files were written for: migrate's route runs them on newer ones.
    written_for: str | None = None


def prepared_source(path: Path, route: str, target: str, written_for: str | None = None) -> str:
    """The file as the route runs it: as shipped, with the shim's imports, or migrated."""
    return _prepared(path.read_text(), route, target, written_for)


@functools.lru_cache(maxsize=512)
def _prepared(source: str, route: str, target: str, written_for: str | None = None) -> str:
    """Keyed by the text itself: a release's shared helpers (splash attention's mask files,
    megablox's common) come once per case that imports them, and migrating one takes
    longer than running the kernel. Across sessions, ``_memo`` keeps the shim's
    imports once per text (they do not depend on the target) and migrate's per target."""
    from kernels.corpus import _memo

    if route == "shim":
        from kernels.corpus._shim_imports import shim_imports

        return str(_memo.remembered("shim", source, "", lambda: shim_imports(source)))
    if route == "migrate":
        kept = _memo.recalled("migrate", source, target)
        if kept is not _memo.MISSING:
            return str(kept)
        targets = [
            t
            for t in _memo.migrate_targets(target, written_for)
            if t == target or _memo.recalled("migrate", source, t) is _memo.MISSING
        ]
        answers = migrated(source, targets)
        for release, answer in answers.items():
            _memo.remember("migrate", source, release, answer)
        return answers[target]
    return source


def migrated(source: str, targets: list[str]) -> dict[str, str]:
    """``pallas-compat migrate``'s rewrite of ``source`` for each of ``targets``."""
    from kernels.corpus._doctor_uses import nothing_to_migrate

    if nothing_to_migrate(source, find=False):
        return dict.fromkeys(targets, source)

    from pallas_compat.lint._migrate import Migration

    migration = Migration(source)  # as `pallas-compat migrate` runs it: read once
    return {target: migration.code(target) for target in targets}


@functools.lru_cache(maxsize=1024)
def imports(source: str, package: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(module, names) for every import of a source, relative ones resolved from ``package``
    (the full dotted name of the file's folder); ``names`` are what ``from module import``
    takes, each a submodule or an attribute of ``module``. Kept by text: every route of every
    case walks the same files' imports again."""
    found: list[tuple[str, tuple[str, ...]]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(a.name, ()) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            name = node.module or ""
            if node.level:
                parts = package.split(".") if package else []
                base = ".".join(parts[: len(parts) - node.level + 1])
                name = ".".join(p for p in (base, name) if p)
            found.append((name, tuple(a.name for a in node.names)))
    return tuple(found)


def package_of(file: str, prefix: str) -> str:
    """The package a file's relative imports start from: its folder, as a dotted name."""
    return ".".join(p for p in (prefix, *Path(file).parts[:-1]) if p)


def module_file(base: Path, dotted: str) -> str | None:
    """The file of module ``dotted`` (below the tree's prefix) under ``base``, if any."""
    path = dotted.replace(".", "/")
    for candidate in (f"{path}.py", f"{path}/__init__.py") if path else ("__init__.py",):
        if (base / candidate).is_file():
            return candidate
    return None


def tree_of(source: Tree | Path) -> Tree:
    """A folder alone is a release's ops tree."""
    return source if isinstance(source, Tree) else Tree(source)


def needed_files(source: Tree | Path, file: str) -> list[str]:
    """``file`` and every file of the tree it imports, transitively, plus (when the tree says
    so) the ``__init__.py`` of every folder above them. ``from package import name`` needs
    the package's own file only where ``name`` is not a submodule."""
    tree = tree_of(source)
    todo, seen = [file], set[str]()
    while todo:
        current = todo.pop()
        if current in seen or not (tree.base / current).is_file():
            continue
        seen.add(current)
        parts = Path(current).parts[:-1]
        if tree.parent_inits:
            todo += ["/".join((*parts[:i], "__init__.py")) for i in range(len(parts) + 1)]
        source_text = (tree.base / current).read_text()
        for module, names in imports(source_text, package_of(current, tree.prefix)):
            if module != tree.prefix and not module.startswith(tree.prefix + "."):
                continue
            inner = module.removeprefix(tree.prefix).lstrip(".")
            submodules = [module_file(tree.base, f"{inner}.{n}".lstrip(".")) for n in names]
            todo += [f for f in submodules if f]
            if not names or not all(submodules):
                todo += [f for f in [module_file(tree.base, inner)] if f]
    return sorted(seen)


def with_prefix(source: str, old: str, new: str) -> str:
    """``old`` -> ``new`` at the start of every absolute import of the tree."""
    pattern = re.compile(rf"^(\s*(?:from|import)\s+){re.escape(old)}(?=[\s.])", re.MULTILINE)
    return pattern.sub(lambda m: m.group(1) + new, source)


def build(source: Tree | Path, file: str, route: str, target: str, root: Path, name: str) -> str:
    """Write package ``name`` under ``root``; return the dotted name of ``file`` in it."""
    tree = tree_of(source)
    for relative in needed_files(tree, file):
        text = prepared_source(tree.base / relative, route, target, tree.written_for)
        text = with_prefix(text, tree.prefix, name)
        (root / name / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / name / relative).write_text(text)
    for folder in [root / name, *(root / name).rglob("*")]:
        if folder.is_dir() and not (folder / "__init__.py").exists():
            (folder / "__init__.py").write_text("")
    # The import system caches what each folder on sys.path held when it last looked (and
    # that a folder did not exist yet); files written within the same clock tick are missed.
    importlib.invalidate_caches()
    parts = Path(file).with_suffix("").parts
    return ".".join((name, *(parts[:-1] if parts[-1] == "__init__" else parts)))


#: Where JAX keeps the PRNG implementations that modules register when imported (the
#: random ops register theirs): the module moved in 0.10.2.
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
