"""Rewrite drifted Pallas idioms into what a target JAX release accepts (libcst, so formatting
and comments survive). Only what breaks on the target is touched; what cannot be rewritten
safely gets a ``# pallas-compat:`` marker comment and stays a ``doctor`` entry.

``Migrator`` is the rules' context (the target, the file's imports, the notes of the
statement being rewritten) and a dispatcher over their rewrites (``pallas_compat.rules``).
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import PositionProvider, QualifiedNameProvider

from pallas_compat import rules
from pallas_compat.facts._registry import Drift, registry
from pallas_compat.facts._table import (
    ALIASES,
    BACKENDS_BY_KEY,
    FEATURES_BY_KEY,
    Feature,
    Location,
    call_form_releases,
    call_form_warned_releases,
    release_ranges,
)
from pallas_compat.facts._target import Target
from pallas_compat.lint._import_tidy import (
    DropBindings,
    made_unused,
    module_bindings,
    name_uses,
    text_name_uses,
)
from pallas_compat.lint._noqa import Silenced, silenced
from pallas_compat.rules._argument_order import Bindings
from pallas_compat.rules._context import RewriteContext
from pallas_compat.rules._expansions import Expansions, expansions
from pallas_compat.rules._numbers import FlatReading
from pallas_compat.rules._rewrite import MARKER, noted, one_per_line, with_header_notes

__all__ = ["MARKER", "Migration", "Migrator", "migrate_module"]

T = TypeVar("T")

#: Modules imported under these names when a rewrite needs them and the file has no name.
IMPORT_NAMES: dict[str, str] = {**ALIASES, "jax.numpy": "jnp"}


class MigratorBase(cst.CSTTransformer):
    """The rules' context and dispatcher; ``Migrator`` and ``NoqaMigrator`` say what metadata
    it reads (siblings, not parent and child: libcst caches a class's dependencies in an
    attribute a subclass would inherit)."""

    def __init__(
        self,
        context: CodemodContext,
        target: Target,
        module: cst.Module,
        selected: frozenset[str] | None = None,
        noqa: Silenced | None = None,
        shared: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.context = context
        #: The target, asked through ``works_in`` and its kin: the answers, not the release,
        #: decide the walk, so a ``Migration`` reuses it for every target answering alike.
        self.asked = target
        self.module = module
        self.selected = selected
        self.noqa = noqa or {}
        #: What the rules read from the module alone, kept by a ``Migration`` for its other
        #: targets (``once``).
        self.shared: dict[str, Any] = {} if shared is None else shared
        #: The name the file binds each module to, from all its imports (a use may come
        #: before the import that binds its module); a rewrite adds to it.
        self.aliases: dict[str, str] = dict(self.once("aliases", lambda: module_bindings(module)))
        self.markers: list[list[str]] = []
        self.expansions: Expansions | None = None
        #: What a rule keeps while the walk goes on, under its code.
        self.state: dict[str, Any] = {}
        #: Whether a rule rewrote or noted anything (else the file stays as it was, untouched).
        self.changed = False
        #: The table's derived views (drifted names, moved members) the rules look up.
        self.table = registry()
        #: Each hook's selected rules, looked up once per file (the visit of every node asks).
        self.selected_hooks = {
            hook: [
                (rule, module)
                for rule, module in rules.hooks(hook)
                if selected is None or rule.code in selected
            ]
            for hook in rules.REWRITING_HOOKS
        }

    # -- what the rules ask

    @property
    def target(self) -> str:
        """The target release itself, for a note that names it (the walk then serves no
        other target)."""
        return self.asked.release

    def works_in(self, spans: Sequence[Sequence[str]]) -> bool:
        """Is the target inside one of the ``[first, last]`` spans?"""
        return self.asked.works_in(spans)

    def once(self, key: str, compute: Callable[[], T]) -> T:
        """``compute()``, a fact of the module alone (never of the target), computed once for
        every target it is migrated for. What it returns is shared: read it, never change it."""
        if key not in self.shared:
            self.shared[key] = compute()
        return self.shared[key]  # type: ignore[no-any-return]

    def bindings(self) -> Bindings:
        def walked() -> Bindings:
            found = Bindings()
            self.module.visit(found)
            return found

        return self.once("bindings", walked)

    def works(self, loc: Location) -> bool:
        """Present on the target and not deprecated there: migrate also rewrites what only
        warns, so that the migrated file runs quietly (``-W error`` suites)."""
        deprecated = release_ranges().get("deprecated", {}).get(f"{loc.module}:{loc.attr}", [])
        return self.works_in(loc.releases) and not self.works_in(deprecated)

    def form_works(self, form: str) -> bool:
        """Does the target take ``form`` without a deprecation warning? (A form it takes
        with one is rewritten where the rule can.)"""
        warned = call_form_warned_releases(form)
        return self.works_in(call_form_releases(form)) and not (warned and self.works_in(warned))

    def alias_for(self, module: str) -> str:
        """The name this file uses for ``module``, adding the import if it has none. A JAX
        module outside Pallas is reached through ``jax`` (``jax.dtypes.itemsize_bits``), so
        that no new name can shadow one the file binds (``from jax._src import dtypes``)."""
        if module in self.aliases:
            return self.aliases[module]
        if module == "jax":
            AddImportsVisitor.add_needed_import(self.context, "jax")
            return "jax"
        if module.startswith("jax.") and module not in IMPORT_NAMES:
            return f"{self.alias_for('jax')}.{module.removeprefix('jax.')}"
        parent, _, child = module.rpartition(".")
        alias = IMPORT_NAMES.get(module, child)
        AddImportsVisitor.add_needed_import(self.context, parent, child, asname=alias)
        self.aliases[module] = alias
        return alias

    def replacement(self, drift: Drift | Feature) -> Location | None:
        """The newest public spelling of a renamed feature that works on the target, or where
        JAX moved the same object; where the target has it only deprecated (it works, with a
        warning: ``pl.DeviceIdType`` on 0.12.0.1), that spelling, which the rule notes."""
        if isinstance(drift, Drift) and drift.moved_to is not None:
            return drift.moved_to if self.works_in(drift.moved_to.releases) else None
        feature = drift.feature if isinstance(drift, Drift) else drift
        if feature is None or not feature.renamed:
            return None
        served = [loc for loc in reversed(feature.locations) if not loc.private or feature.outside]
        return next((loc for loc in served if self.works(loc)), None) or next(
            (loc for loc in served if self.works_in(loc.releases)), None
        )

    def replacement_params(self, backend: str) -> Location | None:
        return self.replacement(FEATURES_BY_KEY[BACKENDS_BY_KEY[backend].feature])

    def mark(self, text: str) -> None:
        if self.markers:
            self.markers[-1].append(text)
            self.changed = True

    def unmark(self, prefix: str) -> None:
        """Take back a note for an API this statement no longer uses."""
        if self.markers:
            self.markers[-1][:] = [m for m in self.markers[-1] if not m.startswith(prefix)]

    def keyword_owner(self, callable_key: str, name: str) -> rules.Rule | None:
        """The rule that handles keyword ``name`` of ``callable_key`` itself, if one does."""
        return rules.keyword_owner(callable_key, name)

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def source_reading(self) -> FlatReading:
        """The module's imports and assignments, read with ``ast`` once for every target."""
        return self.once("source_reading", lambda: FlatReading(ast.parse(self.module.code)))

    # -- dispatch

    def hooks(self, hook: str, node: cst.CSTNode | None = None) -> list[Any]:
        """The selected rules' ``hook``s, less those a ``# noqa:`` silences where ``node``
        starts (the comment silences every line of its statement: ``_noqa.by_statement``)."""
        chosen = self.selected_hooks[hook]
        if node is None or not self.noqa:
            return [module for _, module in chosen]
        line = self.get_metadata(PositionProvider, node).start.line
        return [module for rule, module in chosen if not silenced(self.noqa, line, rule.code)]

    def chain(self, hook: str, original: Any, updated: Any) -> Any:
        """Each rule's ``hook`` in turn, each given the one before's result."""
        for module in self.hooks(hook, original):
            new = getattr(module, hook)(self, original, updated)
            self.changed |= new is not updated
            updated = new
        return updated

    def visit_Module(self, node: cst.Module) -> None:
        self.expansions = expansions(node, self, run_time=False)
        for module in self.hooks("prepare"):
            module.prepare(self, node)

    def leave_Import(
        self, original: cst.Import, updated: cst.Import
    ) -> cst.BaseSmallStatement | cst.FlattenSentinel[cst.BaseSmallStatement]:
        rewritten: cst.BaseSmallStatement | cst.FlattenSentinel[cst.BaseSmallStatement]
        rewritten = self.chain("rewrite_import", original, updated)
        return rewritten

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom) -> Any:
        return self.chain("rewrite_import_from", original, updated)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> Any:
        for module in self.hooks("rewrite_attribute", original):
            new = module.rewrite_attribute(self, original, updated)
            if new is not None:
                self.changed |= new is not updated
                return new
        return updated

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        for module in self.hooks("rewrite_call", original):
            new = module.rewrite_call(self, original, updated)
            if new is None:
                continue
            self.changed |= new is not updated
            if getattr(module, "FINAL", False):
                final: cst.BaseExpression = new
                return final
            updated = new
        return updated

    def leave_Expr(self, original: cst.Expr, updated: cst.Expr) -> Any:
        return self.chain("rewrite_expr", original, updated)

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> Any:
        return self.chain("rewrite_assign", original, updated)

    # -- notes: a statement's on its line, a compound statement's header's on the ``:`` line

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.markers.append([])

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine | cst.FlattenSentinel[cst.SimpleStatementLine]:
        whitespace = noted(updated.trailing_whitespace, self.markers.pop())
        return one_per_line(original, updated.with_changes(trailing_whitespace=whitespace))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.markers.append([])

    def leave_FunctionDef(
        self, original: cst.FunctionDef, updated: cst.FunctionDef
    ) -> cst.FunctionDef:
        updated = with_header_notes(updated, self.markers.pop())
        rewritten: cst.FunctionDef = self.chain("rewrite_function", original, updated)
        return rewritten

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.markers.append([])

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        updated = with_header_notes(updated, self.markers.pop())
        rewritten: cst.ClassDef = self.chain("rewrite_class", original, updated)
        return rewritten

    def visit_If(self, node: cst.If) -> None:
        self.markers.append([])

    def leave_If(self, original: cst.If, updated: cst.If) -> cst.If:
        return with_header_notes(updated, self.markers.pop())

    def visit_For(self, node: cst.For) -> None:
        self.markers.append([])

    def leave_For(self, original: cst.For, updated: cst.For) -> cst.For:
        return with_header_notes(updated, self.markers.pop())

    def visit_While(self, node: cst.While) -> None:
        self.markers.append([])

    def leave_While(self, original: cst.While, updated: cst.While) -> cst.While:
        return with_header_notes(updated, self.markers.pop())

    def visit_With(self, node: cst.With) -> None:
        self.markers.append([])

    def leave_With(self, original: cst.With, updated: cst.With) -> cst.With:
        return with_header_notes(updated, self.markers.pop())


