"""``pallas-compat rules``: the drift rules, each with its code, name, what it checks and how
far ``migrate`` fixes it (``--format json`` for tools)."""

from __future__ import annotations

import json
import sys

from pallas_compat import rules as drift_rules


def rules(format: str = "text") -> int:
    listed = drift_rules.RULES  # read now: a test (or a plugin) may have added one
    if format == "json":
        records = [
            {"code": r.code, "name": r.name, "checks": r.summary, "fix": str(r.fix)} for r in listed
        ]
        sys.stdout.write(json.dumps(records, indent=1) + "\n")
        return 0
    width = max(len(r.name) for r in listed)
    for rule in listed:
        sys.stdout.write(f"{rule.code}  {rule.name:<{width}}  {rule.summary}\n")
        sys.stdout.write(f"{'':<6}  {'':<{width}}  {rule.fix}\n")
    return 0


def rule(code: str | None) -> int:
    """``pallas-compat rule CODE``: the rule's page (its code or its name); no code: every page."""
    from pallas_compat._usage import UsageError  # lazy: only on the error path
    from pallas_compat.lint._rule_page import module_of, page  # lazy: runs doctor and migrate

    if code is None:
        modules = sorted(drift_rules.MODULES, key=lambda m: m.RULE.code)
        sys.stdout.write("\n\n".join(page(m) for m in modules))
        return 0
    by_name = {m.RULE.name: m for m in drift_rules.MODULES}
    module = module_of(code) or by_name.get(code)
    if module is None:
        raise UsageError(f"rule: no rule {code!r} (pallas-compat rules lists them)")
    sys.stdout.write(page(module))
    return 0
