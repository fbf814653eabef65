"""``pallas-compat doctor``: every use of a drifted Pallas API under the paths, with the rule
that found it, where it works and what to write instead; as text, JSON, HTML, GitHub
annotations or SARIF."""

from __future__ import annotations

import argparse
import json
import sys
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from pallas_compat import _doctor_ranges, _source
from pallas_compat._inputs import internal_error, parse, python_sources
from pallas_compat._noqa import noqa_lines, silenced
from pallas_compat._settings import Settings, settings
from pallas_compat._source import UseState, gc_paused
from pallas_compat._uses import Use

FORMATS = ("text", "json", "html", "github", "sarif")


def collect(args: argparse.Namespace, chosen: Settings) -> dict[str, Any]:
    """doctor's JSON report: the selected uses not silenced by a ``# noqa``."""
    uses: list[Use] = []
    unreadable: list[str] = []
    silenced_count = 0
    files, skipped = python_sources(args.paths)
    for source in files:
        with gc_paused():
            parsed = parse(source)
            if parsed is None:
                unreadable.append(str(source.path))
                continue
            data, module = parsed
            if module is None:
                continue
            try:
                found = _source.find_uses(str(source.path), module)
            except Exception as exc:  # a bug of ours must not hide the other files
                internal_error(source, "doctor", exc)
                unreadable.append(str(source.path))
                continue
        lines = noqa_lines(data)
        for use in found:
            if use.code not in chosen.selected:
                continue
            if silenced(lines, use.line, use.code):
                silenced_count += 1
                continue
            uses.append(use)
    records = []
    for use in uses:
        record = use.as_record(chosen.target)
        record["state"] = str(use.state_over(chosen.releases))
        record["verdict"] = use.verdict_over(chosen.releases, chosen.label)
        records.append(record)
    states = [use.state_over(chosen.releases) for use in uses]
    return {
        "target": chosen.target,
        "releases": list(chosen.releases),
        "checked": chosen.label,
        "uses": records,
        "files": _doctor_ranges.by_file(uses),
        "tree": _doctor_ranges.ranges(uses),
        "left_untouched": unreadable,
        "skipped": [{"path": str(s.path), "reason": s.reason} for s in skipped],
        "summary": {
            "files": len(files),
            "uses": len(uses),
            "breaking": states.count(UseState.BREAKS),
            "warning": states.count(UseState.WARNS),
            "unknown": states.count(UseState.UNKNOWN),
            "silenced": silenced_count,
        },
    }


def text(report: dict[str, Any]) -> str:
    lines = []
    for use in report["uses"]:
        where = f"works in JAX {use['works_in']}; " if use["works_in"] != "?" else ""
        lines.append(
            f"{use['path']}:{use['line']}:{use['column']}: {use['code']} {use['api']} "
            f"({where}{use['verdict']}); write: {use['write_instead']}"
        )
    summary = report["summary"]
    lines += [_doctor_ranges.line(f["path"], f) for f in report["files"]]
    if summary["files"] > 1 and report["files"]:  # files without uses run wherever JAX does
        lines.append(_doctor_ranges.line(f"all {summary['files']} files", report["tree"]))
    lines.append(
        f"{summary['uses']} uses of drifted Pallas APIs in {summary['files']} files; "
        f"{summary['breaking']} break on {report['checked']}"
        + (
            f"; {summary['warning']} work there with a deprecation warning"
            if summary["warning"]
            else ""
        )
        + (f"; {summary['unknown']} cannot be told from the source" if summary["unknown"] else "")
        + (f"; {summary['silenced']} silenced by # noqa" if summary["silenced"] else "")
        + (
            f"; {len(report['left_untouched'])} files could not be read"
            if report["left_untouched"]
            else ""
        )
    )
    return "\n".join(lines) + "\n"


def own_version() -> str:
    try:
        return version("pallas-compat")
    except PackageNotFoundError:  # run from a checkout
        return "0+unknown"


def doctor(args: argparse.Namespace) -> int:
    url = None
    if args.format == "html":  # a page that is not there is refused before any file is read
        from pallas_compat._doctor_html import report_url

        url = report_url(args.report)
    report = collect(args, settings(args))
    if args.format == "json":
        out = json.dumps(report, indent=1) + "\n"
    elif args.format == "html":
        from pallas_compat._doctor_html import page

        out = page(report, url)
    elif args.format == "github":
        from pallas_compat._github import annotations

        out = "".join(f"{line}\n" for line in annotations(report))
        print(text(report).splitlines()[-1], file=sys.stderr)
    elif args.format == "sarif":
        from pallas_compat._sarif import sarif

        out = sarif(report, own_version())
    else:
        out = text(report)
    sys.stdout.write(out)
    return 1 if report["summary"]["breaking"] or report["left_untouched"] else 0
