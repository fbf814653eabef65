"""The upgrade guide, and the five questions the report answers from its top.

Each answer is checked against the snapshots' own records (what the probes measured), not
against the text the code under test produced.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from packaging.version import Version

from pallas_compat._cli import main as compat_main
from pallas_compat.facts._anchors import form_anchor, name_anchor
from pallas_compat.facts._table import DICT_PARAMS, WRITE_INSTEAD, Location
from report import _changes
from report._cli import main
from report._guide import ChangeKind, guide
from report._load import load_snapshots
from report._surface import Surface

REPO = Path(__file__).resolve().parent.parent
SNAPSHOTS = REPO / "reports" / "snapshots"
REAL = REPO / "tests" / "fixtures" / "real" / "jax_0_4_30"


@pytest.fixture(scope="module")
def snapshots() -> dict[str, object]:
    return {s.release: s for s in load_snapshots(SNAPSHOTS)}


@pytest.fixture(scope="module")
def report(built_report: Path) -> tuple[str, str]:
    return (built_report / "api-diff.md").read_text(), (built_report / "api-diff.html").read_text()


def row(md: str, anchor: str) -> str:
    return next(line for line in md.splitlines() if f'id="{anchor}"' in line)


def releases_where(snapshots: dict, module: str, name: str, states: tuple[str, ...]) -> list[str]:
    return [r for r, s in snapshots.items() if _changes.state(s, module, name)[0] in states]


SCAN = json.loads((REPO / "pallas_compat" / "facts" / "release_ranges.json").read_text())


def scanned_first_after(spans: list[list[str]]) -> str:
    """The first release the scan read after the last of ``spans`` (read from its file)."""
    last = Version(spans[-1][1])
    return next(r for r in SCAN["releases"] if Version(r) > last)


def test_every_answer_is_linked_from_the_top(report: tuple[str, str]) -> None:
    md, page = report
    top = page[: page.index('<h2 id="upgrade"')]
    links = re.findall(r'<li>[^<]*→ <a href="#([^"]+)"', top)
    assert len(links) == 6
    for anchor in links:
        assert f'id="{anchor}"' in page and f'id="{anchor}"' in md


def test_when_did_pl_dot_go(report: tuple[str, str], snapshots: dict) -> None:
    """The row dates the removal by the release sources (every release, not the probed ten),
    and the probed releases agree with it."""
    spans = SCAN["locations"]["jax.experimental.pallas:dot"]
    gone = scanned_first_after(spans)
    deprecated = SCAN["deprecated"]["jax.experimental.pallas:dot"][0][0]
    present = releases_where(snapshots, "jax.experimental.pallas", "dot", ("present", "deprecated"))
    assert all(Version(r) < Version(gone) for r in present)
    line = row(report[0], name_anchor("pl.dot"))
    assert f"removed {gone}" in line and "pltriton.dot" in line
    assert "JAX's advice: Use jax.numpy.dot" in line  # JAX's own words for TPU kernels
    # JAX's message says "removed in JAX v0.12.0"; the sources show it earlier: said in text
    assert f"the release sources show it deprecated from {deprecated}, removed from {gone}" in line


def test_when_does_dict_compiler_params_break(report: tuple[str, str], snapshots: dict) -> None:
    """'refused from' is the first release whose sources refuse the dict; the probes saw it
    taken on every probed release before that and refused on every one from it."""
    first_refused = scanned_first_after(SCAN["call_forms"][DICT_PARAMS])
    outcomes = {
        r: s.data["behaviours"]["dict_compiler_params"].get("outcome") for r, s in snapshots.items()
    }
    for release, outcome in outcomes.items():
        assert (outcome == "raised") == (Version(release) >= Version(first_refused)), release
    line = row(report[0], form_anchor(DICT_PARAMS))
    assert f"refused from {first_refused}" in line and "pltpu.CompilerParams" in line


def test_what_breaks_from_a_to_b(capsys: pytest.CaptureFixture[str], snapshots: dict) -> None:
    assert main(["guide", "--from", "0.6.2", "--to", "0.9.2", "--snapshots", str(SNAPSHOTS)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Upgrading JAX 0.6.2 -> 0.9.2")
    load = out[out.index("  pl.load: removed in JAX 0.9.0") :].splitlines()
    assert "pltriton.load" in load[1] and "pltpu.load" in load[1]
    assert "      pallas_compat serves it: yes; migrate rewrites it: yes" in load[2:4]
    # every name the 0.9.2 snapshot lacks and 0.6.2 had is in the guide
    found = guide("0.6.2", "0.9.2", Surface(tuple(snapshots.values())))
    listed = {
        c.subject for c in found.changes if c.kind in (ChangeKind.REMOVED, ChangeKind.RENAMED)
    }
    for module, name in _changes.all_names([snapshots["0.6.2"], snapshots["0.9.2"]]):
        before = _changes.state(snapshots["0.6.2"], module, name)[0]
        after = _changes.state(snapshots["0.9.2"], module, name)[0]
        if before in _changes.PRESENT and after not in _changes.PRESENT:
            assert Location(module, name).spelling in listed


def test_a_guide_between_releases_the_probes_never_took(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """0.4.35 and 0.7.1 have no snapshot: names and forms come from the scan, and the guide
    says what it could not check."""
    argv = ["guide", "--from", "0.4.35", "--to", "0.7.2", "--snapshots", str(SNAPSHOTS)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "not in it" in out.splitlines()[1] and "--from 0.4.30 --to 0.7.2" in out
    gone = scanned_first_after(SCAN["locations"]["jax.experimental.pallas.tpu:TPUCompilerParams"])
    assert (
        f"  pltpu.TPUCompilerParams: renamed to pltpu.CompilerParams in JAX 0.6.2; the old name went in {gone}"
        in out
    )


def test_a_downgrade_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["guide", "--from", "0.9.2", "--to", "0.6.2", "--snapshots", str(SNAPSHOTS)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "that is a downgrade" in err and err.count("\n") == 1


def test_the_guide_as_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["guide", "--from", "0.4.30", "--to", "0.12.0.1", "--snapshots", str(SNAPSHOTS)]
    assert main([*argv, "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Upgrading JAX 0.4.30 → 0.12.0.1")
    assert "| what | change | write instead | pallas\\_compat | migrate |" in out


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--from", "0.6.2", "--to", "9.9"], "--to 9.9: not a JAX release the scan knows"),
        (["--from", "0.6.2", "--to", "0.6.2"], "--from and --to are both 0.6.2"),
        (["--from", "0.6.2"], "the following arguments are required: --to"),
    ],
)
def test_bad_guide_input_is_one_line(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["guide", *argv, "--snapshots", str(SNAPSHOTS)]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1


def test_do_my_kernels_run_on_the_newest_release(report: tuple[str, str]) -> None:
    md = report[0]
    corpus = md[md.index('<a id="corpus"></a>') :]
    newest = list(load_snapshots(SNAPSHOTS))[-1].release
    headers = [line for line in corpus.splitlines() if line.startswith("| route |")]
    assert any(line.rstrip(" |").endswith(newest) for line in headers)  # split: 12 columns
    for route in ("patch() on older kernels", "shim imports on older kernels", "migrate"):
        assert any(line.startswith(f"| {route}") for line in corpus.splitlines())


def test_doctor_html_links_each_use_to_its_row(
    report: tuple[str, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """I use X and Y: doctor's page links every use to the report row of its API, by the
    page's absolute address, so the links work wherever doctor's page is saved."""
    saved = tmp_path / "api-diff.html"
    saved.write_text(report[1])
    argv = ["doctor", str(REAL), "--target", "0.12.0.1", "--format", "html", "--report", str(saved)]
    assert compat_main(argv) == 1
    page = capsys.readouterr().out
    anchors = set(re.findall(rf'href="{re.escape(saved.as_uri())}#([^"]+)"', page))
    assert {name_anchor("pl.load"), form_anchor(DICT_PARAMS)} <= anchors
    for anchor in anchors:
        assert f'id="{anchor}"' in report[1], anchor


def test_each_written_successor_exists_in_the_newest_release(snapshots: dict) -> None:
    newest = list(snapshots.values())[-1]
    aliases = {"pl": "jax.experimental.pallas", "pltpu": "jax.experimental.pallas.tpu"}
    aliases["plgpu"] = "jax.experimental.pallas.mosaic_gpu"
    for loc, text in WRITE_INSTEAD.items():
        spelling = re.match(r"(pl|pltpu|plgpu)\.(\w+)", text)
        if spelling:
            module, name = aliases[spelling.group(1)], spelling.group(2)
            assert _changes.state(newest, module, name)[0] in _changes.PRESENT, (loc, text)
