"""Rewrite drifted Pallas idioms into what a target JAX release accepts (libcst, so formatting
and comments survive). Only what breaks on the target is touched; what cannot be rewritten
safely gets a ``# pallas-compat:`` marker comment and stays a ``doctor`` entry."""

from __future__ import annotations

from typing import TypeVar

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import QualifiedNameProvider

from pallas_compat._block_spec_order import Bindings, block_spec_order, positional
from pallas_compat._block_spec_subclass import mended, subclasses_block_spec
from pallas_compat._cost_analysis import migrate_cost_analysis
from pallas_compat._expansions import Expansions, expansions
from pallas_compat._facts import (
    ALIASES,
    BACKENDS_BY_KEY,
    BLOCK_SPEC_SUBCLASS,
    BLOCKED_MODE,
    CALL_BACKENDS,
    CALL_FORMS,
    CALL_KEYWORDS,
    FEATURES_BY_KEY,
    GPU_LEGACY,
    KEYWORD_ADVICE,
    KEYWORD_RENAMES,
    MEMBER_MOVES,
    PARAM_FIELDS,
    PL,
    TPU,
    TRITON,
    Feature,
    Location,
    backend_of,
    dict_params_form,
    keyword_releases,
    pallas_call_keyword_releases,
    param_field_releases,
    release_ranges,
    works_in,
)
from pallas_compat._for_loop import migrate_for_loop
from pallas_compat._load_store import PARAMETERS, canonical
from pallas_compat._recorder import recorder_arguments, two_argument_recorder, with_token
from pallas_compat._source import (
    BLOCK_SPEC_ORDER,
    DICT_PARAMS,
    F_KEYWORD,
    GPU_MODULE,
    PALLAS_CALL,
    RECORDER_TWO_ARGS,
    Drift,
    call_form_releases,
    called,
    dict_entries,
    dict_params,
    drifted_names,
    is_call_to,
    keyword,
    qualified,
)

MARKER = "# pallas-compat:"
#: Keywords the pallas_call rewrite below handles itself.
HANDLED_KEYWORDS = frozenset(
    {
        *(
            (PALLAS_CALL, name)
            for name in ("f", "kernel", "backend", "compiler_params", "cost_estimate")
        ),
        (f"{PL}:BlockSpec", "indexing_mode"),
    }
)
TRITON_LOAD = Location(TRITON, "load")
TRITON_STORE = Location(TRITON, "store")
TPU_REPEAT = Location(TPU, "repeat")
DSLICE = frozenset({f"{PL}.dslice", f"{PL}.ds"})
NEW_MASKED_ACCESS = frozenset({f"{TRITON}.load", f"{TRITON}.store"})
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
    spread = (
        isinstance(index, cst.Tuple)
        and bool(index.elements)  # ``ref[()]`` stays: ``ref[]`` is no Python
        and not any(isinstance(e, cst.StarredElement) for e in index.elements)
    )
    parts = [e.value for e in index.elements] if spread else [index]
    return cst.Subscript(standalone(value), [cst.SubscriptElement(cst.Index(p)) for p in parts])


def keyword_arg(name: str, value: cst.BaseExpression) -> cst.Arg:
    tight = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
    return cst.Arg(value, keyword=cst.Name(name), equal=tight)


def attr(dotted: str) -> cst.BaseExpression:
    return cst.parse_expression(dotted)


#: Expressions that bind tighter than ``*``: written after it as they are.
ATOMS = (cst.Name, cst.Integer, cst.Attribute, cst.Call, cst.Subscript)


def without_argument(call: cst.Call, arg: cst.Arg | None) -> cst.Call:
    """``call`` without ``arg``; a last argument's comma goes to the new last one."""
    args = [a for a in call.args if a is not arg]
    if args and arg is not None and call.args[-1] is arg:
        args[-1] = args[-1].with_changes(comma=arg.comma)
    return call.with_changes(args=args)


