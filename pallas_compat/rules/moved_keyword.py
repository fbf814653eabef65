"""PAL211 moved-keyword: a keyword JAX moved off a Pallas callable to another place
(``plgpu.emit_pipeline(delay_release=n)``, to 0.7.1, is each input's ``plgpu.BlockSpec(...,
delay_release=n)`` from 0.7.2; ``plgpu.copy_gmem_to_smem(partitioned_axis=k)``, 0.6.2-0.9.1,
is ``leader_tracked=plgpu.CopyPartition.PARTITIONED(k)`` from 0.9.2).

The scan says which releases take the old keyword; the table's ``KEYWORD_MOVES`` says where
it went. ``migrate`` writes the new place where the target lacks the old keyword and the
source shows every piece (a literal list of ``BlockSpec`` calls; an axis, or ``axis if c
else None``), and notes the rest; the shim moves the keyword at run time.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from pallas_compat.facts._table import KEYWORD_MOVES, Location, keyword_releases, positions
from pallas_compat.rules import _calls
from pallas_compat.rules._arguments import Argument, arguments, drop, with_argument
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._keywords import keyword_use, label
from pallas_compat.rules._rewrite import standalone
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import use_at

RULE = Rule(
    "PAL211",
    "moved-keyword",
    "a keyword JAX moved off a Pallas callable (plgpu.emit_pipeline(delay_release=) -> "
    "each input's plgpu.BlockSpec(delay_release=))",
    Fix.REWRITES,
    Example(
        before="""\
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref):
    plgpu.load(x_ref, (0,))
""",
        after="""\
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x_ref):
    plgpu.load(x_ref.at[0])
