"""PAL204 dict-compiler-params: ``compiler_params={"mosaic": {...}}`` (or ``{"triton": ...}``),
the only form of JAX 0.4.30 and 0.4.31, refused from 0.6.1; the params dataclasses replace it.

``migrate`` writes the backend's params class for a literal dict whose every key the target
takes (``cost_estimate`` moves to ``pallas_call``, a key no release knew that the dict era
ignored is dropped with a note) and ``Params(**fields)`` for fields held in a variable; the
shim converts dicts at run time. Doctor also names keys no release's params know.

A dict of that shape built apart and bound to a name (``params = dict(triton=dict(
num_warps=4))`` in a helper that returns it, as easydel's GPU matmul does) is found and
rewritten where it is made: one backend key, and every field one of that backend's params
in some release, which nothing but compiler params looks like. Left as a dict, it reaches a
release that refuses it, or lowers with an unhashable parameter on a GPU.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from pallas_compat.facts._table import (
    BACKENDS,
    BACKENDS_BY_KEY,
    DICT_PARAMS,
    FEATURES_BY_KEY,
    PALLAS_CALL,
    PARAM_FIELDS,
    Backend,
    backend_of,
    dict_params_form,
    pallas_call_keyword_releases,
    param_field_releases,
)
from pallas_compat.rules import _calls, _dicts
from pallas_compat.rules._arguments import after_last, arguments, separator
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import Use, form_use

RULE = Rule(
    "PAL204",
    "dict-compiler-params",
    f"compiler_params as a dict ({DICT_PARAMS}), which later releases refuse",
    Fix.PARTLY,
    Example(
        before="""\
from jax.experimental import pallas as pl

run = pl.pallas_call(kernel, out_shape=shape, compiler_params={"mosaic": {"dimension_semantics": ("parallel",)}})
""",
        after="""\
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

