"""Rewrite drifted Pallas idioms into what a target JAX release accepts (libcst, so formatting
and comments survive). Only what breaks on the target is touched; what cannot be rewritten
safely gets a ``# pallas-compat:`` marker comment and stays a ``doctor`` entry."""

from __future__ import annotations

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import QualifiedNameProvider

from pallas_compat._facts import (
    ALIASES,
    CALL_FORMS,
    FEATURES_BY_KEY,
    GPU_LEGACY,
    PL,
    TRITON,
    Feature,
    Location,
    pallas_call_keyword_releases,
    param_field_releases,
    works_in,
)
from pallas_compat._source import (
    BLOCK_SPEC_ORDER,
    DICT_PARAMS,
    F_KEYWORD,
    GPU_MODULE,
    Drift,
    call_form_releases,
    dict_entries,
    dict_params,
    drifted_names,
    is_call_to,
    keyword,
    old_block_spec_order,
    positional,
    qualified,
)

MARKER = "# pallas-compat:"
TRITON_LOAD = Location(TRITON, "load")
TRITON_STORE = Location(TRITON, "store")
PARAMS_FEATURE = {"mosaic": "tpu_compiler_params", "triton": "triton_compiler_params"}
LOAD_KEYWORDS = frozenset({"mask", "other", "cache_modifier", "eviction_policy", "volatile"})


