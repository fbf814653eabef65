"""Find uses of drifted Pallas APIs in source code (libcst), for ``doctor`` and ``migrate``.

What counts as drifted, and where each spelling works, comes from the API-facts table and its
scanned release ranges: a public location that some scanned release lacks, or a call form
that some release refuses.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import gc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import libcst as cst
from libcst.metadata import PositionProvider, QualifiedNameProvider
from packaging.version import Version

from pallas_compat import _cost_analysis, _facts
from pallas_compat._block_spec_order import Bindings, block_spec_order
from pallas_compat._block_spec_subclass import own_init, subclasses_block_spec
from pallas_compat._expansions import Expansions, expansions
from pallas_compat._facts import (
    BLOCK_SPEC_ORDER,
    BLOCK_SPEC_SUBCLASS,
    BLOCKED_MODE,
    CALL_FORMS,
    CALL_KEYWORDS,
    COST_ANALYSIS_HINT,
    COST_ANALYSIS_INDEX,
    DICT_PARAMS,
    F_KEYWORD,
    FEATURES_BY_KEY,
    GPU_LEGACY,
    GPU_MODULE,
    KEYWORD_ADVICE,
    MEMBER_MOVES,
    PARAM_FIELDS,
    PL,
    PUBLIC_MODULES,
    RECORDER_TWO_ARGS,
    WRITE_INSTEAD,
    Feature,
    Location,
    backend_of,
    call_form_releases,
    cost_analysis_index_releases,
    describe,
    dict_params_form,
    keyword_releases,
    release_ranges,
    renamed_keyword,
    scanned_releases,
    works_in,
)
from pallas_compat._recorder import recorder_arguments, two_argument_recorder

#: A BlockSpec whose two arguments are neither literals nor bound to something that tells.
ORDER_UNKNOWN = "BlockSpec(?, ?): argument order unknown"


def order_hint() -> str:
    old = describe(call_form_releases(BLOCK_SPEC_ORDER))
    return (
        f"{CALL_FORMS[BLOCK_SPEC_ORDER]}; JAX {old} took index_map first: check which "
        "argument is the index map"
    )


class UseState(str, enum.Enum):
    """How a use fares on one release; the values are the words doctor prints."""

    WORKS = "works"
    WARNS = "works with a warning"
    BREAKS = "breaks"
    UNKNOWN = "cannot tell"

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class Use:
    """One use of a drifted API in one file."""

    path: str
    line: int
    column: int
    api: str
    works: tuple[tuple[str, str], ...]
    hint: str
    #: False when the releases it works in cannot be told from the source (``order unknown``).
    certain: bool = True
    #: Of the releases it works in, those where it warns (JAX deprecated it).
    warns: tuple[tuple[str, str], ...] = ()

    def state_on(self, release: str) -> UseState:
        if not self.certain:
            return UseState.UNKNOWN
        if not works_in([list(span) for span in self.works], release):
            return UseState.BREAKS
        if works_in([list(span) for span in self.warns], release):
            return UseState.WARNS
        return UseState.WORKS

    def breaks_on(self, release: str) -> bool:
        return self.state_on(release) is UseState.BREAKS

    def removed_in(self) -> str | None:
        """The first release after the last one it works in, if any."""
        if not self.works:
            return None
        last = max((Version(end) for _, end in self.works))
        later = [r for r in scanned_releases() if Version(r) > last]
        return later[0] if later else None

    def verdict(self, release: str) -> str:
        state = self.state_on(release)
        if state is UseState.UNKNOWN:
            return f"cannot tell from the source whether it breaks on {release}"
        if state is UseState.WARNS:
            gone = self.removed_in()
            return f"works with a warning on {release}: deprecated" + (
                f", gone in JAX {gone}" if gone else ""
            )
        return f"{state} on {release}"

    def as_record(self, target: str) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "api": self.api,
            "works_in": describe([list(span) for span in self.works]) if self.certain else "?",
            "deprecated_in": describe([list(span) for span in self.warns]) if self.warns else None,
            "state_on_target": str(self.state_on(target)),
            "breaks_on_target": self.breaks_on(target) if self.certain else None,
            "write_instead": self.hint,
        }


@dataclass(frozen=True)
class Drift:
    """A public name that some scanned release lacks, and what to write instead."""

    location: Location
    spans: tuple[tuple[str, str], ...]
    hint: str
    #: The API-facts feature it belongs to; None for names known only from the release scan.
    feature: Feature | None = None
    #: Where JAX moved the same object (proven by the scan: both names import one object).
    moved_to: Location | None = None


@functools.cache
def drifted_names() -> dict[str, Drift]:
    """Qualified name -> Drift: the API-facts locations, then every other public Pallas name
    that came or went (with JAX's own deprecation message where it wrote one)."""
    every = [[scanned_releases()[0], scanned_releases()[-1]]]
    table = {}
    for feature in _facts.FEATURES:  # looked up now: the table may have grown
        for loc in feature.locations:
            if (not loc.private or feature.outside) and loc.releases != every:
                spans = tuple(tuple(s) for s in loc.releases)
                table[f"{loc.module}.{loc.attr}"] = Drift(loc, spans, feature.hint, feature)
    for key, entry in release_ranges()["names"].items():
        loc = Location.parse(key)
        spans = tuple(tuple(s) for s in entry["releases"])
        hint = (
            WRITE_INSTEAD.get(key)
            or entry["message"]
            or f"JAX left no migration message; it exists in {describe(entry['releases'])}"
        )
        moved = Location.parse(entry["moved_to"]) if entry["moved_to"] else None
        table.setdefault(f"{loc.module}.{loc.attr}", Drift(loc, spans, hint, None, moved))
    return table


@functools.cache
def needles() -> tuple[bytes, ...]:
    """Words a source must contain to use any drifted name: its Pallas or ``jax`` module part
    (``pallas`` for every Pallas module, ``enable_x64`` for ``jax.experimental.enable_x64``)."""
    words = set()
    for qname in drifted_names():
        parts = qname.split(".")
        rest = parts[2:] if parts[1] == "experimental" else parts[1:]
        words.add(rest[0].encode())
    return tuple(sorted(words))


def may_use_pallas(data: bytes) -> bool:
    """False when ``data`` cannot use a drifted name: most files of a tree, never parsed."""
    return any(word in data for word in needles())


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Run libcst without the cyclic collector: its trees are acyclic and freed by reference
    counting, and the collector re-scanning a growing tree made a 20,000-line file superlinear."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@functools.cache
def moved_members() -> dict[str, tuple[str, tuple[tuple[str, str], ...], str]]:
    """``<module>.<enum>.<MEMBER>`` -> (spelling, the releases that have it, hint) for the
    members JAX moved out of an enum (``pltpu.MemorySpace.ANY``: 0.6.2-0.8.1, then
    ``pl.ANY``); the release scan reads each release's enum."""
    found = {}
    members = release_ranges().get("members", {})
    for (owner, member), key in MEMBER_MOVES.items():
        new = FEATURES_BY_KEY[key].modern
        for loc in FEATURES_BY_KEY[owner].locations:
            hint = f"{new.spelling} ({new.spelling} exists in JAX {describe(new.releases)})"
            spans = tuple(tuple(s) for s in members.get(f"{loc.module}:{loc.attr}.{member}", []))
            found[f"{loc.module}.{loc.attr}.{member}"] = (f"{loc.spelling}.{member}", spans, hint)
    return found


def qualified(node: cst.CSTNode, visitor: cst.MetadataDependent) -> set[str]:
    """The node's qualified names, and what the module's star imports and module aliases make
    of it where the visitor has read them (``visitor.expansions``)."""
    names = {q.name for q in visitor.get_metadata(QualifiedNameProvider, node, set())}
    more: Expansions | None = getattr(visitor, "expansions", None)
    return more.expand(node, names) if more is not None else names


#: What a module imported by name at run time could hold: doctor cannot tell.
RUN_TIME_IMPORT = "importlib.import_module({!r})"
RUN_TIME_HINT = (
    "doctor and migrate cannot follow a module imported by name at run time: import it by "
    "name (from jax.experimental import pallas as pl) so that its uses are checked"
)


def is_call_to(node: cst.Call, visitor: cst.MetadataDependent, name: str) -> bool:
    return f"{PL}.{name}" in qualified(node.func, visitor)


def keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword and a.keyword.value == name), None)


