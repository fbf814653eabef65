"""Regenerate ``pallas_compat/facts/release_ranges.json``: in which JAX releases each location of the
API-facts table exists, found by reading the Pallas sources of every release on PyPI.

    python scripts/scan_releases.py [--cache DIR] [--oldest 0.4.30]

Wheels come from ``pip download --no-deps jax==X`` (pure Python, a few MB each); only the
Pallas modules are read, with ``ast``, nothing is imported. A name counts as present when a
module defines, assigns or imports it at top level, or keeps it in its ``_deprecations`` table
with an object (deprecated); a ``_deprecations`` entry without an object means removed.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from packaging.version import Version

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "pallas_compat" / "facts" / "release_ranges.json"
sys.path.insert(0, str(REPO))

from pallas_compat.facts import (  # noqa: E402
    ALIASES,
    BACKENDS,
    FEATURES,
    FEATURES_BY_KEY,
    GPU_LEGACY,
    INVENTORIED_MODULES,
    MEMBER_FORMS,
    MEMBER_MOVES,
    PUBLIC_MODULES,
    Backend,
    CallForm,
)

#: The smaller public modules the probes inventory (``tpu_sc``, ``fuser``, ...): no shim
#: namespace or doctor rule reads them, but the report shows their names at every release.
OTHER_MODULES = tuple(m for m in INVENTORIED_MODULES if m not in PUBLIC_MODULES)


def releases(oldest: Version) -> list[str]:
    out = subprocess.run(
        # every release, whatever Python runs the scan (0.11 on need Python 3.12)
        [sys.executable, "-m", "pip", "index", "versions", "--ignore-requires-python", "jax"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    line = next(x for x in out.splitlines() if x.startswith("Available versions:"))
    found = [v.strip() for v in line.partition(":")[2].split(",")]
    return sorted((v for v in found if Version(v) >= oldest), key=Version)


#: A file every release has, outside Pallas: its presence says the extraction is whole.
WHOLE = "jax/_src/dtypes.py"


def sources(version: str, cache: Path) -> Path:
    root = cache / version
    if (root / WHOLE).is_file():
        return root
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--ignore-requires-python",
                f"jax=={version}",
                "-d",
                tmp,
            ],
            check=True,
        )
        wheel = next(Path(tmp).glob("jax-*.whl"))
        with zipfile.ZipFile(wheel) as zf:
            # every module: the table also watches JAX modules outside Pallas (for_loop, ...)
            members = [m for m in zf.namelist() if m.startswith("jax/") and m.endswith(".py")]
            zf.extractall(root, members)
    return root


def module_file(root: Path, module: str) -> Path | None:
    base = root.joinpath(*module.split("."))
    for path in (base / "__init__.py", base.with_suffix(".py")):
        if path.is_file():
            return path
    return None


#: "Use pl.X instead" in a deprecation message: the spelling JAX says the object went to
#: (a move is proven only when both names import one object, ``moves``).
MOVED = re.compile(rf"[Uu]se ({'|'.join(ALIASES.values())})\.(\w+) instead")
MODULE_OF_ALIAS = {alias: module for module, alias in ALIASES.items()}


def import_sources(root: Path, module: str) -> dict[str, tuple[str, str]]:
    """name -> (defining module, name there) for the module's top-level ``from X import Y``,
    including the objects its ``_deprecations`` table points at."""
    path = module_file(root, module)
    if path is None:
        return {}
    tree = ast.parse(path.read_text())
    sources: dict[str, tuple[str, str]] = {}
    for node in statements(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sources[alias.asname or alias.name] = (node.module, alias.name)
    for node in statements(tree):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "_deprecations" for t in targets):
            for key, value in zip(node.value.keys, node.value.values, strict=True):
                obj = value.elts[-1] if isinstance(value, ast.Tuple) else None
                if (
                    isinstance(key, ast.Constant)
                    and isinstance(obj, ast.Name)
                    and obj.id in sources
                ):
                    sources[key.value] = sources[obj.id]
    return sources


def moves(root: Path, messages: dict[str, str]) -> dict[str, str]:
    """``module:name`` -> ``module:name`` where a deprecation message says "use pl.X instead"
    and both names are the same object (imported from the same place) in this release."""
    found = {}
    for key, text in messages.items():
        module, _, name = key.partition(":")
        match = MOVED.search(text)
        if not match:
            continue
        target = MODULE_OF_ALIAS[match.group(1)]
        here = import_sources(root, module).get(name)
        there = import_sources(root, target).get(match.group(2))
        if here is not None and here == there:
            found[key] = f"{target}:{match.group(2)}"
    return found


def deprecation_messages(root: Path, module: str) -> dict[str, str]:
    """name -> the message of the module's ``_deprecations`` entry."""
    path = module_file(root, module)
    if path is None:
        return {}
    messages = {}
    for node in statements(ast.parse(path.read_text())):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "_deprecations" for t in targets):
            for key, value in zip(node.value.keys, node.value.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(value, ast.Tuple):
                    try:
                        messages[key.value] = " ".join(str(ast.literal_eval(value.elts[0])).split())
                    except ValueError:
                        continue
    return messages


def statements(tree: ast.Module | ast.If | ast.Try) -> list[ast.stmt]:
    """A module's top-level statements, with those under a top-level ``if`` or ``try``: from
    0.7.1 the ``_deprecations`` table sits in the ``else`` of ``if TYPE_CHECKING:``. Of an
    ``else`` only the table is read (its other statements import the helpers that build
    it); ``top_level_names`` applies the table's verdicts last, wherever it sits."""
    found: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.If | ast.Try):
            found += statements(node)
            found += [s for s in statements_of(node.orelse) if is_deprecations(s)]
        else:
            found.append(node)
    return found


