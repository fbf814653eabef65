"""Qualified names over the standard library's ``ast``: ``pl.load`` read as
``jax.experimental.pallas.load`` wherever an import, an alias or a scope makes it so.

``ast`` parses in C and this reads each name once. A name is resolved in its scope (function,
class, comprehension, module, builtins; ``global``/``nonlocal`` followed), a bare name sees the
bindings of its own scope made before it and every binding of the scopes around it, a dotted
name or a name that is not read (a target, a parameter, a keyword) every binding of its head,
and an import makes ``pl.load`` read as ``jax.experimental.pallas.load``. (These are the
answers of libcst's ``QualifiedNameProvider``, which read the names before; the golden of
doctor's findings was recorded with it.)
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Scopes", "full_name"]

FUNCTION, CLASS, COMPREHENSION, MODULE, BUILTINS = range(5)


@dataclass(eq=False)
class Scope:
    kind: int
    parent: Scope | None
    prefix: str = ""
    bound: dict[str, list[Binding]] = field(default_factory=dict)
    #: ``global x`` / ``nonlocal x``: the scope ``x`` lives in.
    overwrites: dict[str, Scope] = field(default_factory=dict)
    #: Bindings and reads are ordered by this count (a statement that binds moves it on).
    count: int = 0

    def up(self) -> Scope:
        """The next scope a name is looked up in from here: class bodies are skipped."""
        parent = self.parent
        assert parent is not None
        while parent.kind == CLASS:
            assert parent.parent is not None
            parent = parent.parent
        return parent

    def holds(self, name: str) -> bool:
        """Is ``name`` bound here or in a scope around (``name in scope``)?"""
        if self.kind == BUILTINS:
            return hasattr(builtins, name)
        if name in self.overwrites:
            return self.overwrites[name].holds(name)
        if name in self.bound:
            return bool(self.bound[name])
        return self.up().holds(name)

    def resolve(self, name: str) -> list[Binding]:
        """The bindings a use of ``name`` here may see, whenever they were made."""
        if self.kind == BUILTINS:
            return [Binding(-1, self, None, None)] if hasattr(builtins, name) else []
        if name in self.overwrites:
            return self.declared_in(name).resolve(name)
        if name in self.bound:
            return self.bound[name]
        return self.up().resolve(name)

    def target(self, name: str) -> Scope:
        """Where a binding of ``name`` made here lands (``global``/``nonlocal`` move it)."""
        if name in self.overwrites:
            return self.declared_in(name).target(name)
        return self

    def declared_in(self, name: str) -> Scope:
        """The scope a ``global``/``nonlocal`` declaration of ``name`` here names, past
        class bodies."""
        scope = self.overwrites[name]
        while scope.kind == CLASS:
            assert scope.parent is not None
            scope = scope.parent
        return scope

    def bind(self, name: str, node: ast.AST | None, imported: Imported | None = None) -> None:
        scope = self.target(name)
        scope.bound.setdefault(name, []).append(Binding(scope.count, scope, node, imported))


@dataclass(frozen=True)
class Imported:
    """An import statement: its module (``.``-prefixed when relative) and its names."""

    module: str
    names: tuple[tuple[str, str | None], ...]


@dataclass(eq=False)
class Binding:
    index: int
    scope: Scope
    node: ast.AST | None
    imported: Imported | None

    def names_for(self, full: str, name: str) -> set[str]:
        """The qualified names of ``full`` (a dotted name whose head this binds)."""
        if self.scope.kind == BUILTINS:
            return {f"builtins.{name}"}
        if self.imported is None:
            return {f"{self.scope.prefix}.{full}" if self.scope.prefix else full}
        found = set()
        module = self.imported.module
        for real, alias in self.imported.names:
            parts = real.split(".")
            for end in range(len(parts), 0, -1):
                shown = ".".join(parts[:end])
                real_name = shown
                if module.endswith("."):
                    real_name = f"{module}{real_name}"
                elif module:
                    real_name = f"{module}.{real_name}"
                if alias is not None:
                    shown = alias
                if full.startswith(shown):
                    rest = full.split(shown, 1)[1]
                    if rest and not rest.startswith("."):
                        continue
                    rest = rest.lstrip(".")
                    found.add(f"{real_name}.{rest}" if rest else real_name)
                    break
        return found


def full_name(node: ast.AST) -> str | None:
    """The dotted name an expression spells: ``a.b`` of ``a.b``, ``a.b(...)``, ``a.b[...]``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        value = full_name(node.value)
        return None if value is None else f"{value}.{node.attr}"
    if isinstance(node, ast.Call):
        return full_name(node.func)
    if isinstance(node, ast.Subscript):
        return full_name(node.value)
    return None