""",
    ),
)
KEYWORDS = frozenset((f"{module}:{name}", keyword) for module, name, keyword in KEYWORD_MOVES)


def advice(callable_key: str, keyword: str) -> str | None:
    module, _, name = callable_key.partition(":")
    return KEYWORD_MOVES.get((module, name, keyword))


def find_call(f: FindContext, node: ast.Call) -> Iterator[Finding | None]:
    target = _calls.called(node, f, lambda: f.bindings)
    if target is None:
        return
    key = target[0]
    name = Location.parse(key).attr
    specs = spec_calls(f, node)
    for keyword, arg in _calls.keyword_args(node):
        hint = advice(key, keyword)
        if hint is not None:
            use = keyword_use(f, key, arg, f"{label(key, keyword)} moved: {hint}")
            fix = Moved(key, name, keyword, hint, node, arg, arg.value, specs)
            yield Finding(use, node, fix)
    for keyword, value in zip(
        position_names(key), _calls.positional(node)[target[1] :], strict=False
    ):
        hint = advice(key, keyword)
        if hint is not None:
            spans = keyword_releases(key, keyword)
            text = f"{label(key, keyword)} moved: {hint}"
            use = use_at(f, value, label(key, keyword), spans, text)
            yield Finding(use, node, Moved(key, name, keyword, hint, node, value, value, specs))


def position_names(key: str) -> list[str]:
    """What each position of ``key`` is called, where its positions changed (the scan)."""
    return [name for name, _ in positions(key)]


def spec_calls(f: FindContext, call: ast.Call) -> list[ast.Call] | None:
    """The ``BlockSpec(...)`` calls of a literal ``in_specs`` list, or None where it is not
    one (a name, a comprehension: the shim still moves the keyword at run time)."""
    given = _calls.keyword(call, "in_specs")
    specs = given.value if given is not None else None
    if not isinstance(specs, ast.List | ast.Tuple) or not specs.elts:
        return None
    calls = specs.elts
    for spec in calls:
        if not isinstance(spec, ast.Call):
            return None
        target = _calls.called(spec, f, lambda: f.bindings)
        if target is None or not target[0].endswith(":BlockSpec"):
            return None
    return calls  # type: ignore[return-value]


@dataclass(frozen=True)
class Moved:
    """The fix of one moved keyword: where the target takes it, its new place."""

    key: str
    name: str
    keyword: str
    hint: str
    call: ast.Call
    #: The argument as written (a keyword, or a positional value) and its value.
    argument: ast.AST
    value: ast.expr
    specs: list[ast.Call] | None

    def __call__(self, m: FixContext) -> None:
        spans = keyword_releases(self.key, self.keyword)
        if not spans or m.works_in(spans):
            return
        destination = DESTINATIONS[(self.name, self.keyword)]
        module = KEYWORD_MOVES_MODULE[(self.name, self.keyword)]
        if destination is not None and not m.works_in(
            keyword_releases(f"{module}:{destination[0]}", destination[1])
        ):
            m.mark(
                f"{label(self.key, self.keyword)} is not taken by JAX {m.target}, nor is its new "
                f"place ({self.hint}): keep an older JAX"
            )
            return
        if not REWRITES[(self.name, self.keyword)](m, self):
            m.mark(f"{label(self.key, self.keyword)} is not taken by JAX {m.target}: {self.hint}")


def argument_of(m: FixContext, moved: Moved) -> Argument:
    return next(a for a in arguments(moved.call, m.edits.source) if a.node is moved.argument)


def delay_release_into_specs(m: FixContext, moved: Moved) -> bool:
    """``emit_pipeline(..., in_specs=[BlockSpec(a), BlockSpec(b)], delay_release=n)`` ->
    ``emit_pipeline(..., in_specs=[BlockSpec(a, delay_release=n), ...])``."""
    if moved.specs is None:
        return False
    value = m.current(moved.value)
    for spec in moved.specs:
        with_argument(m, spec, f"delay_release={value}")
    drop(m.edits, moved.call, argument_of(m, moved))
    return True


def partitioned_as_leader_tracked(m: FixContext, moved: Moved) -> bool:
    """``partitioned_axis=k`` -> ``leader_tracked=plgpu.CopyPartition.PARTITIONED(k)``, and
    ``k if c else None`` -> ``plgpu.CopyPartition.PARTITIONED(k) if c else None``; ``None``
    goes."""
    value = moved.value
    if isinstance(value, ast.Constant) and value.value is None:
        drop(m.edits, moved.call, argument_of(m, moved))
        return True
    module = KEYWORD_MOVES_MODULE[("copy_gmem_to_smem", "partitioned_axis")]
    partition = f"{m.alias_for(module)}.CopyPartition.PARTITIONED"
    if isinstance(value, ast.Constant) and type(value.value) is int:
        new = f"{partition}({m.current(value)})"
    elif (
        isinstance(value, ast.IfExp)
        and isinstance(value.orelse, ast.Constant)
        and value.orelse.value is None
    ):
        new = f"{partition}({m.current(value.body)}) if {m.current(value.test)} else None"
    else:
        return False
    argument = moved.argument
    if isinstance(argument, ast.keyword):
        text = m.edits.source
        equal = text.text[text.start(argument) + len("partitioned_axis") : text.start(value)]
        m.replace(argument, f"leader_tracked{equal}{new}")
    else:
        m.replace(argument, f"leader_tracked={new}")
    return True


def idx_into_ref(m: FixContext, moved: Moved) -> bool:
    """``plgpu.load(src, idx, ...)`` -> ``plgpu.load(src.at[idx], ...)``; ``idx=()`` (the whole
    ref) -> ``plgpu.load(src, ...)``, as JAX's own kernels were rewritten for 0.12.0."""
    found = arguments(moved.call, m.edits.source)
    src = found[0] if found and found[0].keyword is None and not found[0].starred else None
    if src is None or src.node is moved.argument:
        return False
    value = moved.value
    whole = isinstance(value, ast.Tuple) and not value.elts
    if not whole:
        m.replace(src.node, f"{standalone(m, src.node)}.at[{index_text(m, value)}]")
    drop(m.edits, moved.call, argument_of(m, moved))
    return True


def index_text(m: FixContext, index: ast.expr) -> str:
    """What goes between the brackets: a tuple literal's items, else the index."""
    if (
        isinstance(index, ast.Tuple)
        and index.elts
        and not any(isinstance(e, ast.Starred) for e in index.elts)
    ):
        return ", ".join(m.current(e) for e in index.elts)
    return m.current(index)


REWRITES = {
    ("emit_pipeline", "delay_release"): delay_release_into_specs,
    ("copy_gmem_to_smem", "partitioned_axis"): partitioned_as_leader_tracked,
    ("load", "idx"): idx_into_ref,
}
#: Where each moved keyword lives now: (callable, keyword) whose scanned releases say which
#: targets take the new form.
DESTINATIONS: dict[tuple[str, str], tuple[str, str] | None] = {
    ("emit_pipeline", "delay_release"): ("BlockSpec", "delay_release"),
    ("copy_gmem_to_smem", "partitioned_axis"): ("copy_gmem_to_smem", "leader_tracked"),
    ("load", "idx"): None,  # into the ref, which every release indexes
}
KEYWORD_MOVES_MODULE = {(name, keyword): module for module, name, keyword in KEYWORD_MOVES}