def statements_of(body: list[ast.stmt]) -> list[ast.stmt]:
    return statements(ast.Module(body=body, type_ignores=[]))


def is_deprecations(node: ast.stmt) -> bool:
    """``_deprecations = {...}``: JAX's table of deprecated and removed names."""
    targets = node.targets if isinstance(node, ast.Assign) else []
    return any(isinstance(t, ast.Name) and t.id == "_deprecations" for t in targets)


#: What a module's top level says of a name (``MODULE``: bound by ``import x``, a module the
#: file uses, not a name of its API; the probes' inventories leave those out too).
PRESENT, DEPRECATED, REMOVED, MODULE = "present", "deprecated", "removed", "module"


def warns_on_import(node: ast.stmt) -> bool:
    """``deprecations.warn(...)`` or ``warnings.warn(...)`` at top level: the module itself is
    deprecated (``jax.experimental.pallas.gpu`` from 0.4.35), so each of its names warns."""
    call = node.value if isinstance(node, ast.Expr) else None
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "warn"
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id in ("deprecations", "warnings")
    )


def top_level_names(root: Path, module: str, seen: frozenset[str] = frozenset()) -> dict[str, str]:
    """name -> "present" | "deprecated" (works, warns) | "removed" for one module's top
    level."""
    path = module_file(root, module)
    if path is None or module in seen:
        return {}
    tree = ast.parse(path.read_text())
    names: dict[str, str] = {}
    #: The ``_deprecations`` table's verdicts, applied last: from 0.12 the table comes first
    #: and ``if TYPE_CHECKING:`` binds the deprecated names for type checkers afterwards.
    table: dict[str, str] = {}
    deprecated_module = False
    for node in statements(tree):
        deprecated_module = deprecated_module or warns_on_import(node)
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name == "*" and node.module:
                    names.update(top_level_names(root, node.module, seen | {module}))
                else:
                    names[alias.asname or alias.name] = "present"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.partition(".")[0]] = MODULE
        elif isinstance(node, ast.Delete):  # ``del types, assume  # Clean up.``
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names.pop(target.id, None)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names[node.name] = "present"
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    names[target.id] = "present"
            if isinstance(node.value, ast.Dict) and any(
                isinstance(t, ast.Name) and t.id == "_deprecations" for t in targets
            ):
                for key, value in zip(node.value.keys, node.value.values, strict=True):
                    if isinstance(key, ast.Constant) and isinstance(value, ast.Tuple):
                        obj = value.elts[-1]
                        removed = isinstance(obj, ast.Constant) and obj.value is None
                        table[key.value] = REMOVED if removed else DEPRECATED
    if deprecated_module:
        names = {name: DEPRECATED if works(state) else state for name, state in names.items()}
    return names | table


