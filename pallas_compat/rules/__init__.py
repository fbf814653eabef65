"""The drift rules: one module per kind of drift, each with a stable code and name, the finder
``doctor`` runs, the libcst rewrite ``migrate`` runs, and the advice both print.

Public: ``RULES``, ``RULES_BY_CODE`` and the lookups below are what the report and tools
built on pallas-compat read. Floor: above the facts; it imports nothing of the shim, the lint
tools or the matrix. The helpers every rule shares live here too (``_syntax``, ``_rewrite``,
``_keywords``, ``_use``: the ``Use`` a finder reports, ...).

A rule module defines ``RULE`` and any of these hooks, which the two dispatchers
(``lint._finder.UseFinder``, ``lint._migrate.Migrator``) call in the order of ``MODULES``,
each with the walk typed in ``_context`` (``FindContext``, ``RewriteContext``):

- finding: ``find_module``, ``find_import``, ``find_name`` (the first that answers wins),
  ``find_class``, ``find_subscript``, ``find_call``, ``find_assign``,
  ``enter_function``/``leave_function``;
- rewriting: ``prepare``, ``before``/``after`` (whole-module passes), ``rewrite_import``,
  ``rewrite_import_from``, ``rewrite_attribute`` (the first that answers wins),
  ``rewrite_call`` (a ``FINAL`` rule's answer ends the call's rewriting), ``rewrite_expr``,
  ``rewrite_assign``, ``rewrite_class``, ``rewrite_function``;
- ``MENTIONS``: text a whole-module pass rewrites (and no rule writes), so that a file whose
  source lacks it skips the pass, and asks nothing of the target;
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
from pallas_compat.rules._rule import Fix, Rule

#: The order the hooks run in: a name is the first claiming rule's (``removed_name`` takes
#: what no other claims), a call's rewrites compose in this order.
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
    "enter_function",
    "leave_function",
)
REWRITING_HOOKS = (
    "prepare",
    "before",
    "after",
    "rewrite_import",
    "rewrite_import_from",
    "rewrite_attribute",
    "rewrite_call",
    "rewrite_expr",
    "rewrite_assign",
    "rewrite_class",
    "rewrite_function",
)
RULES_BY_CODE: dict[str, Rule] = {r.code: r for r in RULES}
RULES_BY_NAME: dict[str, Rule] = {r.name: r for r in RULES}

__all__ = [
    "FINDING_HOOKS",
    "MODULES",
    "REWRITING_HOOKS",
    "RULES",
    "RULES_BY_CODE",
    "RULES_BY_NAME",
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
