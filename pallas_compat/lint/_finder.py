"""Find uses of drifted Pallas APIs in source code: the one reading of a file, for ``doctor``
and ``migrate`` alike, over the standard library's ``ast`` with a scope analysis of our own
(``rules._scopes``).

``UseFinder`` walks a module once and asks each drift rule (``pallas_compat.rules``) about
the nodes it has hooks for; each use it returns carries the rule's code, and each fix the
rule attached to it (a ``Finding``) is kept for ``migrate``. What counts as drifted, and
where each spelling works, comes from the API-facts table and its scanned release ranges.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import functools
import gc
import io
import re
import tokenize
from collections.abc import Iterable, Iterator
from typing import Any

from pallas_compat import rules
from pallas_compat.facts._registry import Drift, registry
from pallas_compat.rules._bindings import Bindings, imported_modules
from pallas_compat.rules._context import FindContext, Finding
from pallas_compat.rules._edits import Text
from pallas_compat.rules._expansions import FOLLOWED, Expansions, expansions
from pallas_compat.rules._scopes import Scopes, children
from pallas_compat.rules._use import Use, UseState

__all__ = [
    "Drift",
    "Finding",
    "Use",
    "UseFinder",
    "UseState",
    "find_uses",
    "gc_paused",
    "may_use_pallas",
    "parse_source",
]

CLASS_NAME = re.compile(rb"class\s+")
#: What a rule's finder returns for one node: a use, a use with its fix, or nothing.
Found = Use | Finding | None


def may_use_pallas(data: bytes) -> bool:
    """False when ``data`` cannot use a drifted name: most files of a tree, never parsed."""
    return any(word in data for word in registry().needles)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Parse without the cyclic collector: syntax trees are acyclic and freed by reference
    counting, and the collector re-scanning a growing tree made a large file superlinear."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def encoding_of(data: bytes) -> str:
    """The encoding Python reads a file's bytes in: its coding line's, ``utf-8-sig`` after a
    BOM, else UTF-8 (what ``migrate`` writes the file back in)."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return encoding


def decoded(data: bytes) -> str:
    """A file's bytes as Python decodes them (its coding line or BOM honoured)."""
    return data.decode(encoding_of(data)).removeprefix("\ufeff")


def parse_source(data: bytes | str) -> ast.Module:
    """``ast.parse`` of a file's bytes (its coding line honoured); ``SyntaxError`` (and
    ``ValueError`` for a NUL byte) where CPython would not compile it."""
    return ast.parse(data, type_comments=False)


