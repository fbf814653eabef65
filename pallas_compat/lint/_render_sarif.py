"""``doctor --format sarif``: SARIF 2.1.0, the format GitHub code scanning (and most CI
dashboards) import. Each rule is described once in the tool's driver; each use that breaks,
warns or cannot be told is a result at its line. Each rule carries its page (``help``), and its
address in the docs site where one is known (``helpUri``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pallas_compat import rules
from pallas_compat.lint._docs_site import rule_url
from pallas_compat.lint._report import Report
from pallas_compat.lint._rule_page import module_of
from pallas_compat.lint._rule_page import page as rule_page
from pallas_compat.rules import Rule
from pallas_compat.rules._use import UseState

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVELS = {UseState.BREAKS: "error", UseState.WARNS: "warning", UseState.UNKNOWN: "warning"}


def driver(version: str, site: str | None) -> dict[str, Any]:
    return {
        "name": "pallas-compat",
        "version": version,
        "rules": [described(rule, site) for rule in rules.RULES],
    }


def described(rule: Rule, site: str | None) -> dict[str, Any]:
    """A rule as SARIF describes it: its page whole as ``help`` (code scanning shows it
    beside each alert), and the page's address where a docs site is known."""
    entry: dict[str, Any] = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "help": {"text": f"{rule.summary}. {rule.fix}."},
        "properties": {"fix": str(rule.fix)},
    }
    module = module_of(rule.code)
    if module is not None:  # a rule added in process (a plugin, a test) may have no module
        entry["help"]["markdown"] = rule_page(module)
    if site is not None:
        entry["helpUri"] = rule_url(site, rule.code)
    return entry


def uri(path: str) -> str:
    """A relative path as it is (SARIF resolves it against the checkout); an absolute one as
    a ``file:`` URI."""
    return Path(path).as_uri() if Path(path).is_absolute() else Path(path).as_posix()


def sarif(report: Report, version: str, site: str | None = None) -> str:
    """The SARIF log for ``report``; ``site`` the docs site whose rule pages it links to."""
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
        "runs": [{"tool": {"driver": driver(version, site)}, "results": results}],
    }
    return json.dumps(log, indent=1) + "\n"