#: The walk the rules' rewrites are promised (``rules._context``): mypy checks it matches.
_REWRITES: type[RewriteContext] = MigratorBase


class Migrator(MigratorBase):
    METADATA_DEPENDENCIES = (QualifiedNameProvider,)


class NoqaMigrator(MigratorBase):
    """A ``Migrator`` that reads positions, to leave the lines a ``# noqa`` names alone."""

    METADATA_DEPENDENCIES = (QualifiedNameProvider, PositionProvider)


def whole_module(hook: str, selected: frozenset[str] | None, noqa: Silenced) -> list[Any]:
    """The selected rules' whole-module passes; a ``# noqa`` naming one anywhere in the file
    keeps it from the whole file (its rewrite is not one line's)."""
    return [
        module
        for rule, module in rules.hooks(hook)
        if (selected is None or rule.code in selected)
        and not any(silenced(noqa, line, rule.code) for line in noqa)
    ]


class Migration:
    """One module migrated for as many targets as asked. libcst's scope analysis (the qualified
    names every rule reads) and the facts the rules read from the module alone take much of a
    migration's time, so they are kept per tree: for the module as it came, and for each tree
    the whole-module ``before`` passes make of it (those give one tree for every target that
    needs the same rewrite). A target whose answers to every question an earlier target's
    migration asked (``Target``) are the same gets that migration: one walk per set of
    answers, not per target."""

    def __init__(
        self,
        module: cst.Module,
        selected: frozenset[str] | None = None,
        noqa: Silenced | None = None,
        source: str | None = None,
    ) -> None:
        self.module = module
        self.selected = selected
        self.noqa = noqa or {}
        #: Per tree walked (by identity; the tree is kept, so its id is not reused): its
        #: metadata and the rules' facts of it (``MigratorBase.once``).
        self._trees: dict[int, tuple[cst.Module, cst.MetadataWrapper, dict[str, Any]]] = {}
        self._name_uses: Counter[str] | None = None
        #: Each migration made: what it asked of its target, and what it gave.
        self._made: list[tuple[Target, tuple[cst.Module, str | None]]] = []
        #: ``module.code``, given or made once, when a check reads the text.
        self._source = source

    def may_change(self, rule: Any) -> bool:
        """Whether a whole-module pass can change this module: one that names the text it
        rewrites (``MENTIONS``, which no rule writes) cannot where the source lacks it, so
        the pass, and the codegen its own check costs, are skipped for every target."""
        mentions: str | None = getattr(rule, "MENTIONS", None)
        if mentions is None:
            return True
        return mentions in self.source()

    def source(self) -> str:
        if self._source is None:
            self._source = self.module.code
        return self._source

    def name_uses(self) -> Counter[str]:
        """The original's ``name_uses``, read once for every target."""
        if self._name_uses is None:
            uses = text_name_uses(self.source())
            self._name_uses = name_uses(self.module) if uses is None else uses
        return self._name_uses

    def analysed(self, module: cst.Module) -> tuple[cst.MetadataWrapper, dict[str, Any]]:
        """The tree's metadata and facts. Every tree here is freshly parsed or freshly built
        by a rewrite, with no shared nodes: the wrapper's defensive deep copy is not needed."""
        kept = self._trees.get(id(module))
        if kept is None:
            kept = self._trees[id(module)] = (
                module,
                cst.MetadataWrapper(module, unsafe_skip_copy=True),
                {},
            )
        return kept[1], kept[2]

    def to(self, target: str) -> cst.Module:
        """The module rewritten for JAX ``target`` (unchanged if nothing breaks there)."""
        return self.rewritten(target)[0]

    def code(self, target: str) -> str:
        """``to(target).code``, one codegen fewer: the import tidy reads the migrated text,
        and that is the answer where it drops no import (the usual case)."""
        module, code = self.rewritten(target)
        return module.code if code is None else code

    def rewritten(self, target: str) -> tuple[cst.Module, str | None]:
        """The migrated module, and its text where that is known already."""
        for asked, made in self._made:
            if asked.answers_alike(target):
                return made
        asked = Target(target)
        made = self.made_for(asked)
        self._made.append((asked, made))
        return made

    def made_for(self, target: Target) -> tuple[cst.Module, str | None]:
        selected, noqa, original = self.selected, self.noqa, self.module
        module = original
        for rule in whole_module("before", selected, noqa):
            if self.may_change(rule):
                module = rule.before(module, target)
        context = CodemodContext()
        wrapper, shared = self.analysed(module)
        kind = NoqaMigrator if noqa else Migrator
        migrator = kind(context, target, module, selected, noqa, shared)
        migrated = wrapper.visit(migrator)
        if not migrator.changed:  # nothing rewritten or noted: the tree as it came
            migrated = module
        elif context.scratch.get(AddImportsVisitor.CONTEXT_KEY):  # a pass of its own: only if asked
            migrated = migrated.visit(AddImportsVisitor(context))
        for rule in whole_module("after", selected, noqa):
            if self.may_change(rule):
                migrated = rule.after(migrated, target)
        if migrated is original:
            return migrated, self._source
        # A rewrite may leave an import unused (``pltpu.repeat`` rewritten away): it goes,
        # but never one the original did not use either.
        code = migrated.code
        gone = made_unused(self.name_uses(), migrated, code)
        if not gone:
            return migrated, code
        return migrated.visit(DropBindings(gone)), None


def migrate_module(
    module: cst.Module,
    target: str,
    selected: frozenset[str] | None = None,
    noqa: Silenced | None = None,
) -> cst.Module:
    """``module`` rewritten for JAX ``target`` (unchanged if nothing breaks there) by the
    ``selected`` rules (default: all), less what the ``noqa`` lines silence."""
    return Migration(module, selected, noqa).to(target)
