"""The drift rules: one module per kind of drift, each with a stable code and name, the finder
``doctor`` runs, the fix ``migrate`` applies, and the advice both print.

One reading decides. A rule's finder reads the file once, over the standard library's
``ast`` (with the scope analysis of ``_scopes``), and returns each ``Use`` doctor reports;
where migrate can act, a ``Finding`` carries the use, the node and a fix. The fix never reads
the source again to decide: it asks the target release its questions (``FixContext``) and
turns the finder's decision into text edits on the node's source range (``_edits``), ruff's
model. Edits never overlap; an outer fix copies the text of the inner ones it holds
(``FixContext.current``), so a call rewritten by two rules carries both; everything outside
the edited ranges, comments and formatting included, stays byte for byte. Text edits serve
every rewrite the rules make, so no second tree (libcst's, which migrate used to re-read the
source with) is kept: doctor, migrate and the report import only ``ast``.

Public: ``RULES``, ``RULES_BY_CODE`` and the lookups below are what the report and tools
built on pallas-compat read. Floor: above the facts; it imports nothing of the shim, the lint
tools or the matrix. The readings the rules share are one module each, named for the question
they answer of the tree: ``_scopes`` (qualified names), ``_bindings`` (what a name is bound
to), ``_calls`` (which callable a call reaches, with which arguments), ``_dicts``,
``_expansions`` (star imports, module aliases), ``_argument_order``, ... ; the fixes' tools
are ``_edits`` (text edits), ``_arguments`` (an argument list's commas), ``_rewrite`` and
``_statements``.

A rule module defines ``RULE``, its docstring (what changed, on which releases, before and
after), and any of these finding hooks, which the dispatcher (``lint._finder.UseFinder``)
calls in the order of ``MODULES`` with the walk typed in ``_context`` (``FindContext``):
``find_module``, ``find_import``, ``find_name`` (the first that answers wins), ``find_class``,
``find_subscript``, ``find_call``, ``find_assign``, ``find_expr``,
``enter_function``/``leave_function``. Each returns uses, findings or nothing; migrate runs
the findings' fixes from the innermost node out (``lint._migrate``). Also:

- ``WHOLE_FILE``: its fix is the file's (``for_loop``): a ``# noqa`` naming the rule anywhere
  in the file leaves the file alone;
- ``KEYWORDS``: the (callable, keyword) pairs the rule handles itself; ``FORMS``: the table's
  call forms it finds; ``claims_feature``: the table features whose names it finds.

A new kind of drift is one module here and one line in ``MODULES``.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import ModuleType

from pallas_compat.facts._table import Feature
from pallas_compat.rules import (
    backend_keyword,
    block_spec_order,
    block_spec_order_unknown,
    block_spec_subclass,
    cost_analysis,
    cost_estimate_numbers,
    dict_params,
    enum_member,
    for_loop,
    function_method,
    gpu_mesh,
    gpu_module,
    indexing_mode,
    kernel_keyword,
    loop_body,
    masked_access,
    member_form,
    moved_keyword,
    positional_argument,
    recorder,
    removed_name,
    renamed_keyword,
    renamed_name,
    run_time_import,
    tpu_repeat,
    unsupported_keyword,
)
from pallas_compat.rules._rule import Example, Fix, Rule

#: The order the hooks run in: a name is the first claiming rule's (``removed_name`` takes
#: what no other claims), and the fixes of one node run in this order.
MODULES: tuple[ModuleType, ...] = (
    enum_member,
    member_form,
    masked_access,
    tpu_repeat,
    for_loop,
    gpu_module,
    gpu_mesh,
    renamed_name,
    function_method,
    removed_name,
    run_time_import,
    block_spec_order,
    block_spec_order_unknown,
    indexing_mode,
    renamed_keyword,
    moved_keyword,
    unsupported_keyword,
    positional_argument,
    kernel_keyword,
    backend_keyword,
    dict_params,
    block_spec_subclass,
    recorder,
    loop_body,
    cost_estimate_numbers,
    cost_analysis,
)
RULES: tuple[Rule, ...] = tuple(sorted((m.RULE for m in MODULES), key=lambda r: r.code))
#: The hooks the dispatchers call (the list in this module's docstring).
FINDING_HOOKS = (
    "find_module",
    "find_import",
    "find_name",
    "find_class",
    "find_subscript",
    "find_call",
    "find_assign",
    "find_expr",
    "enter_function",
    "leave_function",
)
RULES_BY_CODE: dict[str, Rule] = {r.code: r for r in RULES}
RULES_BY_NAME: dict[str, Rule] = {r.name: r for r in RULES}

__all__ = [
    "FINDING_HOOKS",
    "MODULES",
    "RULES",
    "RULES_BY_CODE",
    "RULES_BY_NAME",
    "Example",
    "Fix",
    "Rule",
    "hooks",
    "keyword_owner",
    "lookup",
    "migrate_fixes",
    "migrate_fixes_keyword",
    "rule_for_feature",
    "rule_for_form",
]


def hooks(name: str) -> list[tuple[Rule, ModuleType]]:
    """The rules that define hook ``name``, in ``MODULES`` order."""
    return [(module.RULE, module) for module in MODULES if hasattr(module, name)]


def keyword_owner(callable_key: str, name: str) -> Rule | None:
    """The rule that handles keyword ``name`` of ``callable_key`` itself, if one does."""
    for module in MODULES:
        if (callable_key, name) in getattr(module, "KEYWORDS", ()):
            owner: Rule = module.RULE
            return owner
    if renamed_keyword.claims(callable_key, name):
        return renamed_keyword.RULE
    return None


def migrate_fixes_keyword(callable_key: str, name: str) -> bool:
    """Does ``migrate`` rewrite keyword ``name`` of ``callable_key`` (some forms at least)?"""
    return migrate_fixes(keyword_owner(callable_key, name))


def rule_for_form(form: str) -> Rule | None:
    """The rule that finds a call form of the table (``CallForm``)."""
    return next((m.RULE for m in MODULES if form in getattr(m, "FORMS", ())), None)


def migrate_fixes(rule: Rule | None) -> bool:
    return rule is not None and rule.fix in (Fix.REWRITES, Fix.PARTLY)


def rule_for_feature(feature: Feature) -> Rule:
    """The rule that finds (and fixes, as far as it does) the old spellings of ``feature``."""
    for _, module in hooks("claims_feature"):
        if module.claims_feature(feature):
            claimer: Rule = module.RULE
            return claimer
    return removed_name.RULE


def lookup(selectors: Iterable[str]) -> frozenset[str]:
    """The codes that codes, code prefixes (``PAL2``), names or ``ALL`` select; an unknown
    one is a ``ValueError`` naming it."""
    codes: set[str] = set()
    for given in selectors:
        text = given.strip()
        if not text:
            continue
        if text.upper() == "ALL":
            codes |= set(RULES_BY_CODE)
        elif text in RULES_BY_NAME:
            codes.add(RULES_BY_NAME[text].code)
        elif matched := {c for c in RULES_BY_CODE if c.startswith(text.upper())}:
            codes |= matched
        else:
            raise ValueError(f"unknown rule {text!r} (pallas-compat rules lists them)")
    return frozenset(codes)