def standalone(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` safe outside the call parentheses it came from: a multi-line expression that
    relied on them for its line breaks gets parentheses of its own."""
    if "\n" not in cst.Module([]).code_for_node(expr) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def subscript(value: cst.BaseExpression, index: cst.BaseExpression) -> cst.Subscript:
    """``value[index]``, spreading a tuple literal into ``value[a, b]`` (not one with a
    ``*starred`` part, which stays a tuple: ``value[(*a, b)]``)."""
    spread = isinstance(index, cst.Tuple) and not any(
        isinstance(e, cst.StarredElement) for e in index.elements
    )
    parts = [e.value for e in index.elements] if spread else [index]
    return cst.Subscript(standalone(value), [cst.SubscriptElement(cst.Index(p)) for p in parts])


def keyword_arg(name: str, value: cst.BaseExpression) -> cst.Arg:
    tight = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
    return cst.Arg(value, keyword=cst.Name(name), equal=tight)


def attr(dotted: str) -> cst.BaseExpression:
    return cst.parse_expression(dotted)


class Migrator(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (QualifiedNameProvider,)

    def __init__(self, context: CodemodContext, target: str) -> None:
        super().__init__()
        self.context = context
        self.target = target
        self.aliases: dict[str, str] = {}
        self.markers: list[list[str]] = []

    # -- helpers

    def works(self, loc: Location) -> bool:
        return works_in(loc.releases, self.target)

    def form_works(self, form: str) -> bool:
        return works_in(call_form_releases(form), self.target)

    def alias_for(self, module: str) -> str:
        """The name this file uses for ``module``, adding the import if it has none."""
        if module in self.aliases:
            return self.aliases[module]
        if module == "jax":
            AddImportsVisitor.add_needed_import(self.context, "jax")
            return "jax"
        parent, _, child = module.rpartition(".")
        alias = ALIASES.get(module, child)
        AddImportsVisitor.add_needed_import(self.context, parent, child, asname=alias)
        self.aliases[module] = alias
        return alias

    def replacement(self, drift: Drift | Feature) -> Location | None:
        """The newest public spelling of a renamed feature that works on the target, or where
        JAX moved the same object."""
        if isinstance(drift, Drift) and drift.moved_to is not None:
            return drift.moved_to if self.works(drift.moved_to) else None
        feature = drift.feature if isinstance(drift, Drift) else drift
        if feature is None or not feature.renamed:
            return None
        for loc in reversed(feature.locations):
            if not loc.private and self.works(loc):
                return loc
        return None

    def mark(self, text: str) -> None:
        if self.markers:
            self.markers[-1].append(text)

    # -- imports: remember aliases, move off the old gpu module

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            name = cst.helpers.get_full_name_for_node(alias.name) or ""
            if alias.asname and isinstance(alias.asname.name, cst.Name):
                self.aliases[name] = alias.asname.name.value

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        base = cst.helpers.get_full_name_for_node(node.module) if node.module else ""
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            bound = alias.asname.name.value if alias.asname else alias.name.value
            self.aliases.setdefault(f"{base}.{alias.name.value}", bound)

    def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import:
        if self.form_works(GPU_MODULE):
            return updated
        names = []
        for alias in updated.names:
            if cst.helpers.get_full_name_for_node(alias.name) == GPU_LEGACY and alias.asname:
                alias = alias.with_changes(name=attr(TRITON))
            names.append(alias)
        return updated.with_changes(names=names)

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom) -> cst.ImportFrom:
        """``from old import Name`` -> ``from new import NewName as Name``: uses stay valid."""
        source = cst.helpers.get_full_name_for_node(updated.module) if updated.module else ""
        if isinstance(updated.names, cst.ImportStar):
            return updated
        base = source
        if source == GPU_LEGACY and not self.form_works(GPU_MODULE):
            updated = updated.with_changes(module=attr(TRITON))
            base = TRITON
        names = []
        for alias in updated.names:
            name = alias.name.value
            keep_binding = alias.asname or cst.AsName(cst.Name(name))
            if base == PL and name == "gpu" and not self.form_works(GPU_MODULE):
                alias = alias.with_changes(name=cst.Name("triton"), asname=keep_binding)
            hit = drifted_names().get(f"{source}.{name}")
            new = self.replacement(hit) if hit and not self.works(hit.location) else None
            if new is not None and new.module == base:
                alias = alias.with_changes(name=cst.Name(new.attr), asname=keep_binding)
            names.append(alias)
        return updated.with_changes(names=names)

    # -- statements: markers, and pl.store(...) as a statement becomes an assignment

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.markers.append([])

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        notes = self.markers.pop()
        comment = updated.trailing_whitespace.comment
        if not notes or (comment and MARKER in comment.value):
            return updated
        text = f"{MARKER} {'; '.join(dict.fromkeys(notes))}"
        return updated.with_changes(
            trailing_whitespace=updated.trailing_whitespace.with_changes(
                whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(text)
            )
        )

    def leave_Expr(self, original: cst.Expr, updated: cst.Expr) -> cst.BaseSmallStatement:
        call = original.value
        if not (isinstance(call, cst.Call) and isinstance(updated.value, cst.Call)):
            return updated
        if not is_call_to(call, self, "store") or self.works(Location(PL, "store")):
            return updated
        args = updated.value.args
        if len(args) == 3 and all(a.keyword is None and not a.star for a in args):
            ref, idx, value = (a.value for a in args)
            return cst.Assign([cst.AssignTarget(subscript(ref, idx))], standalone(value))
        return updated

    # -- names: renamed features

    def leave_Attribute(
        self, original: cst.Attribute, updated: cst.Attribute
    ) -> cst.BaseExpression:
        for qname in qualified(original, self):
            hit = drifted_names().get(qname)
            if hit is None or self.works(hit.location):
                continue
            old = hit.location
            new = self.replacement(hit)
            if new is None:
                if qname not in (f"{PL}.load", f"{PL}.store"):
                    self.mark(f"{old.spelling} is not in JAX {self.target}: {hit.hint}")
                return updated
            same_module = new.module == old.module or (
                old.module == GPU_LEGACY and new.module == TRITON
            )
            if same_module:
                return updated.with_changes(attr=cst.Name(new.attr))
            return attr(f"{self.alias_for(new.module)}.{new.attr}")
        return updated

    # -- calls: load/store, call forms

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if is_call_to(original, self, "load") and not self.works(Location(PL, "load")):
            return self.migrate_load(updated)
        if is_call_to(original, self, "store") and not self.works(Location(PL, "store")):
            return self.migrate_masked_store(updated)
        old_order = is_call_to(original, self, "BlockSpec") and old_block_spec_order(original)
        if old_order and not self.form_works(BLOCK_SPEC_ORDER):
            first, second, *rest = updated.args
            updated = updated.with_changes(
                args=[
                    second.with_changes(comma=first.comma),
                    first.with_changes(comma=second.comma),
                    *rest,
                ]
            )
        if is_call_to(original, self, "pallas_call"):
            updated = self.migrate_pallas_call(original, updated)
        return updated

    def migrate_load(self, call: cst.Call) -> cst.BaseExpression:
        args = positional(call)
        extra = [a for a in call.args if a.keyword is not None]
        if len(args) == 2 and not extra and len(call.args) == 2:
            return subscript(args[0].value, args[1].value)
        names = {a.keyword.value for a in extra if a.keyword}
        if len(args) == 2 and names <= LOAD_KEYWORDS and self.works(TRITON_LOAD):
            ref = subscript(cst.Attribute(args[0].value, cst.Name("at")), args[1].value)
            func = attr(f"{self.alias_for(TRITON)}.load")
            return cst.Call(func, [cst.Arg(ref), *extra])
        self.mark(f"pl.load is not in JAX {self.target}: {drifted_names()[f'{PL}.load'].hint}")
        return call

    def migrate_masked_store(self, call: cst.Call) -> cst.BaseExpression:
        args = positional(call)
        extra = [a for a in call.args if a.keyword is not None]
        if not extra:
            return call  # a statement: leave_Expr turns it into an assignment
        names = {a.keyword.value for a in extra if a.keyword}
        if len(args) == 3 and names <= {"mask", "eviction_policy"} and self.works(TRITON_STORE):
            ref = subscript(cst.Attribute(args[0].value, cst.Name("at")), args[1].value)
            func = attr(f"{self.alias_for(TRITON)}.store")
            return cst.Call(func, [cst.Arg(ref), cst.Arg(args[2].value), *extra])
        self.mark(f"pl.store is not in JAX {self.target}: {drifted_names()[f'{PL}.store'].hint}")
        return call

    def migrate_pallas_call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        args = list(updated.args)
        f = keyword(updated, "f")
        if f is not None and not self.form_works(F_KEYWORD):
            args.remove(f)
            args.insert(0, cst.Arg(f.value, comma=f.comma))
        current = keyword(original, "compiler_params")
        if current is None or dict_entries(current.value) is None or self.form_works(DICT_PARAMS):
            return updated.with_changes(args=args)
        params = dict_params(original)
        made = self.params_call(params, has_cost=keyword(original, "cost_estimate") is not None)
        if made is None:
            self.mark(
                f"dict compiler_params are not taken by JAX {self.target}: {CALL_FORMS[DICT_PARAMS]}"
            )
            return updated.with_changes(args=args)
        call, cost = made
        index = next(
            i for i, a in enumerate(args) if a.keyword and a.keyword.value == "compiler_params"
        )
        args[index] = args[index].with_changes(value=call)
        if cost is not None:
            args.insert(
                index + 1, keyword_arg("cost_estimate", cost).with_changes(comma=args[index].comma)
            )
        return updated.with_changes(args=args)

    def params_call(
        self, params: tuple[str, list[tuple[str, cst.BaseExpression]]] | None, *, has_cost: bool
    ) -> tuple[cst.Call, cst.BaseExpression | None] | None:
        """``pltpu.CompilerParams(...)`` for a literal dict whose every key the target takes
        (``cost_estimate`` moves to ``pallas_call``), else None."""
        if params is None:
            return None
        backend, entries = params
        new = self.replacement_params(backend)
        if new is None:
            return None
        fields, cost = [], None
        for name, value in entries:
            if (
                name == "cost_estimate"
                and not has_cost
                and works_in(pallas_call_keyword_releases("cost_estimate"), self.target)
            ):
                cost = value
            elif works_in(param_field_releases(backend, name), self.target):
                fields.append(keyword_arg(name, value))
            else:
                return None
        func = attr(f"{self.alias_for(new.module)}.{new.attr}")
        return cst.Call(func, fields), cost

    def replacement_params(self, backend: str) -> Location | None:
        return self.replacement(FEATURES_BY_KEY[PARAMS_FEATURE[backend]])


def migrate_module(module: cst.Module, target: str) -> cst.Module:
    """``module`` rewritten for JAX ``target`` (unchanged if nothing breaks there)."""
    context = CodemodContext()
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)  # fresh from the parser
    migrated = wrapper.visit(Migrator(context, target))
    return migrated.visit(AddImportsVisitor(context))