def dict_entries(node: cst.BaseExpression) -> list[tuple[str, cst.BaseExpression]] | None:
    """``{"k": v}`` or ``dict(k=v)`` with plain keys -> [(k, v)]; anything else -> None."""
    if isinstance(node, cst.Dict):
        entries = []
        for element in node.elements:
            if not isinstance(element, cst.DictElement) or not isinstance(
                element.key, cst.SimpleString
            ):
                return None
            entries.append((element.key.evaluated_value, element.value))
        return entries
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "dict":
        if any(a.keyword is None for a in node.args):
            return None
        return [(a.keyword.value, a.value) for a in node.args if a.keyword]
    return None


def dict_params(call: cst.Call) -> tuple[str, list[tuple[str, cst.BaseExpression]]] | None:
    """``compiler_params={"mosaic": {...}}`` with one backend -> (backend, fields)."""
    arg = keyword(call, "compiler_params")
    outer = dict_entries(arg.value) if arg else None
    if not outer or len(outer) != 1:
        return None
    backend, inner = outer[0]
    fields = dict_entries(inner)
    found = backend_of(backend)
    if fields is None or found is None or not found.dict_fields:
        return None
    return found.key, fields


def unknown_param_keys(entries: list[tuple[str, cst.BaseExpression]]) -> str:
    """``{"triton": {"num_wraps": 4}}``: the keys no release's params know, named (the
    dict-era Triton lowering ignored them, so the typo never failed), or ``""``."""
    if len(entries) != 1 or (backend := backend_of(entries[0][0])) is None:
        return ""
    fields = dict_entries(entries[0][1]) or []
    unknown = [name for name, _ in fields if name not in PARAM_FIELDS.get(backend.key, {})]
    if not unknown:
        return ""
    names = ", ".join(f"{name}=" for name in unknown)
    if backend.dict_ignored_unknown_keys:
        return (
            f"{names} is no {backend.key} param of any release (the dict era ignored it; "
            "migrate drops it)"
        )
    return f"{names} is no {backend.key} param of any release: fix the spelling or remove it"


