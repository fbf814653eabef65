"""pallas_compat/matrix/_results.py: a run's tests read from the JUnit XML real pytest writes,
and runs merged from the JSON of several shards."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pallas_compat._usage import UsageError
from pallas_compat.matrix._results import (
    Failure,
    Run,
    Status,
    as_json,
    error_line,
    merged,
    read_junit,
)

SUITE = {
    "pkg/kernel.py": "def kernel(x):\n    return x.missing\n",
    "tests/test_ok.py": (
        "import pytest\nfrom pkg.kernel import kernel\n\n"
        "def test_passes():\n    assert 1 + 1 == 2\n\n"
        "@pytest.mark.skip(reason='no TPU')\ndef test_skipped():\n    pass\n\n"
        "class TestKernel:\n    @pytest.mark.parametrize('n', [1])\n"
        "    def test_fails(self, n):\n        kernel(n)\n"
    ),
    "tests/test_broken.py": "import not_a_module_anywhere\n",
}


@pytest.fixture(scope="module")
def junit(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("suite")
    for name, text in SUITE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    xml = root / "junit.xml"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            f"--junitxml={xml}",
            "-o",
            "junit_family=xunit1",
            "--continue-on-collection-errors",
            "tests",
        ],
        cwd=root,
        capture_output=True,
        check=False,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    return root, xml


def test_counts_and_first_errors_from_real_pytest(junit: tuple[Path, Path]) -> None:
    root, xml = junit
    run = Run("0.6.2", "native", Status.FAILED)
    assert read_junit(xml, run, root)
    assert (run.passed, run.failed, run.skipped) == (1, 2, 1)
    assert run.outcomes == {
        "tests/test_broken.py": "failed",
        "tests/test_ok.py::test_passes": "passed",
        "tests/test_ok.py::test_skipped": "skipped",
        "tests/test_ok.py::TestKernel::test_fails[1]": "failed",
    }
    by_test = {f.test: f for f in run.failures}
    failing = by_test["tests/test_ok.py::TestKernel::test_fails[1]"]
    assert failing.error == "AttributeError: 'int' object has no attribute 'missing'"
    assert failing.where == ("tests/test_ok.py:14", "pkg/kernel.py:2")
    broken = by_test["tests/test_broken.py"]
    assert "ModuleNotFoundError: No module named 'not_a_module_anywhere'" in broken.error


def test_no_xml_is_said_not_guessed(tmp_path: Path) -> None:
    run = Run("0.6.2", "native", Status.ERROR)
    assert not read_junit(tmp_path / "none.xml", run, tmp_path)
    (tmp_path / "bad.xml").write_text("<testsuite")
    assert not read_junit(tmp_path / "bad.xml", run, tmp_path)
    assert (run.passed, run.failed) == (0, 0)


def test_a_generic_message_gives_way_to_the_first_E_line() -> None:
    text = "tests/t.py:3: in <module>\n    import x\nE   ImportError: no x\nE   more\n"
    assert error_line("collection failure", text) == "ImportError: no x"
    assert error_line("ValueError: bad\nmore lines", text) == "ValueError: bad"


def shard(path: Path, *runs: Run) -> Path:
    path.write_text(json.dumps(as_json(list(runs), ["pytest"], "/p")))
    return path


def test_merge_joins_shards_a_later_one_wins(tmp_path: Path) -> None:
    failure = Failure("t.py::test_a", "TypeError: x", ("t.py:3",))
    old = Run("0.6.2", "native", Status.FAILED, failed=1, failures=[failure])
    new = Run("0.6.2", "native", Status.PASSED, passed=1)
    other = Run("0.12.0.1", "patch", Status.NOT_INSTALLABLE, reason="conflict")
    first = shard(tmp_path / "a.json", old, other)
    runs, command, project = merged([first, shard(tmp_path / "b.json", new)])
    assert [(r.release, r.route, r.status) for r in runs] == [
        ("0.6.2", "native", Status.PASSED),
        ("0.12.0.1", "patch", Status.NOT_INSTALLABLE),
    ]
    assert (command, project) == (["pytest"], "/p")
    assert merged([first])[0][0].failures == [failure]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{", "not JSON"),
        ("[]", "not a `pallas-compat matrix --format json` file"),
        ('{"format": "pallas-compat matrix 1", "runs": [{"release": 1}]}', "malformed"),
    ],
)
def test_merge_refuses_what_it_cannot_read_in_one_line(
    tmp_path: Path, text: str, says: str
) -> None:
    path = tmp_path / "x.json"
    path.write_text(text)
    with pytest.raises(UsageError, match=says):
        merged([path])
    with pytest.raises(UsageError, match="cannot read"):
        merged([tmp_path / "missing.json"])