class UseFinder:
    """Collects every drifted use in one module: a dispatcher over the rules' finders."""

    def __init__(self, path: str, module: ast.Module, source: bytes | str = b"") -> None:
        self.path = path
        self.module = module
        self.source = source.encode() if isinstance(source, str) else source
        self.decoded = source if isinstance(source, str) else None
        self.uses: list[Use] = []
        #: What ``migrate`` fixes: each use a rule attached a fix to, and fixes of their own.
        self.findings: list[Finding] = []
        #: id(alias) -> the import statement it is written in.
        self.imports: dict[int, ast.Import | ast.ImportFrom] = {}
        #: What a rule keeps while the walk goes on, under its code.
        self.state: dict[str, Any] = {}
        #: The table's derived views (drifted names, moved members) the rules look up.
        self.table = registry()
        #: Each hook's rules, looked up once per file (the visit of every node asks).
        self.hooks = {hook: rules.hooks(hook) for hook in rules.FINDING_HOOKS}
        self.drifted = (self.table.drifted_names, self.table.moved_members, self.table.member_forms)
        #: Answers kept for this file, under the helper's name (``_calls.called``).
        self.memo: dict[str, dict[int, Any]] = {}
        self.known: dict[int, set[str]] = {}
        self.scopes = Scopes(module)
        self.expansions: Expansions | None = expansions(self.scopes, self.position)

    @functools.cached_property
    def bindings(self) -> Bindings:
        return Bindings.of(self.scopes)

    @functools.cached_property
    def lines(self) -> list[bytes]:
        return self.source.splitlines()

    @functools.cached_property
    def text(self) -> Text:
        """The file's text (decoded as Python reads it), where its fixes make their edits."""
        return Text(self.decoded if self.decoded is not None else decoded(self.source))

    def position(self, node: ast.AST) -> tuple[int, int]:
        """(line, column from 1 in characters) where ``node`` starts; a class's name for a
        ``ClassDef`` (what the rules point at)."""
        line: int = getattr(node, "lineno", 1)
        column: int = getattr(node, "col_offset", 0)
        if isinstance(node, ast.ClassDef) and line <= len(self.lines):
            found = CLASS_NAME.match(self.lines[line - 1], column)
            column = found.end() if found else column
        if not self.source.isascii() and line <= len(self.lines):
            column = len(self.lines[line - 1][:column].decode("utf-8", "replace"))
        return line, column + 1

    def qualified(self, node: ast.AST) -> set[str]:
        """The node's qualified names, with star imports and module aliases followed."""
        known = self.known.get(id(node))
        if known is None:
            names = self.scopes.qualified(node)
            bare = node.id if isinstance(node, ast.Name) else None
            known = self.expansions.expand_names(bare, names) if self.expansions else names
            known = known | self.through_local_alias(node)
            self.known[id(node)] = known
        return known

    def through_local_alias(self, node: ast.AST) -> set[str]:
        """``P.load`` where a function binds ``P = pl`` once: ``jax.experimental.pallas.load``
        (the module-level ``P = pl`` is the expansions')."""
        rest: list[str] = []
        while isinstance(node, ast.Attribute):
            rest.insert(0, node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return set()
        value = self.scopes.local_value(node)
        if value is None:
            return set()
        module = next((n for n in sorted(self.scopes.qualified(value)) if n in FOLLOWED), None)
        return {".".join([module, *rest])} if module else set()

    def through_getattr(self, node: ast.Call) -> str | None:
        """``getattr(pl, "load")``: ``jax.experimental.pallas.load``."""
        if (
            len(node.args) != 2
            or node.keywords
            or not isinstance(node.args[1], ast.Constant)
            or not isinstance(node.args[1].value, str)
            or "builtins.getattr" not in self.scopes.qualified(node.func)
        ):
            return None
        owner = next((n for n in sorted(self.qualified(node.args[0])) if n in FOLLOWED), None)
        return f"{owner}.{node.args[1].value}" if owner else None

    def add(self, rule: rules.Rule, found: Found | Iterable[Found] | None) -> None:
        """Keep what a rule found (one use or finding, several, or none), stamped with its
        code: the uses for doctor, the fixes for migrate."""
        for item in [found] if isinstance(found, Use | Finding) or found is None else found:
            if isinstance(item, Finding):
                use = dataclasses.replace(item.use, code=rule.code) if item.use else None
                self.findings.append(dataclasses.replace(item, use=use, code=rule.code))
                item = use
            if item is not None:
                self.uses.append(dataclasses.replace(item, code=rule.code))

    def keyword_owner(self, callable_key: str, name: str) -> rules.Rule | None:
        """The rule that handles keyword ``name`` of ``callable_key`` itself, if one does."""
        return rules.keyword_owner(callable_key, name)

    def ask(self, hook: str, *args: Any) -> None:
        for rule, module in self.hooks[hook]:
            self.add(rule, getattr(module, hook)(self, *args))

    # -- the walk: libcst's order, so that uses at one place come in the order they did

    def walk(self) -> list[Use]:
        self.ask("find_module", self.module)
        self.visit_children(self.module)
        return sorted(self.uses, key=lambda u: (u.line, u.column, u.api))

    def visit(self, node: ast.AST) -> None:
        kind = type(node)
        if kind is ast.Name:
            self.check_name(node)
            return
        if kind is ast.Attribute:
            if self.check_name(node):
                self.visit(node.value)  # type: ignore[attr-defined]
            return
        if kind is ast.Call:
            self.ask("find_call", node)
            named = self.through_getattr(node)  # type: ignore[arg-type]
            if named is not None and any(named in names for names in self.drifted):
                self.name(node, named)
            self.visit(node.func)  # type: ignore[attr-defined]
            for arg in sorted([*node.args, *node.keywords], key=where):  # type: ignore[attr-defined]
                self.visit(arg)
            return
        if kind is ast.keyword:
            self.check_keyword(node)  # type: ignore[arg-type]
            self.visit(node.value)  # type: ignore[attr-defined]
            return
        if kind in (ast.Import, ast.ImportFrom):
            self.record_imports(node)  # type: ignore[arg-type]
            return
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef):
            self.visit_function(node)  # type: ignore[arg-type]
            return
        if kind is ast.ClassDef:
            self.ask("find_class", node)
            for child in (*node.decorator_list, *node.bases, *node.keywords, *node.body):  # type: ignore[attr-defined]
                self.visit(child)
            return
        if kind is ast.Subscript:
            self.ask("find_subscript", node)
        elif kind is ast.Assign:
            self.ask("find_assign", node)
        elif kind is ast.Expr:
            self.ask("find_expr", node)
        elif kind is ast.Dict:
            for key, value in zip(node.keys, node.values, strict=True):  # type: ignore[attr-defined]
                if key is not None:
                    self.visit(key)
                self.visit(value)
            return
        self.visit_children(node)

    def visit_children(self, node: ast.AST) -> None:
        for child in children(node):
            self.visit(child)

    def visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for _, module in self.hooks["enter_function"]:
            module.enter_function(self, node)
        for decorator in node.decorator_list:
            self.visit(decorator)
        self.visit(node.args)
        if node.returns is not None:
            self.visit(node.returns)
        for statement in node.body:
            self.visit(statement)
        for _, module in self.hooks["leave_function"]:
            module.leave_function(self, node)

    # -- names, in uses and in imports

    def name(self, node: ast.AST, qname: str) -> bool | None:
        """Report ``qname`` at ``node`` by the first rule that claims it; whether to look
        inside the node (None: no rule did)."""
        for rule, module in self.hooks["find_name"]:
            use = module.find_name(self, node, qname)
            if use is not None:
                self.add(rule, use)
                return getattr(module, "LOOK_INSIDE", False)
        return None

    def import_of(self, alias: ast.AST) -> ast.Import | ast.ImportFrom | None:
        """The import statement an ``import`` alias is written in."""
        return self.imports.get(id(alias))

    def record_imports(self, node: ast.Import | ast.ImportFrom) -> None:
        for alias in node.names:
            self.imports[id(alias)] = node
        for module, at in imported_modules(node):
            before = len(self.uses)
            self.ask("find_import", module, at)
            if len(self.uses) == before and module in self.table.drifted_names and at is not node:
                self.name(at, module)

    def check_name(self, node: ast.AST) -> bool:
        for qname in self.qualified(node):
            if any(qname in names for names in self.drifted):
                inside = self.name(node, qname)
                if inside is not None:
                    return inside
        return True

    def check_keyword(self, node: ast.keyword) -> None:
        """A keyword's name reads as a name bound where the call is (as libcst reads it)."""
        if node.arg is None:
            return
        names = self.scopes.qualified(ast.Name(node.arg), self.scopes.scope_of(node))
        if self.expansions is not None:
            names = self.expansions.expand_names(node.arg, names)
        for qname in names:
            if any(qname in table for table in self.drifted) and self.name(node, qname) is not None:
                return


def where(node: ast.AST) -> tuple[int, int]:
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


#: The walk the rules' finders are promised (``rules._context``): mypy checks it matches.
_FINDS: type[FindContext] = UseFinder


def find_uses(path: str, module: ast.Module, source: bytes | str = b"") -> list[Use]:
    """Every use of a drifted API in ``module`` (parsed from ``source``, which gives the
    columns of non-ASCII lines in characters)."""
    return UseFinder(path, module, source).walk()


def uses_in(path: str, source: bytes | str) -> list[Use]:
    """``find_uses`` of a source text."""
    with gc_paused():
        return find_uses(path, parse_source(source), source)
