"""``doctor --format github``: GitHub Actions workflow commands, one per use that breaks
(``::error``) or warns or cannot be told (``::warning``), so that each shows on its line of
the pull request's diff."""

from __future__ import annotations

from pallas_compat.lint._report import Report
from pallas_compat.rules._use import UseState


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


LEVELS = {UseState.BREAKS: "error", UseState.WARNS: "warning", UseState.UNKNOWN: "warning"}


def workflow_commands(report: Report) -> list[str]:
    """The workflow commands for ``report``: one per use that breaks, warns or cannot be told."""
    lines = []
    for finding in report.findings:
        level = LEVELS.get(finding.state)
        if level is None:
            continue
        use = finding.use
        title = escape_property(f"{use.code} {finding.rule}")
        where = f"file={escape_property(use.path)},line={use.line},col={use.column},title={title}"
        message = f"{use.api}: {finding.verdict}; write: {finding.write}"
        lines.append(f"::{level} {where}::{escape_data(message)}")
    return lines
