"""doctor's result, typed: what every renderer (text, JSON, HTML, GitHub, SARIF) takes.

``collect`` in ``_doctor`` builds one ``Report`` per run; each renderer reads its fields, and
``as_json`` is the ``--format json`` document (its keys are part of the CLI's contract).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pallas_compat.facts._table import describe
from pallas_compat.rules import RULES_BY_CODE
from pallas_compat.rules._advice import write_for
from pallas_compat.rules._use import Use, UseState

__all__ = ["FileRuns", "Finding", "Report", "RunsOn", "Skipped", "Summary"]


@dataclass(frozen=True)
class Finding:
    """One use, as doctor reports it on the releases it checks."""

    use: Use
    #: The rule's name (``masked-load-store``), beside its code.
    rule: str
    #: The target release (one; the newest of a support window).
    target: str
    #: The worst of its states over the releases checked, and that verdict in words.
    state: UseState
    verdict: str
    #: What to write instead, for the releases checked (``rules._advice.write_for``).
    write: str = ""

    @classmethod
    def of(cls, use: Use, target: str, releases: Sequence[str], label: str) -> Finding:
        rule = RULES_BY_CODE[use.code].name if use.code in RULES_BY_CODE else ""
        state = use.state_over(releases)
        advice = write_for(use, releases, label)
        return cls(use, rule, target, state, use.verdict_over(releases, label), advice)

    @property
    def works_in(self) -> str:
        """Where it works, in the report's words; ``?`` when the source cannot tell."""
        return describe([list(span) for span in self.use.releases]) if self.use.certain else "?"

    def as_json(self) -> dict[str, Any]:
        use = self.use
        return {
            "code": use.code,
            "rule": self.rule,
            "path": use.path,
            "line": use.line,
            "column": use.column,
            "api": use.api,
            "works_in": self.works_in,
            "deprecated_in": describe([list(span) for span in use.warns]) if use.warns else None,
            "state_on_target": str(use.state_on(self.target)),
            "breaks_on_target": use.breaks_on(self.target) if use.certain else None,
            "write_instead": self.write,
            "state": str(self.state),
            "verdict": self.verdict,
        }


@dataclass(frozen=True)
class RunsOn:
    """The releases a file (or the tree) runs on, as the report writes them."""

    runs_unchanged: str
    with_pallas_compat: str

    def as_json(self) -> dict[str, str]:
        return {
            "runs_unchanged": self.runs_unchanged,
            "with_pallas_compat": self.with_pallas_compat,
        }


@dataclass(frozen=True)
class FileRuns:
    path: str
    runs: RunsOn

    def as_json(self) -> dict[str, str]:
        return {"path": self.path, **self.runs.as_json()}


@dataclass(frozen=True)
class Skipped:
    """A file passed over without being read (a notebook, a link out of the paths, ...)."""

    path: str
    reason: str


@dataclass(frozen=True)
class Summary:
    files: int
    uses: int
    breaking: int
    warning: int
    unknown: int
    silenced: int


@dataclass(frozen=True)
class Report:
    """Every finding of one run, where each file and the tree run, and what was not read."""

    target: str
    releases: tuple[str, ...]
    #: The releases checked, in words (``JAX 0.12.0.1``, ``JAX 0.6.2-0.12.0.1``).
    checked: str
    findings: tuple[Finding, ...]
    files: tuple[FileRuns, ...]
    tree: RunsOn
    #: Files that could not be read, decoded or parsed: doctor exits 1 for them.
    left_untouched: tuple[str, ...]
    skipped: tuple[Skipped, ...]
    summary: Summary

    @property
    def exit_status(self) -> int:
        return 1 if self.summary.breaking or self.left_untouched else 0

    def as_json(self) -> dict[str, Any]:
        """The ``--format json`` document."""
        return {
            "target": self.target,
            "releases": list(self.releases),
            "checked": self.checked,
            "uses": [finding.as_json() for finding in self.findings],
            "files": [entry.as_json() for entry in self.files],
            "tree": self.tree.as_json(),
            "left_untouched": list(self.left_untouched),
            "skipped": [{"path": s.path, "reason": s.reason} for s in self.skipped],
            "summary": {
                "files": self.summary.files,
                "uses": self.summary.uses,
                "breaking": self.summary.breaking,
                "warning": self.summary.warning,
                "unknown": self.summary.unknown,
                "silenced": self.summary.silenced,
            },
        }
