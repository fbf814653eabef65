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
from typing import Any

import libcst as cst

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
from pallas_compat.rules import _read
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._rewrite import attr, keyword_arg
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._syntax import called, dict_entries, dict_params, keyword, qualified
from pallas_compat.rules._use import Use, form_use

RULE = Rule(
    "PAL204",
    "dict-compiler-params",
    f"compiler_params as a dict ({DICT_PARAMS}), which later releases refuse",
    Fix.PARTLY,
)
#: The call form of the table (``CallForm``) this rule finds.
FORMS = frozenset({DICT_PARAMS})
KEYWORDS = frozenset({(PALLAS_CALL, "compiler_params")})
Entries = list[tuple[str, cst.BaseExpression]]


def unknown_keys(entries: Sequence[tuple[str, Any]]) -> str:
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


def find_call(f: FindContext, node: ast.Call) -> Iterator[Use]:
    target = _read.called(node, f, lambda: f.bindings)
    params = _read.keyword(node, "compiler_params")
    if target is None or target[0] != PALLAS_CALL or params is None:
        return
    entries = _read.dict_entries(params.value)
    if entries is None:
        return
    use = form_use(f, params, DICT_PARAMS)
    label, hint = dict_params_form(entries[0][0] if len(entries) == 1 else "")
    if unknown := unknown_keys(entries):
        hint += f"; {unknown}"
    yield Use(use.path, use.line, use.column, label, use.releases, hint)


def rewrite_call(m: RewriteContext, original: cst.Call, updated: cst.Call) -> cst.Call | None:
    target = called(original, m, m.bindings)
    current = keyword(original, "compiler_params")
    if target is None or target[0] != PALLAS_CALL or current is None:
        return None
    if dict_entries(current.value) is None:
        return as_dict(m, current.value, updated)
    if m.form_works(DICT_PARAMS):
        return None
    params = dict_params(original)
    made = params_call(m, params, has_cost=keyword(original, "cost_estimate") is not None)
    if made is None:
        made = params_at_run_time(m, current.value)
    if made is None:
        m.mark(
            f"dict compiler_params are not taken by JAX {m.target}: "
            f"{dict_params_form(params[0] if params else '')[1]}"
        )
        return None
    call, cost = made
    args = list(updated.args)
    index = next(
        i for i, a in enumerate(args) if a.keyword and a.keyword.value == "compiler_params"
    )
    args[index] = args[index].with_changes(value=call)
    if cost is not None:
        args.insert(
            index + 1, keyword_arg("cost_estimate", cost).with_changes(comma=args[index].comma)
        )
    return updated.with_changes(args=args)


def as_dict(m: RewriteContext, value: cst.BaseExpression, updated: cst.Call) -> cst.Call | None:
    """``pltpu.CompilerParams(k=v)`` -> ``dict(mosaic=dict(k=v))`` for a target older than
    every params class (0.4.30-0.4.32 take only the dict), where each keyword is one the dict
    era read; else None (``removed_name`` notes the class the target lacks)."""
    backend = params_class_of(m, value)
    if backend is None or m.replacement_params(backend.key) is not None:
        return None
    if not m.form_works(DICT_PARAMS) or not isinstance(value, cst.Call):
        return None
    if any(
        a.keyword is None or a.star or a.keyword.value not in backend.dict_fields
        for a in value.args
    ):
        return None
    inner = value.with_changes(func=cst.Name("dict"))  # its arguments and comments kept
    made = cst.Call(cst.Name("dict"), [keyword_arg(backend.key, inner)])
    for location in FEATURES_BY_KEY[backend.feature].locations:
        m.unmark(f"{location.spelling} is not in")
    args = [
        a.with_changes(value=made) if a.keyword and a.keyword.value == "compiler_params" else a
        for a in updated.args
    ]
    return updated.with_changes(args=args)


def params_class_of(m: RewriteContext, value: cst.BaseExpression) -> Backend | None:
    """The backend whose params class ``value`` calls, of those that had a dict form."""
    if not isinstance(value, cst.Call):
        return None
    names = qualified(value.func, m)
    for backend in BACKENDS:
        spellings = {
            f"{loc.module}.{loc.attr}" for loc in FEATURES_BY_KEY[backend.feature].locations
        }
        if backend.dict_fields and names & spellings:
            return backend
    return None


def params_call(
    m: RewriteContext, params: tuple[str, Entries] | None, *, has_cost: bool
) -> tuple[cst.Call, cst.BaseExpression | None] | None:
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
            fields.append(keyword_arg(name, value))
        elif (
            name not in PARAM_FIELDS[backend] and BACKENDS_BY_KEY[backend].dict_ignored_unknown_keys
        ):
            m.mark(  # num_wraps: what the dict-era lowering ignored is dropped
                f"dropped {name}=, which no JAX release's {backend} params know (the "
                "dict-era lowering ignored it)"
            )
        else:
            return None
    func = attr(f"{m.alias_for(new.module)}.{new.attr}")
    return cst.Call(func, fields), cost


def params_at_run_time(
    m: RewriteContext, value: cst.BaseExpression
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
    new = m.replacement_params(found.key)
    if new is None:
        return None
    func = attr(f"{m.alias_for(new.module)}.{new.attr}")
    return cst.Call(func, [cst.Arg(inner, star="**")]), None


def standalone(value: Any) -> tuple[str, Entries] | None:
    """``dict(triton=dict(num_warps=4))`` / ``{"mosaic": {...}}`` outside a call: (backend,
    fields) where the shape is unmistakably compiler params, else None."""
    outer = dict_entries(value)
    if not outer or len(outer) != 1:
        return None
    key, inner = outer[0]
    backend, fields = backend_of(key), dict_entries(inner)
    if backend is None or not backend.dict_fields or not fields:
        return None
    known = PARAM_FIELDS.get(backend.key, {})
    return (backend.key, fields) if all(name in known for name, _ in fields) else None


def find_assign(f: FindContext, node: ast.Assign) -> Iterator[Use]:
    found = standalone(node.value)
    if found is None:
        return
    use = form_use(f, node.value, DICT_PARAMS)
    label, hint = dict_params_form(found[0])
    yield Use(use.path, use.line, use.column, label, use.releases, hint)


def rewrite_assign(m: RewriteContext, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
    """Asks the target nothing unless the value is dict params: one walk of a file serves
    every target that answers its questions alike."""
    found = standalone(original.value)
    if found is None or m.form_works(DICT_PARAMS):
        return updated
    made = params_call(m, found, has_cost=False)
    if made is None or made[1] is not None:
        m.mark(
            f"dict compiler_params are not taken by JAX {m.target}: {dict_params_form(found[0])[1]}"
        )
        return updated
    return updated.with_changes(value=made[0])