def works(state: str | None) -> bool:
    return state in (PRESENT, DEPRECATED, MODULE)


def api_names(found: Readings, versions: list[str], module: str) -> list[str]:
    """The public names some release's ``module`` binds, less the modules it imports."""
    seen = {
        name
        for v in versions
        for name, state in found.names[v][module].items()
        if state != MODULE and not name.startswith("_")
    }
    return sorted(seen - {"annotations"})


def call_forms(root: Path) -> dict[str, bool]:
    """The call forms whose acceptance changed: read from signatures, per release."""
    core = ast.parse((root / "jax/_src/pallas/core.py").read_text())
    block_spec = next(n for n in core.body if isinstance(n, ast.ClassDef) and n.name == BLOCK_SPEC)
    fields = [
        s.target.id
        for s in block_spec.body
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
    ]
    calls = ast.parse((root / "jax/_src/pallas/pallas_call.py").read_text())
    pallas_call = next(
        n for n in calls.body if isinstance(n, ast.FunctionDef) and n.name == PALLAS_CALL
    )
    params = {a.arg: a for a in pallas_call.args.args + pallas_call.args.kwonlyargs}
    annotation = ast.unparse(params["compiler_params"].annotation)
    return {
        CallForm.BLOCK_SPEC_ORDER: fields[0] == "index_map" or swaps_with_a_warning(block_spec),
        CallForm.F_KEYWORD: pallas_call.args.args[0].arg == "f",
        CallForm.DICT_PARAMS: annotation.startswith("dict["),
        CallForm.GPU_MODULE: module_file(root, GPU_LEGACY) is not None,
        # a subclass's own __init__ holds until JAX rebuilds specs from all their fields
        CallForm.BLOCK_SPEC_SUBCLASS: not rebuilds_specs(core),
        CallForm.BLOCKED_MODE: blocked_is_a_mode(root),
        CallForm.RECORDER_TWO_ARGS: recorder_arguments(root) == 2,
        CallForm.COST_ESTIMATE_NUMBERS: not cost_estimate_wants_ints(root),
    }


def warned_forms(root: Path) -> dict[str, bool]:
    """The call forms a release still takes with a ``DeprecationWarning``."""
    core = ast.parse((root / "jax/_src/pallas/core.py").read_text())
    block_spec = next(n for n in core.body if isinstance(n, ast.ClassDef) and n.name == BLOCK_SPEC)
    return {CallForm.BLOCK_SPEC_ORDER: swaps_with_a_warning(block_spec)}


