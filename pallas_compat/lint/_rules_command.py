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
