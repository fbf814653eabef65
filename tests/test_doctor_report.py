"""pallas_compat/lint/_report.py: doctor's typed result and its JSON document (the keys are
the CLI's contract: ``--format json`` readers rely on them)."""

from __future__ import annotations

from pallas_compat.lint._report import FileRuns, Finding, Report, RunsOn, Skipped, Summary
from pallas_compat.rules._use import Use, UseState

LOAD = Use("k.py", 2, 5, "pl.load", (("0.4.30", "0.8.3"),), "x_ref[idx]", code="PAL301")


def report(*findings: Finding, unread: tuple[str, ...] = ()) -> Report:
    states = [f.state for f in findings]
    return Report(
        target="0.12.0.1",
        releases=("0.12.0.1",),
        checked="JAX 0.12.0.1",
        findings=findings,
        files=(FileRuns("k.py", RunsOn("JAX 0.4.30-0.8.3", "JAX 0.4.30-0.12.0.1")),),
        tree=RunsOn("JAX 0.4.30-0.8.3", "JAX 0.4.30-0.12.0.1"),
        left_untouched=unread,
        skipped=(Skipped("n.ipynb", "a notebook"),),
        summary=Summary(1, len(findings), states.count(UseState.BREAKS), 0, 0, 0),
    )


def test_a_finding_says_its_rule_state_and_verdict_on_the_releases_checked() -> None:
    finding = Finding.of(LOAD, "0.12.0.1", ["0.12.0.1"], "JAX 0.12.0.1")
    assert finding.rule == "masked-load-store" and finding.state is UseState.BREAKS
    assert finding.verdict == "breaks on 0.12.0.1" and finding.works_in == "0.4.30-0.8.3"
    old = Finding.of(LOAD, "0.6.2", ["0.6.2"], "JAX 0.6.2")
    assert old.state is UseState.WORKS and old.as_json()["breaks_on_target"] is False


def test_an_uncertain_use_says_neither_where_it_works_nor_whether_it_breaks() -> None:
    unknown = Use("k.py", 3, 1, "BlockSpec(?, ?)", (), "name the arguments", certain=False)
    record = Finding.of(unknown, "0.12.0.1", ["0.12.0.1"], "JAX 0.12.0.1").as_json()
    assert record["works_in"] == "?" and record["breaks_on_target"] is None
    assert record["state"] == "cannot tell"


def test_the_json_document_keeps_its_keys_in_order() -> None:
    finding = Finding.of(LOAD, "0.12.0.1", ["0.12.0.1"], "JAX 0.12.0.1")
    document = report(finding).as_json()
    assert list(document) == [
        "target", "releases", "checked", "uses", "files", "tree", "left_untouched", "skipped",
        "summary",
    ]  # fmt: skip
    assert list(document["uses"][0]) == [
        "code", "rule", "path", "line", "column", "api", "works_in", "deprecated_in",
        "state_on_target", "breaks_on_target", "write_instead", "state", "verdict",
    ]  # fmt: skip
    assert document["files"] == [
        {"path": "k.py", "runs_unchanged": "JAX 0.4.30-0.8.3",
         "with_pallas_compat": "JAX 0.4.30-0.12.0.1"}
    ]  # fmt: skip
    assert document["skipped"] == [{"path": "n.ipynb", "reason": "a notebook"}]


def test_exit_status_is_one_for_a_break_or_an_unread_file() -> None:
    finding = Finding.of(LOAD, "0.12.0.1", ["0.12.0.1"], "JAX 0.12.0.1")
    assert report(finding).exit_status == 1
    assert report().exit_status == 0
    assert report(unread=("bad.py",)).exit_status == 1
