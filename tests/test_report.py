"""The API-diff report and ``python -m probes diff`` over the committed snapshots."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from probes._cli import main

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


def test_report_shows_the_drift_the_probes_found(three: Path, tmp_path: Path) -> None:
    assert main(["report", str(three), "--out", str(tmp_path)]) == 0
    md = (tmp_path / "api-diff.md").read_text()
    page = (tmp_path / "api-diff.html").read_text()
    # pl.load leaves between 0.6.2 and 0.12.0.1; TPUCompilerParams too; BlockSpec flips after 0.4.30.
    assert re.search(r"pl\.load \| 0\.12\.0\.1 \| removed", md)
    assert re.search(r"pltpu\.TPUCompilerParams \| 0\.12\.0\.1 \| removed", md)
    assert "BlockSpec(index_map, ...)" in md and "BlockSpec(block_shape, ...)" in md
    assert 'id="name-pl-load"' in page
    assert "<script" not in page and "<link" not in page and 'src="' not in page  # no network
    assert 'href="http' not in page
    assert "Kernels x mode x release" in md and "flash_attention_backward_causal" in md
    for mode in ("interpret", "tpu_sim", "tpu_lower"):  # one kernel x release table per mode
        assert f"**mode: {mode}**\n\n| kernel | 0.4.30 | 0.6.2 | 0.12.0.1 |" in md
    created = json.loads((three / "jax-0.6.2.json").read_text())["volatile"]["created"]
    row = next(line for line in md.splitlines() if 'id="release-0.6.2"' in line)
    assert row.endswith(f"| {created[:10]} {created[11:16]} UTC |")  # when it was probed


def test_undeclared_dependencies_in_release_order(tmp_path: Path) -> None:
    """0.10.2 sorts before 0.5.3 as a string; the table must follow the releases."""
    folder = tmp_path / "snapshots"
    folder.mkdir()
    for release in ("0.5.3", "0.10.2", "0.12.0.1"):
        shutil.copy(SNAPSHOTS / f"jax-{release}.json", folder)
    assert main(["report", str(folder), "--out", str(tmp_path)]) == 0
    md = (tmp_path / "api-diff.md").read_text()
    imports = md[md.index('<a id="imports">') : md.index('<a id="kernels">')]
    undeclared = re.findall(r"^\| (\S+) \| \(undeclared dependency\) \| absl", imports, re.M)
    assert undeclared == ["0.5.3", "0.10.2"]
    assert "| 0.5.3 | jax.experimental.pallas.tpu | fresh venv: ModuleNotFoundError" in imports
    releases = re.findall(r"^\| (\d\S*) \|", imports, re.M)
    assert releases == sorted(releases, key=lambda r: tuple(map(int, r.split("."))))


def test_recorded_strings_are_escaped(three: Path, tmp_path: Path) -> None:
    path = three / "jax-0.6.2.json"
    data = json.loads(path.read_text())
    data["behaviours"]["dict_compiler_params"] = {
        "outcome": "raised",
        "error": {"message": "<script>x</script>"},
    }
    path.write_text(json.dumps(data))
    assert main(["report", str(three), "--out", str(tmp_path)]) == 0
    page = (tmp_path / "api-diff.html").read_text()
    assert "<script>x" not in page and "&lt;script&gt;x" in page


def test_diff_names_what_breaks(capsys: pytest.CaptureFixture[str]) -> None:
    old, new = SNAPSHOTS / "jax-0.6.2.json", SNAPSHOTS / "jax-0.12.0.1.json"
    assert main(["diff", str(old), str(new)]) == 0
    out = capsys.readouterr().out
    assert "removed     pl.load" in out and "removed     pltpu.TPUCompilerParams" in out


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
    assert main(["report", str(folder), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1
    assert (out / "api-diff.md").read_text() == "previous"


def test_two_snapshots_of_one_release(three: Path, tmp_path: Path, capsys) -> None:
    shutil.copy(three / "jax-0.6.2.json", three / "copy.json")
    assert main(["report", str(three), "--out", str(tmp_path)]) == 2
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
    assert main(["report", str(three), "--out", str(tmp_path), "--matrix", str(matrix)]) == 0
    md = (tmp_path / "api-diff.md").read_text()
    assert re.search(r"\| 0\.5\.3 \| in the matrix but no snapshot", md)


def test_unknown_release_in_the_matrix(three: Path, tmp_path: Path, capsys) -> None:
    matrix = tmp_path / "m.json"
    matrix.write_text(json.dumps({"default": ["9.9"], "every": [{"jax": "0.4.30"}]}))
    assert main(["report", str(three), "--out", str(tmp_path), "--matrix", str(matrix)]) == 2
    err = capsys.readouterr().err
    assert "unknown JAX release 9.9" in err and str(matrix) in err