def form_use(path: str, node: cst.CSTNode, visitor: cst.MetadataDependent, form: str) -> Use:
    spans = tuple(tuple(s) for s in call_form_releases(form))
    pos = visitor.get_metadata(PositionProvider, node).start
    return Use(path, pos.line, pos.column + 1, form, spans, CALL_FORMS[form])


def keyword_use(
    path: str, callable_key: str, arg: cst.Arg, visitor: cst.MetadataDependent
) -> Use | None:
    """``pltpu.emit_pipeline(should_accumulate_out=...)``: a keyword of a public Pallas
    callable (``module:name``) that came or went while the callable lived (the scan reads
    every release's signatures), with the releases that take it."""
    name = arg.keyword.value if arg.keyword else ""
    spans = keyword_releases(callable_key, name)
    if not spans:
        return None
    location = Location.parse(callable_key)
    # pallas_call's keywords keep the label the report's rows use
    call = f"{location.attr if callable_key == PALLAS_CALL else location.spelling}({name}=...)"
    newer = renamed_keyword(callable_key, name)
    if callable_key == PALLAS_CALL and name in CALL_KEYWORDS:
        hint = CALL_KEYWORDS[name]
    elif (callable_key, name) in KEYWORD_ADVICE:
        hint = KEYWORD_ADVICE[(callable_key, name)]
    elif newer is not None:
        hint = f"{location.spelling}({newer}=...): the same argument, renamed"
    else:
        hint = f"{call} exists in JAX {describe(spans)}; leave it out where it is not"
    pos = visitor.get_metadata(PositionProvider, arg).start
    return Use(path, pos.line, pos.column + 1, call, tuple(map(tuple, spans)), hint)