run = pl.pallas_call(kernel, out_shape=shape, compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)))
""",
    ),
)
#: The call form of the table (``CallForm``) this rule finds.
FORMS = frozenset({DICT_PARAMS})
KEYWORDS = frozenset({(PALLAS_CALL, "compiler_params")})
Entries = list[tuple[str, ast.expr]]


def unknown_keys(entries: Sequence[tuple[str, ast.expr]]) -> str:
    """``{"triton": {"num_wraps": 4}}``: the keys no release's params know, named (the
    dict-era Triton lowering ignored them, so the typo never failed), or ``""``."""
    if len(entries) != 1 or (backend := backend_of(entries[0][0])) is None:
        return ""
    fields = _dicts.dict_entries(entries[0][1]) or []
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


def literal_params(entries: Entries) -> tuple[str, Entries] | None:
    """``{"mosaic": {...}}`` with one backend of the dict era and literal fields -> (backend,
    fields)."""
    if len(entries) != 1:
        return None
    backend, inner = entries[0]
    fields = _dicts.dict_entries(inner)
    found = backend_of(backend)
    if fields is None or found is None or not found.dict_fields:
        return None
    return found.key, fields


def find_call(f: FindContext, node: ast.Call) -> Iterator[Use | Finding]:
    target = _calls.called(node, f, lambda: f.bindings)
    params = _calls.keyword(node, "compiler_params")
    if target is None or target[0] != PALLAS_CALL or params is None:
        return
    entries = _dicts.dict_entries(params.value)
    if entries is None:
        backend = params_class_of(f, params.value)
        if backend is not None and isinstance(params.value, ast.Call):
            call = params.value
            yield Finding(None, call, lambda m: as_dict(m, call, backend))
        return
    use = form_use(f, params, DICT_PARAMS)
    label, hint = dict_params_form(entries[0][0] if len(entries) == 1 else "")
    if unknown := unknown_keys(entries):
        hint += f"; {unknown}"
    has_cost = _calls.keyword(node, "cost_estimate") is not None
    fix = ToParams(node, params, entries, has_cost)
    yield Finding(Use(use.path, use.line, use.column, label, use.releases, hint), node, fix)


class ToParams:
    """A ``compiler_params`` dict as the target's params class: ``pltpu.CompilerParams(...)``
    of a literal dict whose every key the target takes (``cost_estimate`` moves to
    ``pallas_call``), ``Params(**fields)`` for fields held in a variable; else a note."""

    def __init__(
        self, call: ast.Call, params: ast.keyword, entries: Entries, has_cost: bool
    ) -> None:
        self.call, self.params, self.entries, self.has_cost = call, params, entries, has_cost

    def __call__(self, m: FixContext) -> None:
        if m.form_works(DICT_PARAMS):
            return
        literal = literal_params(self.entries)
        made = params_call(m, literal, has_cost=self.has_cost)
        if made is None:
            made = params_at_run_time(m, self.entries)
        if made is None:  # the advice of the dict's one backend (a Mosaic GPU dict: plgpu's)
            key = self.entries[0][0] if len(self.entries) == 1 else ""
            m.mark(
                f"dict compiler_params are not taken by JAX {m.target}: {dict_params_form(key)[1]}"
            )
            return
        written, cost = made
        m.replace(self.params.value, written)
        if cost is None:
            return
        text = m.edits.source
        found = arguments(self.call, text)
        argument = next(a for a in found if a.node is self.params)
        moved = f"cost_estimate={m.current(cost)}"
        if argument is not found[-1]:  # before the next one, with the same comma after it
            gap = separator(argument, text)
            if "#" in gap:  # the comment stays with compiler_params; the line break follows
                gap = "," + gap[gap.index("\n") :]
            m.edits.insert(argument.slot_end, f"{moved}{gap}")
        else:
            m.edits.insert(*after_last(argument, text, moved))


def as_dict(m: FixContext, value: ast.Call, backend: Backend) -> None:
    """``pltpu.CompilerParams(k=v)`` -> ``dict(mosaic=dict(k=v))`` for a target older than
    every params class (0.4.30-0.4.32 take only the dict), where each keyword is one the dict
    era read; else nothing (``removed_name`` notes the class the target lacks)."""
    if m.replacement_params(backend.key) is not None or not m.form_works(DICT_PARAMS):
        return
    if value.args or any(k.arg is None or k.arg not in backend.dict_fields for k in value.keywords):
        return
    text = m.edits.source
    inner = "dict" + m.edits.current(text.end(value.func), text.end(value))  # its comments kept
    for location in FEATURES_BY_KEY[backend.feature].locations:
        m.unmark(f"{location.spelling} is not in")
    m.replace(value, f"dict({backend.key}={inner})")


def params_class_of(f: FindContext, value: ast.expr) -> Backend | None:
    """The backend whose params class ``value`` calls, of those that had a dict form."""
    if not isinstance(value, ast.Call):
        return None
    names = f.qualified(value.func)
    for backend in BACKENDS:
        spellings = {
            f"{loc.module}.{loc.attr}" for loc in FEATURES_BY_KEY[backend.feature].locations
        }
        if backend.dict_fields and names & spellings:
            return backend
    return None


def params_call(
    m: FixContext, params: tuple[str, Entries] | None, *, has_cost: bool
) -> tuple[str, ast.expr | None] | None:
    """``pltpu.CompilerParams(...)`` for a literal dict whose every key the target takes
    (``cost_estimate`` moves to ``pallas_call``), else None."""
    if params is None:
        return None
    backend, entries = params
    new = m.replacement_params(backend)
    if new is None:
        return None
    fields, cost = [], None
    for name, value in entries:
        if (
            name == "cost_estimate"
            and not has_cost
            and m.works_in(pallas_call_keyword_releases("cost_estimate"))
        ):
            cost = value
        elif m.works_in(param_field_releases(backend, name)):
            fields.append(f"{name}={m.current(value)}")
        elif (
            name not in PARAM_FIELDS[backend] and BACKENDS_BY_KEY[backend].dict_ignored_unknown_keys
        ):
            m.mark(  # num_wraps: what the dict-era lowering ignored is dropped
                f"dropped {name}=, which no JAX release's {backend} params know (the "
                "dict-era lowering ignored it)"
            )
        else:
            return None
    return f"{m.alias_for(new.module)}.{new.attr}({', '.join(fields)})", cost


def params_at_run_time(m: FixContext, outer: Entries) -> tuple[str, None] | None:
    """``{"mosaic": params}`` / ``dict(mosaic=params)`` whose fields are a variable:
    ``pltpu.CompilerParams(**params)``, which converts when it runs."""
    if len(outer) != 1:
        return None
    backend, inner = outer[0]
    found = backend_of(backend)
    if found is None or _dicts.dict_entries(inner) is not None:
        return None
    new = m.replacement_params(found.key)
    if new is None:
        return None
    return f"{m.alias_for(new.module)}.{new.attr}(**{m.current(inner)})", None


def standalone(value: ast.expr) -> tuple[str, Entries] | None:
    """``dict(triton=dict(num_warps=4))`` / ``{"mosaic": {...}}`` outside a call: (backend,
    fields) where the shape is unmistakably compiler params, else None."""
    outer = _dicts.dict_entries(value)
    if not outer or len(outer) != 1:
        return None
    key, inner = outer[0]
    backend, fields = backend_of(key), _dicts.dict_entries(inner)
    if backend is None or not backend.dict_fields or not fields:
        return None
    known = PARAM_FIELDS.get(backend.key, {})
    return (backend.key, fields) if all(name in known for name, _ in fields) else None


def find_assign(f: FindContext, node: ast.Assign) -> Iterator[Finding]:
    found = standalone(node.value)
    if found is None:
        return
    use = form_use(f, node.value, DICT_PARAMS)
    label, hint = dict_params_form(found[0])
    use = Use(use.path, use.line, use.column, label, use.releases, hint)
    yield Finding(use, node.value, lambda m: as_params(m, node.value, found))


def as_params(m: FixContext, value: ast.expr, found: tuple[str, Entries]) -> None:
    """Asks the target nothing unless the value is dict params: one reading serves every
    target that answers its questions alike."""
    if m.form_works(DICT_PARAMS):
        return
    made = params_call(m, found, has_cost=False)
    if made is None or made[1] is not None:
        m.mark(
            f"dict compiler_params are not taken by JAX {m.target}: {dict_params_form(found[0])[1]}"
        )
        return
    m.replace(value, made[0])
