"""The API-diff report and ``python -m report diff`` over the committed snapshots."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from packaging.version import Version

from report._cli import main

REPO = Path(__file__).resolve().parent.parent
SNAPSHOTS = REPO / "reports" / "snapshots"
KERNELS = REPO / "reports" / "kernels"


@pytest.fixture
def three(tmp_path: Path) -> Path:
    """The oldest, a middle and the newest committed snapshot, with their kernel results."""
    folder = tmp_path / "snapshots"
    folder.mkdir()
    (tmp_path / "kernels").mkdir()
    for release in ("0.4.30", "0.6.2", "0.12.0.1"):
        shutil.copy(SNAPSHOTS / f"jax-{release}.json", folder)
        if (KERNELS / f"jax-{release}.json").exists():
            shutil.copy(KERNELS / f"jax-{release}.json", tmp_path / "kernels")
    return folder


def first_without(key: str) -> str:
    """The first scanned release after ``key``'s last span (read from the scan's file)."""
    ranges = json.loads((REPO / "pallas_compat" / "facts" / "release_ranges.json").read_text())
    last = Version(ranges["locations"][key][-1][1])
    return next(r for r in ranges["releases"] if Version(r) > last)


def test_report_shows_the_drift_the_probes_found(three: Path, tmp_path: Path) -> None:
    assert main([str(three), "--out", str(tmp_path)]) == 0
    md = (tmp_path / "api-diff.md").read_text()
    page = (tmp_path / "api-diff.html").read_text()
    # Every release the scan read, not only the three probed: pl.load goes in the first
    # release its scanned range leaves out; TPUCompilerParams likewise.
    load = next(line for line in md.splitlines() if 'id="name-pl-load"' in line)
    assert f"removed {first_without('jax.experimental.pallas:load')}" in load
    assert "pltriton.load" in load  # what to write, not JAX's message
    params = next(line for line in md.splitlines() if 'id="name-pltpu-tpucompilerparams"' in line)
    gone = first_without("jax.experimental.pallas.tpu:TPUCompilerParams")
    assert f"removed {gone}" in params and "pltpu.CompilerParams" in params
    assert 'id="form-blockspec-index-map-block-shape"' in md
    assert 'id="name-pl-load"' in page
    assert "<link" not in page and 'src="' not in page and 'href="http' not in page  # no network
    assert "Kernels x mode x release" in md and "flash\\_attention\\_backward\\_causal" in md
    for mode in ("interpret", "tpu_sim", "tpu_lower"):  # one kernel x release table per mode
        assert f"Every kernel, mode {mode}" in md
    assert "volatile" not in md and " UTC" not in md  # nothing that changes on a re-run


def test_undeclared_dependencies_in_release_order(tmp_path: Path) -> None:
    """0.10.2 sorts before 0.5.3 as a string; the table must follow the releases."""
    folder = tmp_path / "snapshots"
    folder.mkdir()
    for release in ("0.5.3", "0.10.2", "0.12.0.1"):
        shutil.copy(SNAPSHOTS / f"jax-{release}.json", folder)
    assert main([str(folder), "--out", str(tmp_path)]) == 0
    md = (tmp_path / "api-diff.md").read_text()
    imports = md[md.index('<a id="imports">') : md.index('<a id="skipped">')]
    undeclared = re.findall(r"^\| (\S+) \| \(undeclared dependency\) \| absl", imports, re.M)
    assert undeclared == ["0.5.3", "0.10.2"]
    assert "| 0.5.3 | jax.experimental.pallas.tpu | fresh venv: ModuleNotFoundError" in imports
    releases = re.findall(r"^\| (\d\S*) \|", imports, re.M)
    assert releases == sorted(releases, key=lambda r: tuple(map(int, r.split("."))))


def test_recorded_strings_are_escaped(three: Path, tmp_path: Path) -> None:
    """A recorded error text and a recorded name, both hostile, in both formats."""
    path = three / "jax-0.12.0.1.json"
    data = json.loads(path.read_text())
    data["behaviours"]["dict_compiler_params"] = {
        "outcome": "raised",
        "error": {"message": "<script>x</script> | *bold* [link](http://x)"},
    }
    path.write_text(json.dumps(data))
    for snapshot in three.glob("*.json"):  # a name every release has: the snapshots list it
        data = json.loads(snapshot.read_text())
        data["modules"]["jax.experimental.pallas"]["names"]["<img src=x>"] = {"status": "present"}
        snapshot.write_text(json.dumps(data))
    assert main([str(three), "--out", str(tmp_path)]) == 0
    page = (tmp_path / "api-diff.html").read_text()
    md = (tmp_path / "api-diff.md").read_text()
    prose = re.sub(r"```diff\n.*?```", "", md, flags=re.S)  # fenced diffs show text as is
    for text in (page, prose):
        assert "<script>x" not in text and "&lt;script&gt;x" in text
        assert "<img src=x>" not in text and "&lt;img src=x&gt;" in text
    assert "\\| \\*bold\\* \\[link\\](http://x)" in md  # no table break, no markup
    assert 'id="name-pl-img-src-x"' in md and 'id="name-pl-img-src-x"' in page  # safe ids


def test_diff_names_what_breaks(capsys: pytest.CaptureFixture[str]) -> None:
    old, new = SNAPSHOTS / "jax-0.6.2.json", SNAPSHOTS / "jax-0.12.0.1.json"
    assert main(["diff", str(old), str(new)]) == 0
    out = capsys.readouterr().out
    assert "  pl.load: removed" in out and "  pltpu.TPUCompilerParams: renamed" in out
    assert "write: pltpu.CompilerParams" in out


def test_the_old_spelling_under_probes_still_works_and_says_where_it_moved(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from probes._cli import main as probes_main

    old, new = SNAPSHOTS / "jax-0.6.2.json", SNAPSHOTS / "jax-0.12.0.1.json"
    assert probes_main(["diff", str(old), str(new)]) == 0
    captured = capsys.readouterr()
    assert "pl.load: removed" in captured.out
    assert captured.err == "python -m probes diff: moved; run `python -m report ...` next time\n"


def test_python_m_report_with_no_arguments_reads_the_committed_results(tmp_path: Path) -> None:
    """From the repository root, the defaults are the committed folders; only --out differs."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "report", "--out", str(tmp_path)],
        cwd=SNAPSHOTS.parents[1],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    explicit = tmp_path / "explicit"  # the defaults are the committed folders: named, the same
    explicit.mkdir()
    matrix = SNAPSHOTS.parents[1] / "jax-matrix.json"
    assert main([str(SNAPSHOTS), "--out", str(explicit), "--matrix", str(matrix)]) == 0
    assert (tmp_path / "api-diff.md").read_text() == (explicit / "api-diff.md").read_text()