#: Per node type, the fields that may hold nodes (no ``ctx``: Load and Store are not visited).
FIELDS: dict[type, tuple[str, ...]] = {}


def children(node: ast.AST) -> list[ast.AST]:
    """``ast.iter_child_nodes`` without the expression contexts, as a list: the walks visit
    every node of a file, and this is most of their time."""
    kind = type(node)
    names = FIELDS.get(kind)
    if names is None:
        names = FIELDS[kind] = tuple(f for f in kind._fields if f not in ("ctx", "op"))
    found: list[ast.AST] = []
    for name in names:
        value = getattr(node, name, None)
        if isinstance(value, list):
            found.extend(item for item in value if isinstance(item, ast.AST))
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


def dotted(name: str) -> list[str]:
    """``a.b.c`` -> ``a.b.c``, ``a.b``, ``a``: what ``import a.b.c`` binds."""
    parts = name.split(".")
    return [".".join(parts[:end]) for end in range(len(parts), 0, -1)]


class Scopes:
    """One pass over a module: the scopes, each binding with its order, and for each name
    read, the scope and the moment it is read in; ``qualified`` answers from them. The pass
    also keeps the calls, ``def``s and assignments, which the rules look through."""

    def __init__(self, module: ast.Module) -> None:
        self.module = module
        self.module_scope = Scope(MODULE, Scope(BUILTINS, None))
        self.scope = self.module_scope
        #: id(node) -> (scope, count when read; -1 for a name that is not read).
        self.where: dict[int, tuple[Scope, int]] = {}
        self.calls: list[ast.Call] = []
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        self.assignments: list[ast.Assign | ast.AnnAssign] = []
        #: id(target) -> value of ``name = value`` in a function or class body.
        self.local_values: dict[int, ast.expr] = {}
        self.visitors: dict[type, Callable[[Any], None] | None] = {}
        self.visit(module)

    def visit(self, node: ast.AST) -> None:
        kind = type(node)
        if kind not in self.visitors:
            self.visitors[kind] = getattr(self, f"visit_{kind.__name__}", None)
        visitor = self.visitors[kind]
        if visitor is not None:
            visitor(node)
        else:
            for child in children(node):
                self.visit(child)

    def generic_visit(self, node: ast.AST) -> None:
        for child in children(node):
            self.visit(child)

    # -- reading

    def qualified(self, node: ast.AST, scope: Scope | None = None) -> set[str]:
        """The node's qualified names; ``scope`` for a name with no node of its own (a
        keyword's name, handed as ``ast.Name``)."""
        placed = self.where.get(id(node))
        if placed is None:
            if scope is None:
                return set()
            placed = (scope, -1)
        at, count = placed
        if count >= 0 and isinstance(node, ast.Name):
            return self.read(node.id, at, count)
        full = full_name(node)
        if full is None:
            return set()
        prefix: str | None = full
        found: list[Binding] = []
        while prefix:
            if at.holds(prefix):
                found = at.resolve(prefix)
                break
            prefix = prefix.rpartition(".")[0] or None
        for binding in found:
            if binding.imported is None and binding.node is node and binding.scope.kind != BUILTINS:
                return binding.names_for(full, prefix or full)
        names: set[str] = set()
        for binding in found:
            names |= binding.names_for(full, prefix or full)
        return names

    def read(self, name: str, scope: Scope, count: int) -> set[str]:
        """A bare name read at ``count``: the bindings of its own scope made before it, and
        those of the scopes around it."""
        seen = scope.resolve(name)
        earlier = [b for b in seen if b.scope is not scope or b.index < count]
        if not earlier and seen and scope.parent is not None:
            earlier = scope.parent.resolve(name)
        names: set[str] = set()
        for binding in earlier:
            names |= binding.names_for(name, name)
        return names

    def local_value(self, node: ast.Name) -> ast.expr | None:
        """What a name read in a function or class is bound to, where its scope binds it once
        and by ``name = value`` (``P = pl`` inside a kernel)."""
        placed = self.where.get(id(node))
        if placed is None:
            return None
        found = placed[0].resolve(node.id)
        if len(found) != 1 or found[0].node is None:
            return None
        return self.local_values.get(id(found[0].node))

    def scope_of(self, node: ast.AST) -> Scope | None:
        placed = self.where.get(id(node))
        return placed[0] if placed else None

    # -- building

    def enter(self, kind: int, name: str | None) -> Scope:
        parent = self.scope
        if kind == FUNCTION:
            prefix = ".".join(filter(None, [parent.prefix, name, "<locals>"]))
        elif kind == CLASS:
            prefix = ".".join(filter(None, [parent.prefix, name]))
        else:
            prefix = ".".join(filter(None, [parent.prefix, "<comprehension>"]))
        self.scope = Scope(kind, parent, prefix)
        return self.scope

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store):
            self.scope.bind(node.id, node)
            self.where[id(node)] = (self.scope, -1)
        else:
            self.where[id(node)] = (self.scope, self.scope.count)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.where[id(node)] = (self.scope, -1)
        self.visit(node.value)

    def visit_Call(self, node: ast.Call) -> None:
        self.where[id(node)] = (self.scope, -1)
        self.calls.append(node)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        self.where[id(node)] = (self.scope, -1)
        self.generic_visit(node)

    def visit_keyword(self, node: ast.keyword) -> None:
        self.where[id(node)] = (self.scope, -1)
        self.visit(node.value)

    def bound_statement(self, node: ast.AST) -> None:
        self.generic_visit(node)
        self.scope.count += 1

    def visit_Assign(self, node: ast.Assign | ast.AnnAssign) -> None:
        self.assignments.append(node)
        if isinstance(node, ast.Assign) and self.scope.kind in (FUNCTION, CLASS):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    self.local_values[id(target)] = node.value
        self.bound_statement(node)

    visit_AnnAssign = visit_Assign
    visit_AugAssign = visit_NamedExpr = bound_statement

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        module = ""
        if isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
        names = tuple((a.name, a.asname) for a in node.names)
        imported = Imported(module, names)
        for alias in node.names:
            if alias.name == "*":
                continue
            for name in dotted(alias.asname or alias.name):
                self.scope.bind(name, node, imported)
        self.scope.count += 1

    visit_ImportFrom = visit_Import

    def visit_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        home = self.module_scope if isinstance(node, ast.Global) else self.scope.parent
        assert home is not None
        for name in node.names:
            self.scope.overwrites[name] = home
        self.scope.count += 1

    visit_Nonlocal = visit_Global

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        outer = self.scope
        outer.bind(node.name, node)
        self.where[id(node)] = (outer, -1)
        self.functions.append(node)
        self.enter(FUNCTION, node.name)
        self.parameters(node.args, outer)
        for statement in node.body:
            self.visit(statement)
        self.scope = outer  # decorators and the return annotation are read outside, after
        for decorator in node.decorator_list:
            self.visit(decorator)
        if node.returns is not None:
            self.visit(node.returns)
        outer.count += 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        outer = self.scope
        self.enter(FUNCTION, None)
        self.parameters(node.args, outer)
        self.visit(node.body)
        self.scope = outer

    def parameters(self, args: ast.arguments, outer: Scope) -> None:
        inner = self.scope
        every = [*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg]
        for arg in every:
            if arg is None:
                continue
            inner.bind(arg.arg, arg)
            self.where[id(arg)] = (inner, -1)
            if arg.annotation is not None:
                self.scope = outer
                self.visit(arg.annotation)
                self.scope = inner
        self.scope = outer
        for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
            self.visit(default)
        self.scope = inner
        inner.count += 1

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        outer = self.scope
        outer.bind(node.name, node)
        self.where[id(node)] = (outer, -1)
        for decorator in node.decorator_list:
            self.visit(decorator)
        for base in node.bases:
            self.visit(base)
        for keyword in node.keywords:
            self.visit(keyword)
        self.enter(CLASS, node.name)
        for statement in node.body:
            self.visit(statement)
        self.scope = outer
        outer.count += 1

    def comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp
    ) -> None:
        outer = self.scope
        first, *rest = node.generators
        self.visit(first.iter)
        self.enter(COMPREHENSION, None)
        for index, generator in enumerate([first, *rest]):
            if index:
                self.visit(generator.iter)
            self.visit(generator.target)
            self.scope.count += 1
            for condition in generator.ifs:
                self.visit(condition)
        if isinstance(node, ast.DictComp):
            self.visit(node.key)
            self.visit(node.value)
        else:
            self.visit(node.elt)
        self.scope = outer

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = comprehension

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.visit(node.target)
        self.scope.count += 1
        self.visit(node.iter)
        for statement in [*node.body, *node.orelse]:
            self.visit(statement)

    visit_AsyncFor = visit_For

    def visit_withitem(self, node: ast.withitem) -> None:
        self.generic_visit(node)
        self.scope.count += 1

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type is not None:
            self.visit(node.type)
        if node.name is not None:
            self.scope.bind(node.name, node)
            self.scope.count += 1
        for statement in node.body:
            self.visit(statement)