def callable_key(node: cst.BaseExpression, visitor: cst.MetadataDependent) -> str | None:
    """``module:name`` of the public Pallas callable an expression names, if any."""
    for qname in qualified(node, visitor):
        module, _, name = qname.rpartition(".")
        if module in PUBLIC_MODULES:
            return f"{module}:{name}"
    return None


PALLAS_CALL = f"{PL}:pallas_call"


def called(
    call: cst.Call, visitor: cst.MetadataDependent, bindings: Callable[[], Bindings]
) -> tuple[str, int] | None:
    """(``module:name``, where its own arguments start) for a call of a public Pallas
    callable however it is reached: directly (``pl.pallas_call(...)``), through
    ``functools.partial(pl.pallas_call, ...)`` (its arguments start after the callable), or
    through a name the module binds once to either (``call = pl.pallas_call``)."""
    key = callable_key(call.func, visitor)
    if key is not None:
        return key, 0
    if is_partial(call, visitor) and call.args and call.args[0].keyword is None:
        key = callable_key(call.args[0].value, visitor) or bound_callable(
            call.args[0].value, visitor, bindings
        )
        return (key, 1) if key is not None else None
    key = bound_callable(call.func, visitor, bindings)
    return (key, 0) if key is not None else None


def is_partial(call: cst.Call, visitor: cst.MetadataDependent) -> bool:
    return "functools.partial" in qualified(call.func, visitor)


def bound_callable(
    node: cst.BaseExpression, visitor: cst.MetadataDependent, bindings: Callable[[], Bindings]
) -> str | None:
    """The Pallas callable a name is bound to by its only assignment in the module (``fn =
    pl.pallas_call``, ``fn = functools.partial(pl.pallas_call, ...)``), if any."""
    if not isinstance(node, cst.Name):
        return None
    values = bindings().values.get(node.value, [])
    if len(values) != 1 or node.value in bindings().functions:
        return None
    (value,) = values
    if isinstance(value, cst.Call) and is_partial(value, visitor) and value.args:
        return callable_key(value.args[0].value, visitor)
    return callable_key(value, visitor)


def name_use(path: str, node: cst.CSTNode, visitor: cst.MetadataDependent, qname: str) -> Use:
    drift = drifted_names()[qname]
    pos = visitor.get_metadata(PositionProvider, node).start
    loc = drift.location
    warns = release_ranges().get("deprecated", {}).get(f"{loc.module}:{loc.attr}", [])
    return Use(
        path,
        pos.line,
        pos.column + 1,
        loc.spelling,
        drift.spans,
        drift.hint,
        warns=tuple(tuple(span) for span in warns),
    )


def imported_modules(node: cst.Import | cst.ImportFrom) -> Iterator[tuple[str, cst.CSTNode]]:
    """(dotted module, node) for each module an import statement names."""
    if isinstance(node, cst.Import):
        for alias in node.names:
            yield cst.helpers.get_full_name_for_node(alias.name) or "", alias
        return
    base = cst.helpers.get_full_name_for_node(node.module) if node.module else ""
    yield base or "", node
    if not isinstance(node.names, cst.ImportStar):
        for alias in node.names:
            yield f"{base}.{alias.name.value}", alias


