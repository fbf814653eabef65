"""``doctor --format sarif``: SARIF 2.1.0, the format GitHub code scanning (and most CI
dashboards) import. Each rule is described once in the tool's driver; each use that breaks,
warns or cannot be told is a result at its line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pallas_compat import rules
from pallas_compat.lint._report import Report
from pallas_compat.rules._use import UseState

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {UseState.BREAKS: "error", UseState.WARNS: "warning", UseState.UNKNOWN: "warning"}


def driver(version: str) -> dict[str, Any]:
    return {
        "name": "pallas-compat",
        "version": version,
        "rules": [
            {
                "id": rule.code,
                "name": rule.name,
                "shortDescription": {"text": rule.summary},
                "help": {"text": f"{rule.summary}. {rule.fix}."},
                "properties": {"fix": str(rule.fix)},
            }
            for rule in rules.RULES
        ],
    }


def uri(path: str) -> str:
    """A relative path as it is (SARIF resolves it against the checkout); an absolute one as
    a ``file:`` URI."""
    return Path(path).as_uri() if Path(path).is_absolute() else Path(path).as_posix()


def sarif(report: Report, version: str) -> str:
    """The SARIF log for ``report``."""
    index = {rule.code: i for i, rule in enumerate(rules.RULES)}
    results = [
        {
            "ruleId": finding.use.code,
            "ruleIndex": index[finding.use.code],
            "level": LEVELS[finding.state],
            "message": {"text": f"{finding.use.api}: {finding.verdict}; write: {finding.write}"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri(finding.use.path)},
                        "region": {
                            "startLine": finding.use.line,
                            "startColumn": finding.use.column,
                        },
                    }
                }
            ],
        }
        for finding in report.findings
        if finding.state in LEVELS
    ]
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver(version)}, "results": results}],
    }
    return json.dumps(log, indent=1) + "\n"