def noted(whitespace: cst.TrailingWhitespace, notes: list[str]) -> cst.TrailingWhitespace:
    """The line's end with the notes as one comment (after the author's, never twice)."""
    comment = whitespace.comment
    if not notes or (comment and MARKER in comment.value):
        return whitespace
    text = f"{MARKER} {'; '.join(dict.fromkeys(notes))}"
    if comment is not None:  # the author's comment stays; the note follows it
        text = f"{comment.value}  {text}"
    return whitespace.with_changes(whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(text))


Compound = TypeVar("Compound", cst.FunctionDef, cst.ClassDef, cst.If, cst.For, cst.While, cst.With)


def with_header_notes(node: Compound, notes: list[str]) -> Compound:
    """Notes raised in a compound statement's header go on the line that ends with ``:``."""
    body = node.body
    if not notes:
        return node
    if isinstance(body, cst.IndentedBlock):
        return node.with_changes(body=body.with_changes(header=noted(body.header, notes)))
    whitespace = noted(body.trailing_whitespace, notes)  # def f(): return ... on one line
    return node.with_changes(body=body.with_changes(trailing_whitespace=whitespace))


def one_per_line(
    original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
) -> cst.SimpleStatementLine | cst.FlattenSentinel[cst.SimpleStatementLine]:
    """A statement a rewrite made into several (an import split in two, a swap into its read
    and its write) as several lines: the first keeps the lines above, the last the comment."""
    if len(updated.body) == len(original.body) or len(original.body) != 1:
        return updated
    last = len(updated.body) - 1
    lines = [
        cst.SimpleStatementLine(
            [statement.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)],
            leading_lines=updated.leading_lines if i == 0 else (),
            trailing_whitespace=(
                updated.trailing_whitespace if i == last else cst.TrailingWhitespace()
            ),
        )
        for i, statement in enumerate(updated.body)
    ]
    return cst.FlattenSentinel(lines)


