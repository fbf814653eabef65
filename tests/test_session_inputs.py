"""scripts/session_inputs.py: one changed input re-runs exactly the sessions that depend on it.

Each test works on a copy of the repository (its tracked and unignored files), records every
session of the main job as up to date there, changes one thing, and reads which sessions the
noxfile would now run, by the same function the noxfile calls.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: Loads the copy's noxfile (nox stood in by a mock) and records every session's stamp.
RECORD = """
import runpy, sys
from unittest import mock
sys.modules["nox"] = mock.MagicMock()
noxfile = runpy.run_path("noxfile.py")
for inputs in noxfile["all_sessions"]():
    noxfile["record_inputs"](inputs, True)
"""


def copy_of_repo(dest: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def to_run(root: Path) -> dict[str, str]:
    """Session name -> why it would run, for every session that is not up to date."""
    done = subprocess.run(
        [sys.executable, "scripts/session_inputs.py"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    states = dict(line.split(": ", 1) for line in done.stdout.splitlines())
    return {name: state for name, state in states.items() if state != "up to date"}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_of_repo(tmp_path_factory.mktemp("repo"))
    done = subprocess.run(
        [sys.executable, "-c", RECORD], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return root


@pytest.fixture
def repo(recorded: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(recorded, tmp_path / "repo"))


def names(stale: dict[str, str]) -> set[str]:
    return set(stale)


def sessions_of(repo: Path, kind: str) -> set[str]:
    return {
        p.stem.replace(f"{kind}-jax-", "")
        for p in (repo / "reports" / "inputs").glob(f"{kind}-*.json")
    }


def named(kind: str, releases: set[str]) -> set[str]:
    return {f"{kind}(jax='{r}')" for r in releases}


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


def test_nothing_changed_nothing_runs(repo: Path) -> None:
    assert to_run(repo) == {}


def test_a_third_party_case_reruns_the_third_party_sessions_only(repo: Path) -> None:
    append(repo / "kernels" / "thirdparty" / "_cases.py", "\n# a new case\n")
    stale = to_run(repo)
    assert names(stale) == named("thirdparty", sessions_of(repo, "thirdparty"))
    assert set(stale.values()) == {"changed: sources"}


def test_the_corpus_runner_reruns_both_corpora_and_nothing_else(repo: Path) -> None:
    append(repo / "kernels" / "corpus" / "_run.py", "\n# faster\n")
    expected = named("corpus", sessions_of(repo, "corpus"))
    expected |= named("thirdparty", sessions_of(repo, "thirdparty"))
    assert names(to_run(repo)) == expected


def test_a_probe_reruns_the_probes_only(repo: Path) -> None:
    append(repo / "probes" / "semantics.py", "\n# one more\n")
    assert names(to_run(repo)) == named("probe", sessions_of(repo, "probe"))


def test_the_shim_reruns_every_session(repo: Path) -> None:
    append(repo / "pallas_compat" / "shim" / "_pallas_call.py", "\n# a fix\n")
    assert len(to_run(repo)) == len(list((repo / "reports" / "inputs").glob("*.json")))


def test_an_edited_result_reruns_its_session_and_the_report(repo: Path) -> None:
    append(repo / "reports" / "kernels" / "jax-0.6.2.json", " ")
    stale = to_run(repo)
    assert stale == {
        "kernels(jax='0.6.2')": "its result is missing or was edited",
        "report": "changed: reads",
    }


def test_the_readme_and_the_report_text_run_what_they_should(repo: Path) -> None:
    append(repo / "README.md", "\nmore words\n")
    assert to_run(repo) == {}
    append(repo / "report" / "_render.py", "\n# prettier\n")
    assert names(to_run(repo)) == {"report"}


def test_how_a_session_runs_is_an_input(repo: Path) -> None:
    path = repo / "noxfile.py"
    text = path.read_text()
    old = '"corpus": f"python -m kernels.corpus (interpreters, then lowered), {KERNELS_RUN}"'
    assert old in text
    path.write_text(text.replace(old, '"corpus": "python -m kernels.corpus, a compilation cache"'))
    stale = to_run(repo)
    assert names(stale) == named("corpus", sessions_of(repo, "corpus"))
    assert set(stale.values()) == {"changed: runs"}


def test_a_new_release_in_the_matrix_runs_its_own_sessions(repo: Path) -> None:
    path = repo / "jax-matrix.json"
    matrix = json.loads(path.read_text())
    assert "0.7.1" not in matrix["default"]
    matrix["default"] = sorted(
        [*matrix["default"], "0.7.1"], key=lambda v: tuple(map(int, v.split(".")))
    )
    path.write_text(json.dumps(matrix, indent=1) + "\n")
    stale = to_run(repo)
    assert names(stale) == {
        f"{kind}(jax='0.7.1')" for kind in ("probe", "kernels", "corpus", "thirdparty")
    }
    assert set(stale.values()) == {"never run with its inputs recorded"}


def test_a_newer_release_runs_its_sessions_and_only_its_ops_elsewhere(repo: Path) -> None:
    """A new JAX release joins the corpus as the newest: every other corpus session runs only
    its kernels (the rest of their records stand); nothing else reruns."""
    path = repo / "jax-matrix.json"
    matrix = json.loads(path.read_text())
    matrix["default"].append("0.99.0")
    matrix["every"].append({"jax": "0.99.0", "requires_python": ">=3.11"})
    path.write_text(json.dumps(matrix, indent=1) + "\n")
    stale = to_run(repo)
    new = {f"{kind}(jax='0.99.0')" for kind in ("probe", "kernels", "corpus", "thirdparty")}
    assert {stale.pop(name) for name in new} == {"never run with its inputs recorded"}
    assert names(stale) == named("corpus", sessions_of(repo, "corpus"))
    only = "changed: fetched; only jax==0.99.0: jax/experimental/pallas/ops to run"
    assert set(stale.values()) == {only}


def test_joined_records_are_those_one_run_writes() -> None:
    sys.path.insert(0, str(REPO / "scripts"))
    from session_inputs import merged_results

    def run(*releases: str) -> dict:  # as the corpus writes them: by release, then case order
        records = [{"from": r, "kernel": k} for r in releases for k in ("b", "a")]
        return {"jax": "0.6.2", "results": records}

    everything = run("0.4.30", "0.6.2", "0.10.2", "0.99.0")
    joined = merged_results(
        run("0.4.30", "0.10.2", "0.99.0"),
        run("0.6.2"),
        key=lambda r: tuple(map(int, r["from"].split("."))),
    )
    assert joined == everything


def test_a_new_jax_requirement_reruns_every_session(repo: Path) -> None:
    path = repo / "pyproject.toml"
    path.write_text(path.read_text().replace('"numpy",', '"numpy>=1.26",', 1))
    stale = to_run(repo)
    assert set(stale.values()) == {"changed: requirements"}
    assert len(stale) == len(list((repo / "reports" / "inputs").glob("*.json")))


def test_a_module_named_in_a_string_is_an_input_too() -> None:
    """Outside READ_WHOLE the sources are found by reading imports; a first-party module that
    code names in a string (to import it by name) must be reached some other way as well."""
    import ast
    import re
    import runpy
    from unittest import mock

    sys.path.insert(0, str(REPO / "scripts"))
    import session_inputs

    with mock.patch.dict(sys.modules, {"nox": mock.MagicMock()}):
        entries = runpy.run_path(str(REPO / "noxfile.py"))["ENTRIES"]
    ours = re.compile(rf"^({'|'.join(session_inputs.FIRST_PARTY)})(\.\w+)+$")
    missed = []
    for kind, names in entries.items():
        files = set(session_inputs.source_files(names))
        for path in (f for f in files if f.suffix == ".py"):
            for node in ast.walk(ast.parse(path.read_text())):
                named = node.value if isinstance(node, ast.Constant) else None
                if isinstance(named, str) and ours.match(named):
                    module = session_inputs.module_file(named)
                    if module is not None and module not in files:
                        missed.append(f"{kind}: {path.name} names {named}")
    assert missed == []


def test_a_raised_pin_reruns_every_session(repo: Path) -> None:
    """The results depend on numpy's exact version (the kernels are checked against it): the
    pins of ``constraints.txt`` are inputs of every session, as the declared ranges are."""
    path = repo / "constraints.txt"
    assert "\nnumpy==" in path.read_text()
    path.write_text(path.read_text().replace("\nnumpy==", "\nnumpy==0.0.1+", 1))
    stale = to_run(repo)
    assert set(stale.values()) == {"changed: requirements"}
    assert len(stale) == len(list((repo / "reports" / "inputs").glob("*.json")))


def test_every_install_of_the_noxfile_takes_the_pins() -> None:
    """Each session that installs numpy, scipy or the project passes ``-c constraints.txt``:
    the noxfile's install calls, read as text (the sessions' bodies need nox to run)."""
    text = (REPO / "noxfile.py").read_text()
    calls = [line.strip() for line in text.splitlines() if "session.install(" in line]
    unpinned = [
        call
        for call in calls
        if "CONSTRAINTS" not in call
        and any(name in call for name in ('"numpy"', "*requirements", '".[test]"'))
    ]
    assert unpinned == [] and len(calls) - len(unpinned) >= 2
