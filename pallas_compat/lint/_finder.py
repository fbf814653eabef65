"""Find uses of drifted Pallas APIs in source code (libcst), for ``doctor``.

``UseFinder`` walks a module once and asks each drift rule (``pallas_compat.rules``) about
the nodes it has hooks for; each use it returns carries the rule's code. What counts as
drifted, and where each spelling works, comes from the API-facts table and its scanned
release ranges.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
from collections.abc import Iterable, Iterator
from typing import Any

import libcst as cst
from libcst.metadata import PositionProvider, QualifiedNameProvider

from pallas_compat import rules
from pallas_compat.facts._registry import Drift, registry
from pallas_compat.rules._argument_order import Bindings
from pallas_compat.rules._context import FindContext
from pallas_compat.rules._expansions import Expansions, expansions
from pallas_compat.rules._syntax import imported_modules, qualified
from pallas_compat.rules._use import Use, UseState

__all__ = ["Drift", "Use", "UseFinder", "UseState", "find_uses", "gc_paused", "may_use_pallas"]


def may_use_pallas(data: bytes) -> bool:
    """False when ``data`` cannot use a drifted name: most files of a tree, never parsed."""
    return any(word in data for word in registry().needles)


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


class UseFinder(cst.CSTVisitor):
    """Collects every drifted use in one module: a dispatcher over the rules' finders."""

    METADATA_DEPENDENCIES = (QualifiedNameProvider, PositionProvider)

    def __init__(self, path: str, module: cst.Module) -> None:
        super().__init__()
        self.path = path
        self.module = module
        self.uses: list[Use] = []
        self.in_import = 0
        self.expansions: Expansions | None = None
        #: What a rule keeps while the walk goes on, under its code.
        self.state: dict[str, Any] = {}
        #: The table's derived views (drifted names, moved members) the rules look up.
        self.table = registry()
        #: Each hook's rules, looked up once per file (the visit of every node asks).
        self.hooks = {hook: rules.hooks(hook) for hook in rules.FINDING_HOOKS}

    @functools.cached_property
    def bindings(self) -> Bindings:
        found = Bindings()
        self.module.visit(found)
        return found

    def add(self, rule: rules.Rule, found: Use | Iterable[Use | None] | None) -> None:
        """Keep what a rule found (one use, several, or none), stamped with its code."""
        for use in [found] if isinstance(found, Use) or found is None else found:
            if use is not None:
                self.uses.append(dataclasses.replace(use, code=rule.code))

    def keyword_owner(self, callable_key: str, name: str) -> rules.Rule | None:
        """The rule that handles keyword ``name`` of ``callable_key`` itself, if one does."""
        return rules.keyword_owner(callable_key, name)

    def ask(self, hook: str, *args: Any) -> None:
        for rule, module in self.hooks[hook]:
            self.add(rule, getattr(module, hook)(self, *args))

    def visit_Module(self, node: cst.Module) -> None:
        self.expansions = expansions(node, self)
        self.ask("find_module", node)

    # -- names, in uses and in imports

    def name(self, node: cst.CSTNode, qname: str) -> bool | None:
        """Report ``qname`` at ``node`` by the first rule that claims it; whether to look
        inside the node (None: no rule did)."""
        for rule, module in self.hooks["find_name"]:
            use = module.find_name(self, node, qname)
            if use is not None:
                self.add(rule, use)
                return getattr(module, "LOOK_INSIDE", False)
        return None

    def visit_Import(self, node: cst.Import) -> None:
        self.record_imports(node)
        self.in_import += 1

    def leave_Import(self, original_node: cst.Import) -> None:
        self.in_import -= 1

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.record_imports(node)
        self.in_import += 1

    def leave_ImportFrom(self, original_node: cst.ImportFrom) -> None:
        self.in_import -= 1

    def record_imports(self, node: cst.Import | cst.ImportFrom) -> None:
        for module, where in imported_modules(node):
            before = len(self.uses)
            self.ask("find_import", module, where)
            if (
                len(self.uses) == before
                and module in self.table.drifted_names
                and where is not node
            ):
                self.name(where, module)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return self.check_name(node)

    def visit_Name(self, node: cst.Name) -> None:
        self.check_name(node)

    def check_name(self, node: cst.CSTNode) -> bool:
        if self.in_import:
            return False
        drifted = (self.table.drifted_names, self.table.moved_members, self.table.member_forms)
        for qname in qualified(node, self):
            if any(qname in names for names in drifted):
                inside = self.name(node, qname)
                if inside is not None:
                    return inside
        return True

    # -- definitions, subscripts, calls

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.ask("find_class", node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        for _, module in self.hooks["enter_function"]:
            module.enter_function(self, node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        for _, module in self.hooks["leave_function"]:
            module.leave_function(self, original_node)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self.ask("find_subscript", node)

    def visit_Call(self, node: cst.Call) -> None:
        self.ask("find_call", node)

    def visit_Assign(self, node: cst.Assign) -> None:
        self.ask("find_assign", node)


#: The walk the rules' finders are promised (``rules._context``): mypy checks it matches.
_FINDS: type[FindContext] = UseFinder


def find_uses(path: str, module: cst.Module) -> list[Use]:
    finder = UseFinder(path, module)
    # A freshly parsed module has no shared nodes: the wrapper's defensive deep copy (a second
    # tree in memory) is not needed.
    cst.MetadataWrapper(module, unsafe_skip_copy=True).visit(finder)
    return sorted(finder.uses, key=lambda u: (u.line, u.column, u.api))
