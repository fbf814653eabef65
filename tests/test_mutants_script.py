"""scripts/mutants.py, what ``nox -s mutants`` runs: its test table names test modules that
exist and exactly the modules mutmut mutates; a kill it recorded counts only while the mutated
function is the one it was recorded for; a module whose tests fail unmutated stops the pass."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import mutants  # noqa: E402

MODULE = "pallas_compat/stand_in.py"


def test_the_table_names_the_modules_mutmut_mutates() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mutmut"]
    assert sorted(mutants.TESTS) == sorted(config["only_mutate"])


def test_every_test_module_the_table_names_exists() -> None:
    named = {test for tests in mutants.TESTS.values() for test in tests}
    assert named and not {test for test in named if not (REPO / test).is_file()}


@pytest.fixture
def copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A mutated copy with one module: ``f`` has three mutants, ``g`` one; mutmut killed one."""
    monkeypatch.setattr(mutants, "MUTANTS", tmp_path)
    monkeypatch.setattr(mutants, "RECORD", tmp_path / "rechecked.json")
    meta = tmp_path / f"{MODULE}.meta"
    meta.parent.mkdir()
    codes = {"x_f__mutmut_1": 0, "x_f__mutmut_2": 1, "x_f__mutmut_3": None, "x_g__mutmut_1": 33}
    meta.write_text(
        json.dumps(
            {
                "exit_code_by_key": {f"pallas_compat.stand_in.{k}": v for k, v in codes.items()},
                "hash_by_function_name": {"x_f": "f-now", "x_g": "g-now"},
            }
        )
    )
    return tmp_path


def test_a_recorded_kill_counts_only_for_the_function_it_was_recorded_on(copy: Path) -> None:
    (copy / "rechecked.json").write_text(
        json.dumps(
            {
                "pallas_compat.stand_in.x_f__mutmut_1": {"jax": "0.4.30", "hash": "f-now"},
                "pallas_compat.stand_in.x_g__mutmut_1": {"jax": "0.12.0.1", "hash": "g-before"},
            }
        )
    )
    assert mutants.rechecked_kills(MODULE) == {"pallas_compat.stand_in.x_f__mutmut_1": "0.4.30"}
    assert mutants.alive(MODULE) == [
        "pallas_compat.stand_in.x_f__mutmut_3",  # never run by mutmut
        "pallas_compat.stand_in.x_g__mutmut_1",  # mutmut found no test; its kill is stale
    ]


def test_a_module_whose_tests_fail_unmutated_stops_the_pass(copy: Path) -> None:
    (copy / "tests").mkdir()
    (copy / "tests" / "test_red.py").write_text("def test_red():\n    assert False\n")
    table = {MODULE: ("tests/test_red.py",)}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, mutants; from pathlib import Path;"
            f"mutants.MUTANTS = Path({str(copy)!r}); mutants.RECORD = mutants.MUTANTS / 'r.json';"
            f"mutants.TESTS = {table!r}; mutants.recheck({MODULE!r}, 1)",
        ],
        cwd=REPO / "scripts",
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == f"mutants: {MODULE}: its tests fail with no mutant switched on"
    assert not (copy / "r.json").exists()


def test_a_copy_without_verdicts_or_with_a_broken_record_is_one_line(
    copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        mutants.mutmut_verdicts("pallas_compat/absent.py")
    assert stopped.value.code == 2
    (copy / "rechecked.json").write_text('{"half')
    with pytest.raises(SystemExit):
        mutants.alive(MODULE)
    said = capsys.readouterr().err.splitlines()
    assert (
        said[0]
        == f"mutants: {copy}/pallas_compat/absent.py.meta: no mutmut verdicts (run nox -s mutants first)"
    )
    assert said[1].startswith(f"mutants: {copy}/rechecked.json: not JSON")


def test_passes_side_by_side_lose_no_kill(copy: Path) -> None:
    """The passes on two releases may run at once: each kill is added under a lock."""
    add = (
        "import sys, mutants; from pathlib import Path;"
        f"mutants.RECORD = Path({str(copy / 'rechecked.json')!r});"
        "[mutants.record_kill(f'{sys.argv[1]}{i}', {'jax': 'x', 'hash': 'h'}) for i in range(100)]"
    )
    passes = [
        subprocess.Popen(
            [sys.executable, "-c", add, who], cwd=REPO / "scripts", stdin=subprocess.DEVNULL
        )
        for who in ("a", "b", "c")
    ]
    assert [p.wait(timeout=120) for p in passes] == [0, 0, 0]
    assert len(json.loads((copy / "rechecked.json").read_text())) == 300