class Migrator(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (QualifiedNameProvider,)

    def __init__(self, context: CodemodContext, target: str, module: cst.Module) -> None:
        super().__init__()
        self.context = context
        self.target = target
        self.module = module
        self.aliases: dict[str, str] = {}
        self.markers: list[list[str]] = []
        self._bindings: Bindings | None = None
        self.expansions: Expansions | None = None
        self.recorders: set[cst.FunctionDef] = set()

    def visit_Module(self, node: cst.Module) -> None:
        self.expansions = expansions(node, self, run_time=False)
        if not self.form_works(RECORDER_TWO_ARGS):
            for arg in recorder_arguments(node, self):
                recorder = two_argument_recorder(arg.value, self.bindings())
                if recorder is not None:
                    self.recorders.add(recorder)

    def leave_FunctionDef(
        self, original: cst.FunctionDef, updated: cst.FunctionDef
    ) -> cst.FunctionDef:
        """A two-argument ``grid_point_recorder`` takes and returns the simulator's token."""
        updated = with_header_notes(updated, self.markers.pop())
        if original not in self.recorders:
            return updated
        return with_token(updated) or updated

    def bindings(self) -> Bindings:
        if self._bindings is None:
            self._bindings = Bindings()
            self.module.visit(self._bindings)
        return self._bindings

    # -- helpers

    def works(self, loc: Location) -> bool:
        """Present on the target and not deprecated there: migrate also rewrites what only
        warns, so that the migrated file runs quietly (``-W error`` suites)."""
        deprecated = release_ranges().get("deprecated", {}).get(f"{loc.module}:{loc.attr}", [])
        return works_in(loc.releases, self.target) and not works_in(deprecated, self.target)

    def form_works(self, form: str) -> bool:
        return works_in(call_form_releases(form), self.target)

    def alias_for(self, module: str) -> str:
        """The name this file uses for ``module``, adding the import if it has none. A JAX
        module outside Pallas is reached through ``jax`` (``jax.dtypes.itemsize_bits``), so
        that no new name can shadow one the file binds (``from jax._src import dtypes``)."""
        if module in self.aliases:
            return self.aliases[module]
        if module == "jax":
            AddImportsVisitor.add_needed_import(self.context, "jax")
            return "jax"
        if module.startswith("jax.") and module not in ALIASES and module != "jax.numpy":
            return f"{self.alias_for('jax')}.{module.removeprefix('jax.')}"
        parent, _, child = module.rpartition(".")
        alias = {**ALIASES, "jax.numpy": "jnp"}.get(module, child)
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
            if (not loc.private or feature.outside) and self.works(loc):
                return loc
        return None

    def mark(self, text: str) -> None:
        if self.markers:
            self.markers[-1].append(text)

    def unmark(self, prefix: str) -> None:
        """Take back a note for an API this statement no longer uses."""
        if self.markers:
            self.markers[-1][:] = [m for m in self.markers[-1] if not m.startswith(prefix)]

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

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
        """``import <old module> as name`` -> ``import <where it is now> as name``."""
        names = []
        for alias in updated.names:
            dotted = cst.helpers.get_full_name_for_node(alias.name) or ""
            if dotted == GPU_LEGACY and alias.asname and not self.form_works(GPU_MODULE):
                alias = alias.with_changes(name=attr(TRITON))
            elif alias.asname and (moved := self.moved_module(dotted)) is not None:
                alias = alias.with_changes(name=attr(moved))
            names.append(alias)
        return updated.with_changes(names=names)

    def moved_module(self, dotted: str) -> str | None:
        """Where a module JAX moved lives on the target (``jax.util`` -> ``jax._src.util``),
        when the target lacks the old one; None otherwise."""
        hit = drifted_names().get(dotted)
        if hit is None or self.works(hit.location):
            return None
        new = self.replacement(hit)
        return None if new is None else f"{new.module}.{new.attr}"

    def leave_ImportFrom(
        self, original: cst.ImportFrom, updated: cst.ImportFrom
    ) -> cst.ImportFrom | cst.FlattenSentinel[cst.BaseSmallStatement]:
        """``from old import Name`` -> ``from new import NewName as Name``: uses stay valid."""
        source = cst.helpers.get_full_name_for_node(updated.module) if updated.module else ""
        if isinstance(updated.names, cst.ImportStar):
            return updated
        base = source
        if source == GPU_LEGACY and not self.form_works(GPU_MODULE):
            updated = updated.with_changes(module=attr(TRITON))
            base = TRITON
        names: list[cst.ImportAlias] = []
        elsewhere: dict[str, list[cst.ImportAlias]] = {}
        for alias in updated.names:
            name = alias.name.value
            keep_binding = alias.asname or cst.AsName(cst.Name(name))
            if base == PL and name == "gpu" and not self.form_works(GPU_MODULE):
                alias = alias.with_changes(
                    name=cst.Name(TRITON.rpartition(".")[2]), asname=keep_binding
                )
            hit = drifted_names().get(f"{source}.{name}")
            new = self.replacement(hit) if hit and not self.works(hit.location) else None
            if new is not None and new.module == base:
                alias = alias.with_changes(name=cst.Name(new.attr), asname=keep_binding)
            elif new is not None and hit is not None and hit.feature and hit.feature.outside:
                # from jax import util -> from jax._src import util as util
                moved = alias.with_changes(name=cst.Name(new.attr), asname=keep_binding)
                elsewhere.setdefault(new.module, []).append(moved)
                continue
            names.append(alias)
        if not elsewhere:
            return updated.with_changes(names=names)
        made: list[cst.ImportFrom] = []
        for module, aliases in ([(base, names)] if names else []) + list(elsewhere.items()):
            aliases[-1] = aliases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            # the first statement keeps the layout (parentheses, comments) of the original
            made.append(updated.with_changes(module=attr(module), names=aliases))
        return made[0] if len(made) == 1 else cst.FlattenSentinel(made)

    # -- statements: markers, and pl.store(...) as a statement becomes an assignment

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.markers.append([])

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine | cst.FlattenSentinel[cst.SimpleStatementLine]:
        whitespace = noted(updated.trailing_whitespace, self.markers.pop())
        return one_per_line(original, updated.with_changes(trailing_whitespace=whitespace))

    # -- a compound statement's header (a default, a decorator, a test) notes on its own line

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.markers.append([])

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.markers.append([])

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

    def leave_Expr(self, original: cst.Expr, updated: cst.Expr) -> cst.BaseSmallStatement:
        """``pl.store(ref, idx, v)`` / ``pl.swap(ref, idx, v)`` as a statement (in any
        spelling, no mask) -> ``ref[idx] = v``."""
        call = original.value
        if not (isinstance(call, cst.Call) and isinstance(updated.value, cst.Call)):
            return updated
        if self.removed_access(call, updated.value) not in ("store", "swap"):
            return updated
        bound = canonical(updated.value, "swap")
        if bound is not None and len(bound.args) == 3:
            ref, idx, value = (a.value for a in bound.args)
            self.unmark("pl.swap ")
            return cst.Assign([cst.AssignTarget(subscript(ref, idx))], standalone(value))
        return updated

    def leave_Assign(
        self, original: cst.Assign, updated: cst.Assign
    ) -> cst.BaseSmallStatement | cst.FlattenSentinel[cst.BaseSmallStatement]:
        """``old = pl.swap(ref, idx, v)`` (no mask) -> ``old = ref[idx]`` and ``ref[idx] = v``:
        the read, then the write, that swap was (``v`` is evaluated after the read; it could
        not see ``old``, which it binds)."""
        call = original.value
        if not (isinstance(call, cst.Call) and isinstance(updated.value, cst.Call)):
            return updated
        if self.removed_access(call, updated.value) != "swap":
            return updated
        bound = canonical(updated.value, "swap")
        if bound is None or len(bound.args) != 3:
            return updated
        ref, idx, value = (a.value for a in bound.args)
        self.unmark("pl.swap ")
        write = cst.Assign([cst.AssignTarget(subscript(ref, idx))], standalone(value))
        return cst.FlattenSentinel([updated.with_changes(value=subscript(ref, idx)), write])

    # -- names: renamed features

    def moved_member(self, original: cst.Attribute) -> Location | None:
        """Where ``<enum>.MEMBER`` lives now, when JAX moved the member out of the enum
        (``pltpu.TPUMemorySpace.ANY`` -> ``pl.ANY``) and the target has the new name."""
        names = qualified(original, self)
        for (owner, member), key in MEMBER_MOVES.items():
            enum_names = FEATURES_BY_KEY[owner].locations
            if names & {f"{loc.module}.{loc.attr}.{member}" for loc in enum_names}:
                new = FEATURES_BY_KEY[key].modern
                if not self.works(new):
                    return None
                for loc in enum_names:  # the enum's own name is no longer used here
                    self.unmark(f"{loc.spelling} ")
                return new
        return None

    def leave_Attribute(
        self, original: cst.Attribute, updated: cst.Attribute
    ) -> cst.BaseExpression:
        member = self.moved_member(original)
        if member is not None:
            return attr(f"{self.alias_for(member.module)}.{member.attr}")
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

    def removed_access(self, original: cst.Call, updated: cst.Call) -> str | None:
        """``load``, ``store`` or ``swap`` where the call is to the removed ``pl`` one and the
        target lacks it."""
        for name in PARAMETERS:
            if is_call_to(original, self, name) and not self.works(Location(PL, name)):
                return name
        return None

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        access = self.removed_access(original, updated)
        if access in ("load", "store"):
            bound = canonical(original, access), canonical(updated, access)
            if bound[0] is None or bound[1] is None:
                self.mark(
                    f"pl.{access} is not in JAX {self.target}: {drifted_names()[f'{PL}.{access}'].hint}"
                )
                return updated
            if access == "load":
                return self.migrate_load(*bound)
            return self.migrate_masked_store(*bound)
        if f"{TPU}.repeat" in qualified(original.func, self) and not self.works(TPU_REPEAT):
            return self.migrate_repeat(updated)
        if qualified(original.func, self) & NEW_MASKED_ACCESS and keyword(original, "mask"):
            return self.masked_view_as_indices(original, updated)
        old_order = (
            is_call_to(original, self, "BlockSpec")
            and block_spec_order(original, self.bindings) == "old"
        )
        if old_order and not self.form_works(BLOCK_SPEC_ORDER):
            first, second, *rest = updated.args
            updated = updated.with_changes(
                # swap the values only: commas, line breaks and comments stay where they were
                args=[
                    first.with_changes(value=second.value),
                    second.with_changes(value=first.value),
                    *rest,
                ]
            )
        if (
            is_call_to(original, self, "Blocked")
            and not original.args
            and not self.form_works(BLOCKED_MODE)
        ):
            advice = CALL_FORMS[BLOCKED_MODE]
            self.mark(f"pl.Blocked() is not the indexing mode in JAX {self.target}: {advice}")
        if is_call_to(original, self, "BlockSpec") and keyword(original, "indexing_mode"):
            updated = self.migrate_indexing_mode(original, updated)
        target = called(original, self, self.bindings)
        if target is not None:
            updated = self.migrate_keywords(target[0], updated)
        if target is not None and target[0] == PALLAS_CALL:
            # pl.pallas_call(...), functools.partial(pl.pallas_call, ...), fn(...) with
            # fn = pl.pallas_call: its own arguments start at target[1]
            updated = self.migrate_pallas_call(original, updated, target[1])
        return updated

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        """A BlockSpec subclass's own ``__init__`` passes every other field on."""
        updated = with_header_notes(updated, self.markers.pop())
        if self.form_works(BLOCK_SPEC_SUBCLASS) or not subclasses_block_spec(original, self):
            return updated
        return mended(updated) or updated

    def migrate_indexing_mode(self, original: cst.Call, call: cst.Call) -> cst.Call:
        """``BlockSpec(..., indexing_mode=...)`` where the target lacks the mode: ``pl.Blocked()``
        (the default) is left out; ``pl.unblocked`` / ``pl.Unblocked(padding)`` make each entry
        of a literal ``block_shape`` a ``pl.Element(n, (low, high))`` (JAX 0.6.1's spelling);
        a mode that comes from a variable gets a note saying what to write for each value."""
        mode, given = keyword(call, "indexing_mode"), keyword(original, "indexing_mode")
        assert mode is not None and given is not None
        value = given.value  # the original's: only its nodes have qualified names
        names = qualified(value.func if isinstance(value, cst.Call) else value, self)
        unblocked = names & {f"{PL}.Unblocked", f"{PL}.unblocked"}
        if f"{PL}.Blocked" in names and isinstance(value, cst.Call) and not value.args:
            if self.form_works(BLOCKED_MODE):
                return call
            self.unmark("pl.Blocked() ")
            return without_argument(call, mode)
        if unblocked:
            if self.works(Location(PL, "Unblocked")):
                return call
            elements = self.element_dims(call, mode.value)
            if elements is not None:
                for spelling in ("pl.Unblocked ", "pl.unblocked "):
                    self.unmark(spelling)
                return without_argument(elements, keyword(elements, "indexing_mode"))
            self.mark(
                f"indexing_mode=pl.Unblocked(...) is not in JAX {self.target}: write each "
                "block_shape entry as pl.Element(n, (low, high)); the block shape here is not "
                "a literal tuple to rewrite"
            )
            return call
        if not works_in(keyword_releases(f"{PL}:BlockSpec", "indexing_mode"), self.target):
            self.mark(
                f"BlockSpec(indexing_mode=...) is not taken by JAX {self.target} and the mode "
                "comes from a variable here: where it is pl.Blocked(), leave it out; where it "
                "is pl.Unblocked(padding), write each block_shape entry as pl.Element(n, "
                "(low, high))"
            )
        return call

    def element_dims(self, call: cst.Call, mode: cst.BaseExpression) -> cst.Call | None:
        """The call with a literal ``block_shape`` made of ``pl.Element`` entries, the padding
        taken from a literal ``pl.Unblocked(((lo, hi), ...))``; None where either is not
        literal."""
        spec_args = positional(call)
        shape_arg = keyword(call, "block_shape") or (spec_args[0] if spec_args else None)
        if shape_arg is None or not isinstance(shape_arg.value, cst.Tuple | cst.List):
            return None
        dims = [e.value for e in shape_arg.value.elements]
        pads: list[cst.BaseExpression | None] = [None] * len(dims)
        if isinstance(mode, cst.Call) and mode.args:
            padding = mode.args[0].value
            if not isinstance(padding, cst.Tuple) or len(padding.elements) != len(dims):
                return None
            pads = [e.value for e in padding.elements]
        element = f"{self.alias_for(PL)}.Element"
        made = [
            f"{element}({self.code(d)})"
            if p is None
            else f"{element}({self.code(d)}, {self.code(p)})"
            for d, p in zip(dims, pads, strict=True)
        ]
        shape = cst.parse_expression(f"({', '.join(made)}{',' if len(made) == 1 else ''})")
        return call.with_changes(
            args=[a.with_changes(value=shape) if a is shape_arg else a for a in call.args]
        )

    def migrate_keywords(self, key: str, call: cst.Call) -> cst.Call:
        """Keywords of a Pallas callable that the target does not take: a renamed one takes
        the newest name the target has (``InterpretParams(num_cores_per_device=)`` ->
        ``num_cores_or_threads=``); one without a successor gets a note with the advice."""
        args = []
        for arg in call.args:
            name = arg.keyword.value if arg.keyword is not None else None
            spans = keyword_releases(key, name) if name else []
            if not spans or works_in(spans, self.target) or (key, name) in HANDLED_KEYWORDS:
                args.append(arg)
                continue
            module, _, attr_name = key.partition(":")
            group = next((g for g in KEYWORD_RENAMES.get((module, attr_name), ()) if name in g), ())
            newer = [n for n in group if works_in(keyword_releases(key, n), self.target)]
            if newer:
                args.append(arg.with_changes(keyword=cst.Name(newer[-1])))
                continue
            spelling = Location(module, attr_name).spelling
            advice = KEYWORD_ADVICE.get((key, name), "leave it out or keep an older JAX")
            self.mark(f"{spelling}({name}=...) is not taken by JAX {self.target}: {advice}")
            args.append(arg)
        return call.with_changes(args=args)

    def migrate_repeat(self, call: cst.Call) -> cst.BaseExpression:
        """``pltpu.repeat(x, n, axis)`` -> ``jnp.concatenate([x] * n, axis=axis)``: Mosaic's
        repeat put n copies side by side, which is JAX's own replacement, ``jnp.tile``."""
        args = positional(call)
        axis = keyword(call, "axis")
        repeats = keyword(call, "repeats")
        values = [a.value for a in args]
        if repeats is not None:
            values.insert(1, repeats.value)
        if axis is not None:
            values.append(axis.value)
        if len(values) != 3 or len(call.args) != 3:
            return call
        x, n, where = (self.code(v) for v in values)
        if not isinstance(values[1], ATOMS) and not values[1].lpar:
            n = f"({n})"  # [x] * (block_k // 128), not ([x] * block_k) // 128
        self.unmark("pltpu.repeat ")
        return cst.parse_expression(
            f"{self.alias_for('jax.numpy')}.concatenate([{x}] * {n}, axis={where})"
        )

    def index_arrays(self, idx: cst.BaseExpression) -> cst.BaseExpression:
        """A masked access's ``(pl.dslice(s, n), ...)`` with literal starts as index arrays
        ``s + jnp.arange(n)`` (an outer grid when there are several): the form newer JAX takes
        for a block that may overhang the array (from 0.12 it refuses a static slice past the
        end before the mask applies; a dynamic start is never checked, so it stays). Scalar
        indices are kept; anything else leaves ``idx`` unchanged."""
        items = list(idx.elements) if isinstance(idx, cst.Tuple) else [idx]
        if any(isinstance(item, cst.StarredElement) for item in items):
            return idx
        values = [item.value if isinstance(item, cst.Element) else item for item in items]
        parts: list[tuple[str, bool]] = []
        for value in values:
            if isinstance(value, cst.Call) and qualified(value.func, self) & DSLICE:
                args = positional(value)
                if (
                    len(args) != 2
                    or len(value.args) != 2
                    or not isinstance(args[0].value, cst.Integer)
                ):
                    return idx
                start, size = (self.code(a.value) for a in args)
                arange = f"{self.alias_for('jax.numpy')}.arange({size})"
                parts.append((arange if start == "0" else f"{start} + {arange}", True))
            elif isinstance(value, cst.Integer) or (
                isinstance(value, cst.Name) and value.value not in ("None", "Ellipsis")
            ):
                parts.append((self.code(value), False))
            else:
                return idx
        arrays = sum(is_array for _, is_array in parts)
        names = any(not is_array and not text.isdigit() for text, is_array in parts)
        if not arrays or (arrays > 1 and names):  # a name may hold a slice: no outer grid then
            return idx
        texts, axis = [], 0
        for text, is_array in parts:
            if is_array and arrays > 1:
                grid = ", ".join(":" if i == axis else "None" for i in range(arrays))
                text = f"({text})[{grid}]"
            axis += is_array
            texts.append(text)
        return cst.parse_expression(f"({', '.join(texts)},)" if len(texts) > 1 else texts[0])

    def masked_view_as_indices(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """``pltriton.load(x_ref.at[pl.ds(0, n)], mask=...)`` (JAX's own kernels to 0.11)
        -> ``x_ref.at[jnp.arange(n)]``, which 0.12 takes when the block overhangs."""
        view = original.args[0].value if original.args else None
        if not (
            isinstance(view, cst.Subscript)
            and isinstance(view.value, cst.Attribute)
            and view.value.attr.value == "at"
            and updated.args[0].value.deep_equals(view)
        ):
            return updated
        elements = [e.slice.value for e in view.slice if isinstance(e.slice, cst.Index)]
        if len(elements) != len(view.slice):
            return updated
        idx = elements[0] if len(elements) == 1 else cst.Tuple([cst.Element(e) for e in elements])
        new = self.index_arrays(idx)
        if new is idx:
            return updated
        ref = subscript(view.value, new)
        return updated.with_changes(
            args=[updated.args[0].with_changes(value=ref), *updated.args[1:]]
        )

    def migrate_load(self, original: cst.Call, call: cst.Call) -> cst.BaseExpression:
        args = positional(call)
        extra = [a for a in call.args if a.keyword is not None]
        if len(args) == 2 and not extra and len(call.args) == 2:
            return subscript(args[0].value, args[1].value)
        names = {a.keyword.value for a in extra if a.keyword}
        if len(args) == 2 and names <= LOAD_KEYWORDS and self.works(TRITON_LOAD):
            index = args[1].value
            if "mask" in names and positional(original)[1].value.deep_equals(index):
                index = self.index_arrays(positional(original)[1].value)
            ref = subscript(cst.Attribute(args[0].value, cst.Name("at")), index)
            func = attr(f"{self.alias_for(TRITON)}.load")
            # the layout of the call stays: (ref, idx, mask=...) -> (ref.at[idx], mask=...)
            return call.with_changes(func=func, args=[args[1].with_changes(value=ref), *extra])
        self.mark(f"pl.load is not in JAX {self.target}: {drifted_names()[f'{PL}.load'].hint}")
        return call

    def migrate_masked_store(self, original: cst.Call, call: cst.Call) -> cst.BaseExpression:
        args = positional(call)
        extra = [a for a in call.args if a.keyword is not None]
        if not extra:
            return call  # a statement: leave_Expr turns it into an assignment
        names = {a.keyword.value for a in extra if a.keyword}
        if len(args) == 3 and names <= {"mask", "eviction_policy"} and self.works(TRITON_STORE):
            index = args[1].value
            if "mask" in names and positional(original)[1].value.deep_equals(index):
                index = self.index_arrays(positional(original)[1].value)
            ref = subscript(cst.Attribute(args[0].value, cst.Name("at")), index)
            func = attr(f"{self.alias_for(TRITON)}.store")
            return call.with_changes(
                func=func, args=[args[1].with_changes(value=ref), args[2], *extra]
            )
        self.mark(f"pl.store is not in JAX {self.target}: {drifted_names()[f'{PL}.store'].hint}")
        return call

    def migrate_backend(self, updated: cst.Call, args: list[cst.Arg]) -> list[cst.Arg]:
        """``backend="triton"`` where ``pallas_call`` lost it -> ``compiler_params=`` of that
        backend's type (which picks the lowering), or nothing for Mosaic TPU."""
        backend = keyword(updated, "backend")
        if backend is None or works_in(pallas_call_keyword_releases("backend"), self.target):
            return args
        value = backend.value
        chosen = (
            CALL_BACKENDS.get(value.evaluated_value)
            if isinstance(value, cst.SimpleString)
            else None
        )
        new = self.replacement_params(chosen.key) if chosen and not chosen.default else None
        if chosen is None or (not chosen.default and new is None):
            self.mark(
                f"pallas_call(backend=...) is not taken by JAX {self.target}: {CALL_KEYWORDS['backend']}"
            )
            return args
        index = args.index(backend)
        args.pop(index)
        if new is not None and keyword(updated, "compiler_params") is None:
            made = cst.Call(attr(f"{self.alias_for(new.module)}.{new.attr}"))
            args.insert(
                index, keyword_arg("compiler_params", made).with_changes(comma=backend.comma)
            )
        elif index and index == len(args):  # it was last: the new last argument keeps its comma
            args[-1] = args[-1].with_changes(comma=backend.comma)
        return args

    def migrate_pallas_call(self, original: cst.Call, updated: cst.Call, start: int) -> cst.Call:
        args = list(updated.args)
        f = keyword(updated, "f")
        if f is not None and not self.form_works(F_KEYWORD):
            last = args[-1] is f
            args.remove(f)
            # its comma goes with it (a comment after it stays on its line), unless it was
            # last: then the new last argument takes it, so that no "x, )" is left
            args.insert(
                start, cst.Arg(f.value, comma=cst.MaybeSentinel.DEFAULT if last else f.comma)
            )
            if last:
                args[-1] = args[-1].with_changes(comma=f.comma)
        args = self.migrate_backend(updated, args)
        current = keyword(original, "compiler_params")
        if current is None or dict_entries(current.value) is None or self.form_works(DICT_PARAMS):
            return updated.with_changes(args=args)
        params = dict_params(original)
        made = self.params_call(params, has_cost=keyword(original, "cost_estimate") is not None)
        if made is None:
            made = self.params_at_run_time(current.value)
        if made is None:
            self.mark(
                f"dict compiler_params are not taken by JAX {self.target}: "
                f"{dict_params_form(params[0] if params else '')[1]}"
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
            elif (
                name not in PARAM_FIELDS[backend]
                and BACKENDS_BY_KEY[backend].dict_ignored_unknown_keys
            ):
                self.mark(  # num_wraps: what the dict-era lowering ignored is dropped
                    f"dropped {name}=, which no JAX release's {backend} params know (the "
                    "dict-era lowering ignored it)"
                )
            else:
                return None
        func = attr(f"{self.alias_for(new.module)}.{new.attr}")
        return cst.Call(func, fields), cost

    def params_at_run_time(
        self, value: cst.BaseExpression
    ) -> tuple[cst.Call, cst.BaseExpression | None] | None:
        """``{"mosaic": params}`` / ``dict(mosaic=params)`` whose fields are a variable:
        ``pltpu.CompilerParams(**params)``, which converts when it runs."""
        outer = dict_entries(value)
        if not outer or len(outer) != 1:
            return None
        backend, inner = outer[0]
        found = backend_of(backend)
        if found is None or dict_entries(inner) is not None:
            return None
        new = self.replacement_params(found.key)
        if new is None:
            return None
        func = attr(f"{self.alias_for(new.module)}.{new.attr}")
        return cst.Call(func, [cst.Arg(inner, star="**")]), None

    def replacement_params(self, backend: str) -> Location | None:
        return self.replacement(FEATURES_BY_KEY[BACKENDS_BY_KEY[backend].feature])


def migrate_module(module: cst.Module, target: str) -> cst.Module:
    """``module`` rewritten for JAX ``target`` (unchanged if nothing breaks there)."""
    module = migrate_for_loop(module, target)
    context = CodemodContext()
    wrapper = cst.MetadataWrapper(module, unsafe_skip_copy=True)  # fresh from the parser
    migrated = wrapper.visit(Migrator(context, target, module))
    return migrate_cost_analysis(migrated.visit(AddImportsVisitor(context)), target)