class UseFinder(cst.CSTVisitor):
    """Collects every drifted use in one module."""

    METADATA_DEPENDENCIES = (QualifiedNameProvider, PositionProvider)

    def __init__(self, path: str, module: cst.Module) -> None:
        super().__init__()
        self.path = path
        self.module = module
        self.uses: list[Use] = []
        self.in_import = 0
        self.cost_names: list[set[str]] = [set()]
        self.expansions: Expansions | None = None

    def visit_Module(self, node: cst.Module) -> None:
        self.expansions = expansions(node, self)
        for line, column, module in self.expansions.opaque:
            api = RUN_TIME_IMPORT.format(module)
            self.uses.append(Use(self.path, line, column, api, (), RUN_TIME_HINT, False))
        for arg in recorder_arguments(node, self):  # InterpretParams(grid_point_recorder=f)
            if two_argument_recorder(arg.value, self.bindings) is not None:
                self.uses.append(form_use(self.path, arg, self, RECORDER_TWO_ARGS))

    @functools.cached_property
    def bindings(self) -> Bindings:
        found = Bindings()
        self.module.visit(found)
        return found

    def visit_Import(self, node: cst.Import) -> None:
        self.record_imports(node)
        self.in_import += 1

    def leave_Import(self, node: cst.Import) -> None:
        self.in_import -= 1

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.record_imports(node)
        self.in_import += 1

    def leave_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.in_import -= 1

    def record_imports(self, node: cst.Import | cst.ImportFrom) -> None:
        for module, where in imported_modules(node):
            if module == GPU_LEGACY:
                self.uses.append(form_use(self.path, where, self, GPU_MODULE))
            elif module in drifted_names() and where is not node:
                self.uses.append(name_use(self.path, where, self, module))

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return self.check_name(node)

    def visit_Name(self, node: cst.Name) -> None:
        self.check_name(node)

    def check_name(self, node: cst.CSTNode) -> bool:
        if self.in_import:
            return False
        for qname in qualified(node, self):
            if qname in moved_members():
                pos = self.get_metadata(PositionProvider, node).start
                spelling, spans, hint = moved_members()[qname]
                self.uses.append(
                    Use(self.path, pos.line, pos.column + 1, spelling, spans, hint, bool(spans))
                )
                return True  # the enum's own name may have drifted too
            if qname in drifted_names():
                self.uses.append(name_use(self.path, node, self, qname))
                return False
        return True

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        """``class PatchBlockSpec(pl.BlockSpec)`` with an ``__init__`` of its own."""
        if own_init(node) is not None and subclasses_block_spec(node, self):
            self.uses.append(form_use(self.path, node.name, self, BLOCK_SPEC_SUBCLASS))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.cost_names.append(_cost_analysis.bound_in(node))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.cost_names.pop()

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if _cost_analysis.is_old_index(node, self.cost_names[-1]):
            pos = self.get_metadata(PositionProvider, node).start
            works = cost_analysis_index_releases(scanned_releases())
            hint = COST_ANALYSIS_HINT
            self.uses.append(
                Use(self.path, pos.line, pos.column + 1, COST_ANALYSIS_INDEX, works, hint)
            )

    def visit_Call(self, node: cst.Call) -> None:
        if is_call_to(node, self, "BlockSpec"):
            order = block_spec_order(node, lambda: self.bindings)
            if order == "old":
                self.uses.append(form_use(self.path, node, self, BLOCK_SPEC_ORDER))
            elif order == "unknown":
                pos = self.get_metadata(PositionProvider, node).start
                self.uses.append(
                    Use(self.path, pos.line, pos.column + 1, ORDER_UNKNOWN, (), order_hint(), False)
                )
        if is_call_to(node, self, "Blocked") and not node.args:
            self.uses.append(form_use(self.path, node, self, BLOCKED_MODE))
        target = called(node, self, lambda: self.bindings)
        if target is None:
            return
        key, _ = target
        for arg in node.args:
            if arg.keyword is not None and not (
                key == PALLAS_CALL and arg.keyword.value in ("f", "compiler_params")
            ):
                use = keyword_use(self.path, key, arg, self)
                if use is not None:
                    self.uses.append(use)
        if key == PALLAS_CALL:
            if keyword(node, "f") is not None:
                self.uses.append(form_use(self.path, keyword(node, "f"), self, F_KEYWORD))
            params = keyword(node, "compiler_params")
            entries = dict_entries(params.value) if params is not None else None
            if params is not None and entries is not None:
                use = form_use(self.path, params, self, DICT_PARAMS)
                label, hint = dict_params_form(entries[0][0] if len(entries) == 1 else "")
                if unknown := unknown_param_keys(entries):
                    hint += f"; {unknown}"
                self.uses.append(dataclasses.replace(use, api=label, hint=hint))


def find_uses(path: str, module: cst.Module) -> list[Use]:
    finder = UseFinder(path, module)
    # A freshly parsed module has no shared nodes: the wrapper's defensive deep copy (a second
    # tree in memory) is not needed.
    cst.MetadataWrapper(module, unsafe_skip_copy=True).visit(finder)
    return sorted(finder.uses, key=lambda u: (u.line, u.column, u.api))