def bad(tmp_path: Path, name: str, text: str) -> Path:
    folder = tmp_path / "in"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text)
    return folder


@pytest.mark.parametrize(
    ("files", "says"),
    [
        ({"a.json": "{trunc"}, "a.json: not valid JSON"),
        ({"a.json": '{"schema": "other/1"}'}, "a.json: not a snapshot of schema"),
        ({}, "no snapshots"),
    ],
)
def test_bad_input_keeps_the_previous_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, str], says: str
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    out = tmp_path / "out"
    out.mkdir()
    (out / "api-diff.md").write_text("previous")
    assert main([str(folder), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1
    assert (out / "api-diff.md").read_text() == "previous"


def test_two_snapshots_of_one_release(three: Path, tmp_path: Path, capsys) -> None:
    shutil.copy(three / "jax-0.6.2.json", three / "copy.json")
    assert main([str(three), "--out", str(tmp_path)]) == 2
    assert "a second snapshot of JAX 0.6.2" in capsys.readouterr().err


def test_diff_of_one_release_with_itself(capsys) -> None:
    same = str(SNAPSHOTS / "jax-0.6.2.json")
    assert main(["diff", same, same]) == 2
    assert "the same release" in capsys.readouterr().err


def test_releases_of_the_matrix_without_a_snapshot_are_listed(three: Path, tmp_path: Path) -> None:
    matrix = tmp_path / "m.json"
    matrix.write_text(
        json.dumps({"default": ["0.4.30", "0.5.3"], "every": [{"jax": "0.4.30"}, {"jax": "0.5.3"}]})
    )
    assert main([str(three), "--out", str(tmp_path), "--matrix", str(matrix)]) == 0
    md = (tmp_path / "api-diff.md").read_text()
    assert re.search(r"\| 0\.5\.3 \| in the matrix but no snapshot", md)


def test_unknown_release_in_the_matrix(three: Path, tmp_path: Path, capsys) -> None:
    matrix = tmp_path / "m.json"
    matrix.write_text(json.dumps({"default": ["9.9"], "every": [{"jax": "0.4.30"}]}))
    assert main([str(three), "--out", str(tmp_path), "--matrix", str(matrix)]) == 2
    err = capsys.readouterr().err
    assert "unknown JAX release 9.9" in err and str(matrix) in err


def test_the_committed_report_is_what_the_committed_results_give(tmp_path: Path) -> None:
    """reports/api-diff.* are golden files too: stale ones fail here (run ``nox -s report``)."""
    matrix = REPO / "jax-matrix.json"
    assert main([str(SNAPSHOTS), "--out", str(tmp_path), "--matrix", str(matrix)]) == 0
    for name in ("api-diff.md", "api-diff.html"):
        fresh, committed = (tmp_path / name).read_text(), (REPO / "reports" / name).read_text()
        assert fresh == committed, f"reports/{name} is stale: run nox -s report"
    md = (tmp_path / "api-diff.md").read_text()
    for name, said in KNOWN_CHANGES.items():  # and it says what JAX itself does
        rows = [line for line in md.splitlines() if line.startswith(f"| [{name}]")]
        assert any(said in row for row in rows), (name, rows)


#: What the report must say of a few names, checked against JAX itself, not the report (each
#: release imported under ``-W error``: 0.6.2 warns on pltpu.TPUCompilerParams and 0.7.2 lacks
#: it; 0.7.2 and 0.8.3 warn on pl.load and 0.9.2 lacks it), with the first release of each
#: change from the scan of every release (0.7.1, 0.9.0).
KNOWN_CHANGES = {
    "pltpu.TPUCompilerParams": "deprecated in JAX 0.6.2; removed in 0.7.2 | pltpu.CompilerParams",
    "pl.load": "deprecated in JAX 0.7.1; removed in 0.9.0",
}


def test_the_report_needs_no_jax(tmp_path: Path) -> None:
    """``nox -s report`` installs no JAX: importing it must not happen."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "for name in ('jax', 'jaxlib'): sys.modules[name] = None  # import fails\n"
        "from report._cli import main\n"
        f"raise SystemExit(main(['--out', {str(tmp_path)!r}]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    with_jax = tmp_path / "with-jax"  # the same report as where JAX is importable
    with_jax.mkdir()
    assert main(["--out", str(with_jax)]) == 0
    assert (tmp_path / "api-diff.md").read_text() == (with_jax / "api-diff.md").read_text()


def test_the_outside_section_agrees_with_the_source_scan() -> None:
    """A row per spelling of each JAX API outside Pallas (doctor links its uses there); each
    release's mark, from what the probes found live, matches the releases whose sources
    have it (the scan), two independent measures."""
    from pallas_compat.facts import FEATURES, name_anchor, works_in
    from report._load import load_snapshots
    from report._sections import outside

    snapshots = load_snapshots(Path(__file__).resolve().parents[1] / "reports" / "snapshots")
    (table,) = outside(snapshots).tables
    rows = {row[0].text: row for row in table.rows}
    spellings = [loc for f in FEATURES if f.outside for loc in f.locations]
    assert set(rows) == {loc.spelling for loc in spellings} and len(rows) >= 10
    for location in spellings:
        row = rows[location.spelling]
        assert row[0].anchor == name_anchor(location.spelling)
        for snap, cell in zip(snapshots, row[2:], strict=False):
            assert (cell.text in "●◐") == works_in(location.releases, snap.release), (
                location.spelling,
                snap.release,
            )


def test_the_markdown_reads_on_its_own(tmp_path: Path) -> None:
    """No hovering and no filter box in Markdown; a presence strip names its releases; every
    link inside it lands on an id, and no id is used twice (the HTML page: the browser test)."""
    assert main([str(SNAPSHOTS), "--out", str(tmp_path)]) == 0
    md = (tmp_path / "api-diff.md").read_text()
    assert "hover" not in md.lower() and "filter box" not in md.lower()
    load = next(line for line in md.splitlines() if 'id="name-pl-load"' in line)
    strip = load.split(" | ")[1]
    assert re.fullmatch(r"([●◐·] [\d.]+(-[\d.]+)? ?)+", strip), strip
    ids = re.findall(r'id="([^"]+)"', md)
    assert len(ids) == len(set(ids))
    assert set(re.findall(r"\]\(#([^)]+)\)", md)) <= set(ids)