def swaps_with_a_warning(block_spec: ast.ClassDef) -> bool:
    """Does ``BlockSpec.__init__`` take ``(index_map, block_shape)`` and swap them back with a
    ``DeprecationWarning`` (JAX 0.4.31-0.4.34: ``if callable(block_shape): warnings.warn(...,
    DeprecationWarning); index_map, block_shape = block_shape, index_map``)?"""
    init = next(
        (s for s in block_spec.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"),
        None,
    )
    if init is None:
        return False
    warns = any(
        isinstance(n, ast.Call)
        and ast.unparse(n.func) == "warnings.warn"
        and "DeprecationWarning" in ast.unparse(n)
        for n in ast.walk(init)
    )
    swaps = any(
        isinstance(n, ast.Assign)
        and ast.unparse(n) == "index_map, block_shape = (block_shape, index_map)"
        for n in ast.walk(init)
    )
    return warns and swaps


def cost_estimate_wants_ints(root: Path) -> bool:
    """Does ``CostEstimate.__post_init__`` check each field with ``isinstance(v, int)`` (from
    0.5.3: a NumPy integer or a float is refused)? A release without the class refuses no
    number (its name is drift of its own)."""
    for loc in reversed(FEATURES_BY_KEY["cost_estimate"].locations):
        hit = definition(root, loc.module, loc.attr)
        if hit is None or not isinstance(hit[0], ast.ClassDef):
            continue
        post_init = [
            n for n in hit[0].body if isinstance(n, ast.FunctionDef) and n.name == "__post_init__"
        ]
        return any(
            isinstance(n, ast.Call)
            and ast.unparse(n.func) == "isinstance"
            and len(n.args) == 2
            and ast.unparse(n.args[1]) == "int"
            for fn in post_init
            for n in ast.walk(fn)
        )
    return False


def recorder_arguments(root: Path) -> int | None:
    """How many arguments ``InterpretParams.grid_point_recorder`` is called with, from its
    annotation (``Callable[[tuple[np.int32, ...], np.int32], None]``: 2); None without one."""
    location = FEATURES_BY_KEY["tpu_simulator"].modern
    hit = definition(root, location.module, location.attr)
    classes = [hit] if hit is not None else []
    while classes:
        node, where = classes.pop()
        for statement in node.body if isinstance(node, ast.ClassDef) else ():
            target = getattr(statement, "target", None)
            if isinstance(target, ast.Name) and target.id == "grid_point_recorder":
                callable_ = next(
                    (
                        n
                        for n in ast.walk(statement.annotation)
                        if isinstance(n, ast.Subscript) and ast.unparse(n.value) == "Callable"
                    ),
                    None,
                )
                if callable_ is not None and isinstance(callable_.slice, ast.Tuple):
                    arguments = callable_.slice.elts[0]
                    return len(arguments.elts) if isinstance(arguments, ast.List) else None
        if isinstance(node, ast.ClassDef):
            classes += base_classes(root, node, where)
    return None


def blocked_is_a_mode(root: Path) -> bool:
    """Is ``pl.Blocked`` public and callable with no argument (the indexing mode)?"""
    if not works(top_level_names(root, PL_MODULE).get(BLOCKED)):
        return False
    hit = definition(root, PL_MODULE, BLOCKED)
    return hit is not None and not parameters(root, *hit)


def rebuilds_specs(core: ast.Module) -> bool:
    """Does Pallas' core call ``replace(..., memory_space=...)`` (``spec.replace`` or
    ``dataclasses.replace``), which re-creates a BlockSpec, subclass and all, by keyword?"""
    for node in ast.walk(core):
        if isinstance(node, ast.Call) and any(k.arg == "memory_space" for k in node.keywords):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name == "replace":
                return True
    return False


PL_MODULE = FEATURES_BY_KEY["pallas_call"].modern.module
BLOCKED = "Blocked"
#: The class and the function whose signatures hold the call forms, as JAX's sources name them.
BLOCK_SPEC = FEATURES_BY_KEY["block_spec"].modern.attr
PALLAS_CALL = FEATURES_BY_KEY["pallas_call"].modern.attr


def params_class(root: Path, backend: Backend) -> ast.ClassDef | None:
    """The class a backend's public params names are in this release (``pltpu.CompilerParams``,
    ``pltpu.TPUCompilerParams``, whichever the table lists and the release has), followed
    through its imports to where it is written: found by what it is, not by its name."""
    for loc in reversed(FEATURES_BY_KEY[backend.feature].locations):
        found = definition(root, loc.module, loc.attr)
        if found is not None and isinstance(found[0], ast.ClassDef):
            return found[0]
    return None


def param_fields(root: Path) -> dict[str, set[str]]:
    """Fields of each backend's params dataclass (none before 0.4.33: dicts only)."""
    found: dict[str, set[str]] = {}
    for backend in BACKENDS:
        node = params_class(root, backend) if backend.params_source else None
        if node is not None:
            found[backend.key] = {
                s.target.id
                for s in node.body
                if isinstance(s, ast.AnnAssign)
                and isinstance(s.target, ast.Name)
                and not s.target.id.isupper()
            }
    return found


def definition(root: Path, module: str, name: str, depth: int = 0) -> tuple[ast.AST, str] | None:
    """The ``def`` or ``class`` that ``module.name`` is, and the module it is written in,
    following ``from X import Y`` to where it is written."""
    path = module_file(root, module)
    if path is None or depth > 4:
        return None
    tree = ast.parse(path.read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
            return node, module
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    return definition(root, node.module, alias.name, depth + 1)
    kept = deprecated_object(tree, name)
    if kept is not None and kept != name:
        return definition(root, module, kept, depth + 1)
    return None


def deprecated_object(tree: ast.Module, name: str) -> str | None:
    """The module-level name a ``_deprecations`` entry keeps ``name``'s object under
    (``"core_map": (message, _deprecated_core_map)`` from 0.11.1): a deprecated callable still
    takes its keywords, and its signature is read there."""
    for node in statements(tree):
        if not is_deprecations(node) or not isinstance(node, ast.Assign):
            continue
        if not isinstance(node.value, ast.Dict):
            continue
        for key, value in zip(node.value.keys, node.value.values, strict=True):
            if (
                isinstance(key, ast.Constant)
                and key.value == name
                and isinstance(value, ast.Tuple)
                and isinstance(value.elts[-1], ast.Name)
            ):
                return value.elts[-1].id
    return None


def module_aliases(root: Path, module: str) -> dict[str, str]:
    """Local name -> dotted module, for a module's ``import x.y as z`` / ``from x import y``."""
    path = module_file(root, module)
    found: dict[str, str] = {}
    for node in ast.parse(path.read_text()).body if path else []:
        if isinstance(node, ast.Import):
            for alias in node.names:
                found[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                found[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return found


def base_classes(root: Path, node: ast.ClassDef, module: str) -> list[tuple[ast.AST, str]]:
    """The class definitions a class inherits from, where they can be found."""
    found = []
    for base in node.bases:
        if isinstance(base, ast.Name):
            hit = definition(root, module, base.id)
        elif isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name):
            owner = module_aliases(root, module).get(base.value.id)
            hit = definition(root, owner, base.attr) if owner else None
        else:
            hit = None
        if hit is not None:
            found.append(hit)
    return found


def parameters(root: Path, node: ast.AST, module: str, depth: int = 0) -> set[str]:
    """The keywords a ``def`` takes, or a class: its ``__init__``'s, else its fields and the
    fields it inherits (a dataclass subclass adds its fields to its bases'). A ``def`` that
    hands its ``**kwargs`` on to a callable of its module takes that one's keywords too
    (``plgpu.kernel(**mesh_kwargs)`` builds ``Mesh(**mesh_kwargs)``: ``grid=`` is taken)."""
    if isinstance(node, ast.FunctionDef):
        args = node.args
        found = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} - {"self", "cls"}
        if args.kwarg is not None and depth <= 4:
            found |= forwarded(root, node, module, args.kwarg.arg, depth)
        return found
    if not isinstance(node, ast.ClassDef) or depth > 4:
        return set()
    init = next(
        (n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None
    )
    if init is not None:
        return parameters(root, init, module)
    fields = {
        s.target.id
        for s in node.body
        if isinstance(s, ast.AnnAssign)
        and isinstance(s.target, ast.Name)
        and not s.target.id.isupper()
        and "ClassVar" not in ast.unparse(s.annotation)
    }
    for base, where in base_classes(root, node, module):
        fields |= parameters(root, base, where, depth + 1)
    return fields


def forwarded(root: Path, node: ast.FunctionDef, module: str, kwargs: str, depth: int) -> set[str]:
    """The keywords of the callables of ``module`` that ``node`` calls with ``**kwargs``."""
    found: set[str] = set()
    for call in ast.walk(node):
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
            continue
        if any(
            k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kwargs
            for k in call.keywords
        ):
            hit = definition(root, module, call.func.id)
            if hit is not None:
                found |= parameters(root, *hit, depth + 1)
    return found


def dataclass_options(node: ast.ClassDef) -> dict[str, bool] | None:
    """``@dataclass(kw_only=True, ...)`` -> its boolean options; None for no dataclass."""
    for decorator in node.decorator_list:
        func = decorator.func if isinstance(decorator, ast.Call) else decorator
        if ast.unparse(func).rpartition(".")[2] != "dataclass":
            continue
        keywords = decorator.keywords if isinstance(decorator, ast.Call) else []
        return {
            k.arg: bool(k.value.value)
            for k in keywords
            if k.arg and isinstance(k.value, ast.Constant)
        }
    return None


def init_fields(node: ast.ClassDef) -> list[tuple[str, bool]]:
    """A dataclass's own ``__init__`` fields, in order, each with whether it is keyword-only
    (after a ``KW_ONLY`` marker, or ``field(kw_only=True)``); ``init=False`` fields left out."""
    found = []
    kw_only = False
    for statement in node.body:
        if not isinstance(statement, ast.AnnAssign) or not isinstance(statement.target, ast.Name):
            continue
        annotation = ast.unparse(statement.annotation)
        if annotation.rpartition(".")[2] == "KW_ONLY":
            kw_only = True
            continue
        name = statement.target.id
        if "ClassVar" in annotation or name.isupper():
            continue
        options = {
            k.arg: k.value.value
            for k in (statement.value.keywords if isinstance(statement.value, ast.Call) else [])
            if k.arg and isinstance(k.value, ast.Constant)
        }
        if options.get("init") is False:
            continue
        found.append((name, kw_only or bool(options.get("kw_only"))))
    return found


def positional(root: Path, node: ast.AST, module: str, depth: int = 0) -> tuple[str, ...] | None:
    """What a ``def`` or class takes by position, in order (``plgpu.Barrier``: ``num_arrivals,
    num_barriers`` to 0.6.1, nothing from 0.6.2, a ``kw_only`` dataclass); None where that
    cannot be read (``*args``, a class built another way)."""
    if isinstance(node, ast.FunctionDef):
        args = node.args
        if args.vararg is not None:
            return None
        return tuple(a.arg for a in args.posonlyargs + args.args if a.arg not in ("self", "cls"))
    if not isinstance(node, ast.ClassDef) or depth > 4:
        return None
    init = next(
        (n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None
    )
    if init is not None:
        return positional(root, init, module)
    options = dataclass_options(node)
    inherited: list[str] = []
    for base, where in base_classes(root, node, module):
        found = positional(root, base, where, depth + 1)
        if found is None:
            return None
        inherited += found
    if options is None:
        return tuple(inherited) if inherited else None
    if options.get("kw_only"):
        return tuple(inherited)
    return (*inherited, *(name for name, kw_only in init_fields(node) if not kw_only))


def public_positionals(root: Path) -> dict[str, tuple[str, ...]]:
    """``module:name`` -> what each public callable of the public modules takes by position."""
    found = {}
    for module in PUBLIC_MODULES:
        for name, state in top_level_names(root, module).items():
            if name.startswith("_") or not works(state):
                continue
            hit = definition(root, module, name)
            if hit is not None and (taken := positional(root, *hit)) is not None:
                found[f"{module}:{name}"] = taken
    return found


def positional_ranges(
    versions: list[str], per_release: dict[str, dict[str, tuple[str, ...]]]
) -> dict[str, dict[str, Any]]:
    """For each public callable whose positions changed while it lived: the releases it lived
    in, and each position in order as ``[name, releases that take an argument there]`` (the
    name the newest such release gives it); a call with ``k`` positional arguments works where
    position ``k`` is taken."""
    table: dict[str, dict[str, Any]] = {}
    for key in sorted(set().union(*(per_release[v] for v in versions))):
        lived = [v for v in versions if key in per_release[v]]
        lived_spans = ranges([(v, v in lived) for v in versions])
        widest = max(len(per_release[v][key]) for v in lived)
        positions = []
        for index in range(widest):
            having = [v for v in lived if len(per_release[v][key]) > index]
            positions.append(
                [
                    per_release[having[-1]][key][index],
                    ranges([(v, v in having) for v in versions]),
                ]
            )
        if any(spans != lived_spans for _, spans in positions):
            table[key] = {"lived": lived_spans, "positions": positions}
    return table


def public_signatures(root: Path) -> dict[str, set[str]]:
    """``module:name`` -> the keywords of every public callable of the public modules."""
    found = {}
    for module in PUBLIC_MODULES:
        for name, state in top_level_names(root, module).items():
            if name.startswith("_") or not works(state):
                continue
            hit = definition(root, module, name)
            if hit is not None:
                found[f"{module}:{name}"] = parameters(root, *hit)
    return found


def enum_members(root: Path) -> dict[str, set[str]]:
    """``module:Enum`` -> its members, for the enums JAX moved members out of
    (``pltpu.MemorySpace.ANY`` left the class in 0.8.2, an alias to 0.9.0.1) or replaced by a form (``plgpu.Layout.WGMMA_ROW``,
    ``Layout.WGMMA.reduce(1)`` from 0.7.0): doctor tells where ``Enum.MEMBER`` works. A
    member counts where the class assigns it, or its module does (``Layout.WGMMA_ROW = ...``
    after the class, 0.7.0-0.8.3)."""
    found = {}
    owners = dict.fromkeys([*(o for o, _ in MEMBER_MOVES), *(o for o, _ in MEMBER_FORMS)])
    for owner in owners:
        for loc in FEATURES_BY_KEY[owner].locations:
            hit = definition(root, loc.module, loc.attr)
            if hit is None or not isinstance(hit[0], ast.ClassDef):
                continue
            members = {
                target.id
                for node in hit[0].body
                if isinstance(node, ast.Assign)
                for target in node.targets
                if isinstance(target, ast.Name)
            }
            written_in = module_file(root, hit[1])
            for node in ast.parse(written_in.read_text()).body if written_in else []:
                if isinstance(node, ast.Assign):
                    members |= {
                        target.attr
                        for target in node.targets
                        if isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == loc.attr
                    }
            found[f"{loc.module}:{loc.attr}"] = members
    return found


def keyword_ranges(
    versions: list[str], signatures: dict[str, dict[str, set[str]]]
) -> dict[str, dict[str, list[list[str]]]]:
    """For each public callable, the releases of each keyword that came or went while the
    callable existed (``emit_pipeline(should_accumulate_out=...)``: 0.4.30-0.9.2)."""
    table: dict[str, dict[str, list[list[str]]]] = {}
    for key in sorted(set().union(*(signatures[v] for v in versions))):
        lived = [v for v in versions if key in signatures[v]]
        changed = {}
        for word in sorted(set().union(*(signatures[v][key] for v in lived))):
            spans = ranges(
                [(v, key in signatures[v] and word in signatures[v][key]) for v in versions]
            )
            if spans != ranges([(v, v in lived) for v in versions]):
                changed[word] = spans
        if changed:
            table[key] = changed
    return table


def deprecated_ranges(
    versions: list[str], per_release: dict[str, dict[str, dict[str, str]]]
) -> dict[str, list[list[str]]]:
    """``module:name`` -> the releases where the name still works but warns (JAX's
    ``_deprecations`` table holds it with its object): doctor's "works with a warning"."""
    keys = {
        f"{module}:{name}"
        for v in versions
        for module in (*PUBLIC_MODULES, *OTHER_MODULES)
        for name, state in per_release[v][module].items()
        if state == DEPRECATED
    }
    return {
        key: ranges(
            [
                (v, per_release[v][key.partition(":")[0]].get(key.partition(":")[2]) == DEPRECATED)
                for v in versions
            ]
        )
        for key in sorted(keys)
    }


def ranges(flags: list[tuple[str, bool]]) -> list[list[str]]:
    spans: list[list[str]] = []
    for version, present in flags:
        if present and spans and spans[-1][2:] == ["open"]:
            spans[-1][1] = version
        elif present:
            spans.append([version, version, "open"])
        elif spans:
            spans[-1][2:] = []
    return [span[:2] for span in spans]


#: JAX 0.11 on is written in Python 3.12 syntax (``def f[T](...)``): older ``ast`` cannot read it.
NEEDS_PYTHON = (3, 12)


@dataclass
class Readings:
    """What the scan read from each release's sources, by release."""

    names: dict[str, dict[str, dict[str, str]]] = field(default_factory=dict)
    forms: dict[str, dict[str, bool]] = field(default_factory=dict)
    warned: dict[str, dict[str, bool]] = field(default_factory=dict)
    fields: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    signatures: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    positionals: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    members: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    #: JAX's deprecation messages (the newest release's wording wins) and proven moves.
    messages: dict[str, str] = field(default_factory=dict)
    moved: dict[str, str] = field(default_factory=dict)


def read(versions: list[str], cache: Path) -> Readings:
    found = Readings()
    modules = {loc.module for f in FEATURES for loc in f.locations}
    modules |= {*PUBLIC_MODULES, *OTHER_MODULES}
    for version in versions:
        root = sources(version, cache)
        found.names[version] = {m: top_level_names(root, m) for m in modules}
        found.forms[version] = call_forms(root)
        found.warned[version] = warned_forms(root)
        found.fields[version] = param_fields(root)
        found.signatures[version] = public_signatures(root)
        found.positionals[version] = public_positionals(root)
        found.members[version] = enum_members(root)
        release_messages = {}
        for module in PUBLIC_MODULES:
            for name, text in deprecation_messages(root, module).items():
                release_messages[f"{module}:{name}"] = text
        found.messages.update(release_messages)
        found.moved.update(moves(root, release_messages))
    return found


def location_ranges(
    found: Readings, versions: list[str], cache: Path
) -> dict[str, list[list[str]]]:
    """Every location of the table: the releases that have it (a name, or a module)."""
    locations = {}
    for feature in FEATURES:
        for loc in feature.locations:
            flags = [
                (
                    v,
                    works(found.names[v][loc.module].get(loc.attr))
                    or module_file(sources(v, cache), f"{loc.module}.{loc.attr}") is not None,
                )
                for v in versions
            ]
            locations[f"{loc.module}:{loc.attr}"] = ranges(flags)
    return dict(sorted(locations.items()))


def name_ranges(
    found: Readings, versions: list[str], locations: dict[str, Any]
) -> dict[str, dict[str, Any]]:
    """Every other public name of the Pallas modules that some release lacks."""
    names = {}
    for module in PUBLIC_MODULES:
        for name in api_names(found, versions, module):
            key = f"{module}:{name}"
            spans = ranges([(v, works(found.names[v][module].get(name))) for v in versions])
            if key not in locations and spans != [[versions[0], versions[-1]]]:
                names[key] = {
                    "releases": spans,
                    "message": found.messages.get(key),
                    "moved_to": found.moved.get(key),
                }
    return names


def other_name_ranges(found: Readings, versions: list[str]) -> dict[str, list[list[str]]]:
    """Every public name of ``OTHER_MODULES``, with the releases that have it (a module that
    does not exist yet has none of its names)."""
    names = {}
    for module in OTHER_MODULES:
        for name in api_names(found, versions, module):
            flags = [(v, works(found.names[v][module].get(name))) for v in versions]
            names[f"{module}:{name}"] = ranges(flags)
    return names


def set_ranges(versions: list[str], sets: dict[str, dict[str, set[str]]]) -> dict[str, Any]:
    """``{group: {item: spans}}`` for per-release ``{group: {items}}`` (fields, members)."""
    groups = sorted(set().union(*(sets[v] for v in versions)))
    return {
        group: {
            item: ranges([(v, item in sets[v].get(group, set())) for v in versions])
            for item in sorted(set().union(*(sets[v].get(group, set()) for v in versions)))
        }
        for group in groups
    }


def table(found: Readings, versions: list[str], cache: Path) -> dict[str, Any]:
    locations = location_ranges(found, versions, cache)
    backends = [b.key for b in BACKENDS if b.params_source]
    fields = set_ranges(versions, found.fields)
    members = set_ranges(versions, found.members)
    return {
        "source": "scripts/scan_releases.py: ast scan of each release's Pallas sources",
        "releases": versions,
        "locations": locations,
        "call_forms": {
            form: ranges([(v, found.forms[v][form]) for v in versions])
            for form in found.forms[versions[0]]
        },
        "call_forms_warned": {
            form: ranges([(v, found.warned[v][form]) for v in versions])
            for form in found.warned[versions[0]]
        },
        "compiler_params_fields": {backend: fields.get(backend, {}) for backend in backends},
        "names": name_ranges(found, versions, locations),
        "other_names": other_name_ranges(found, versions),
        "keywords": keyword_ranges(versions, found.signatures),
        "positional": positional_ranges(versions, found.positionals),
        "deprecated": deprecated_ranges(versions, found.names),
        "members": {
            f"{enum}.{member}": spans
            for enum, by_member in members.items()
            for member, spans in by_member.items()
        },
    }


def main() -> int:
    if sys.version_info < NEEDS_PYTHON:
        print(
            f"scan_releases: error: needs Python {'.'.join(map(str, NEEDS_PYTHON))}+ to read "
            "the sources of JAX 0.11 on (e.g. PYENV_VERSION=3.12.1 python scripts/...)",
            file=sys.stderr,
        )
        return 2
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "jax-sources")
    parser.add_argument("--oldest", default="0.4.30")
    args = parser.parse_args()
    versions = releases(Version(args.oldest))
    result = table(read(versions, args.cache), versions, args.cache)
    tmp = OUT.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result, indent=1) + "\n")
    tmp.replace(OUT)
    print(f"wrote {OUT}: {len(result['locations'])} locations over {len(versions)} releases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
