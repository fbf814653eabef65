"""``pallas-compat doctor``: every use of a drifted Pallas API under the paths, with the rule
that found it, where it works and what to write instead; as text, JSON, HTML, GitHub
annotations or SARIF."""

from __future__ import annotations

import json
import sys
from importlib.metadata import PackageNotFoundError, version

from pallas_compat.lint import _runs_on
from pallas_compat.lint._analysis import analysis_of
from pallas_compat.lint._docs_site import docs_url
from pallas_compat.lint._finder import UseState
from pallas_compat.lint._inputs import python_sources
from pallas_compat.lint._noqa import silenced
from pallas_compat.lint._options import DoctorOptions, Inputs
from pallas_compat.lint._render_github import workflow_commands
from pallas_compat.lint._render_html import page, report_url
from pallas_compat.lint._render_sarif import sarif
from pallas_compat.lint._report import Finding, Report, Skipped, Summary
from pallas_compat.lint._settings import Settings, settings
from pallas_compat.rules._use import Use

FORMATS = ("text", "json", "html", "github", "sarif")


def collect(inputs: Inputs, chosen: Settings) -> Report:
    """doctor's report: the selected uses not silenced by a ``# noqa``."""
    uses: list[Use] = []
    unreadable: list[str] = []
    silenced_count = 0
    files, skipped = python_sources(inputs.paths, inputs.exclusions)
    unreadable += [str(s.path) for s in skipped if s.unread]  # folders the OS would not list
    for source, found in zip(files, analysis_of(inputs, files, "doctor"), strict=True):
        if found.uses is None:
            unreadable.append(str(source.path))
            continue
        for use in found.uses:
            if use.code not in chosen.selected:
                continue
            if silenced(found.noqa, use.line, use.code):
                silenced_count += 1
                continue
            uses.append(use)
    findings = tuple(Finding.of(use, chosen.target, chosen.releases, chosen.label) for use in uses)
    states = [finding.state for finding in findings]
    return Report(
        target=chosen.target,
        releases=tuple(chosen.releases),
        checked=chosen.label,
        findings=findings,
        files=_runs_on.by_file(uses),
        tree=_runs_on.ranges(uses),
        left_untouched=tuple(unreadable),
        skipped=tuple(Skipped(str(s.path), s.reason) for s in skipped),
        summary=Summary(
            files=len(files),
            uses=len(uses),
            breaking=states.count(UseState.BREAKS),
            warning=states.count(UseState.WARNS),
            unknown=states.count(UseState.UNKNOWN),
            silenced=silenced_count,
        ),
    )


def text(report: Report) -> str:
    lines = []
    for finding in report.findings:
        use = finding.use
        where = f"works in JAX {finding.works_in}; " if use.certain else ""
        lines.append(
            f"{use.path}:{use.line}:{use.column}: {use.code} {use.api} "
            f"({where}{finding.verdict}); write: {finding.write}"
        )
    summary = report.summary
    lines += [_runs_on.line(entry.path, entry.runs) for entry in report.files]
    if summary.files > 1 and report.files:  # files without uses run wherever JAX does
        lines.append(_runs_on.line(f"all {summary.files} files", report.tree))
    lines.append(
        f"{summary.uses} uses of drifted Pallas APIs in {summary.files} files; "
        f"{summary.breaking} break on {report.checked}"
        + (f"; {summary.warning} work there with a deprecation warning" if summary.warning else "")
        + (f"; {summary.unknown} cannot be told from the source" if summary.unknown else "")
        + (f"; {summary.silenced} silenced by # noqa" if summary.silenced else "")
        + (
            f"; {len(report.left_untouched)} files could not be read"
            if report.left_untouched
            else ""
        )
    )
    return "\n".join(lines) + "\n"


def own_version() -> str:
    try:
        return version("pallas-compat")
    except PackageNotFoundError:  # run from a checkout
        return "0+unknown"


def doctor(options: DoctorOptions) -> int:
    url = site = None
    form = options.format
    if form == "html":  # a page that is not there is refused before any file is read
        url = report_url(options.report)
    if form in ("html", "sarif"):
        site = docs_url(options.docs)
    report = collect(options.inputs, settings(options.inputs.paths, options.choice))
    if form == "json":
        out = json.dumps(report.as_json(), indent=1) + "\n"
    elif form == "html":
        out = page(report, url, site)
    elif form == "github":
        out = "".join(f"{line}\n" for line in workflow_commands(report))
        print(text(report).splitlines()[-1], file=sys.stderr)
    elif form == "sarif":
        out = sarif(report, own_version(), site)
    else:
        out = text(report)
    sys.stdout.write(out)
    return report.exit_status
