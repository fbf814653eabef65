"""The drift rules: an inventory (every module a rule with a stable code, a name and docs),
selection by code, prefix and name, and ``pallas-compat rules``."""

from __future__ import annotations

import json
import pkgutil
import re

import pytest

import pallas_compat.rules as rules_package
from pallas_compat._cli import main
from pallas_compat.lint._finder import uses_in
from pallas_compat.lint._migrate import MARKER, migrate_source
from pallas_compat.rules import (
    FINDING_HOOKS,
    MODULES,
    RULES,
    RULES_BY_CODE,
    Fix,
    keyword_owner,
    lookup,
)

HOOKS = frozenset({*FINDING_HOOKS, "claims_feature"})


def test_every_rule_module_is_dispatched() -> None:
    """A module added to the package but not to ``MODULES`` would never run."""
    found = {
        m.name for m in pkgutil.iter_modules(rules_package.__path__) if not m.name.startswith("_")
    }
    assert found == {m.__name__.rpartition(".")[2] for m in MODULES}


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rpartition(".")[2])
def test_each_rule_has_a_code_a_name_docs_and_a_hook(module: object) -> None:
    rule = module.RULE  # type: ignore[attr-defined]
    assert re.fullmatch(r"PAL[1-3]\d\d", rule.code) and re.fullmatch(
        r"[a-z]+(-[a-z0-9]+)+", rule.name
    )
    assert module.__doc__ and module.__doc__.startswith(f"{rule.code} {rule.name}:")
    assert rule.summary and isinstance(rule.fix, Fix)
    assert any(hasattr(module, h) for h in HOOKS if h.startswith("find_")), "it finds nothing"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rpartition(".")[2])
def test_each_rule_does_what_its_example_shows(module: object) -> None:
    """doctor finds the rule's use in its example, and migrate writes the example's
    ``after`` for its target, with the rule alone: a fix as far as the rule says
    (``Fix``), and the docs that show the example cannot drift from the code."""
    rule = module.RULE  # type: ignore[attr-defined]
    example = rule.example
    assert rule.code in {use.code for use in uses_in("example.py", example.before)}
    migrated = migrate_source(example.before, example.target, frozenset({rule.code}))
    assert migrated == example.migrated
    if rule.fix is Fix.NONE:
        assert migrated == example.before
    elif rule.fix is Fix.NOTES:
        assert MARKER in migrated and migrated.replace(MARKER, "") != example.before
    else:
        assert migrated != example.before and MARKER not in migrated


def test_codes_and_names_are_unique() -> None:
    assert len({r.code for r in RULES}) == len({r.name for r in RULES}) == len(MODULES)


def test_selection_by_code_prefix_and_name() -> None:
    assert lookup(["PAL101"]) == {"PAL101"}
    assert lookup(["PAL2"]) == {c for c in RULES_BY_CODE if c.startswith("PAL2")}
    assert lookup(["masked-load-store", "ALL"]) == set(RULES_BY_CODE)
    with pytest.raises(ValueError, match="unknown rule 'PAL999'"):
        lookup(["PAL999"])


def test_keywords_have_one_owner() -> None:
    """Each keyword a rule handles itself is no other rule's (doctor would list it twice)."""
    owned = [pair for m in MODULES for pair in getattr(m, "KEYWORDS", ())]
    assert len(owned) == len(set(owned))
    for key, name in owned:
        assert keyword_owner(key, name) is not None


def test_the_rules_command_lists_every_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    for rule in RULES:
        assert re.search(rf"^{rule.code}\s+{rule.name}\s+", out, re.M)
    assert main(["rules", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [r["code"] for r in listed] == [r.code for r in RULES]
    assert {r["fix"] for r in listed} <= {str(f) for f in Fix}


def test_every_call_form_of_the_table_has_its_rule() -> None:
    from pallas_compat.facts._table import CallForm
    from pallas_compat.rules import rule_for_form

    assert all(rule_for_form(form) is not None for form in CallForm)


def test_every_hook_a_rule_defines_is_one_the_dispatchers_call() -> None:
    """A misspelt hook (``rewrite_calls``) would never run: every public function of a rule
    module is a hook, a helper the module uses, or its predicate."""
    for module in MODULES:
        for name, value in vars(module).items():
            if name.startswith(("find_", "rewrite_")) and callable(value):
                assert name in HOOKS, f"{module.__name__}.{name} is no hook"
