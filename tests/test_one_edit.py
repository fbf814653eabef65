"""A rename and a removed keyword each take one edit of the facts, plus the data the scripts
regenerate: shown in a temporary copy of the package, where nothing else is touched.

The copy gets the edit a maintainer would make (one ``_feature(...)`` line in
``facts/_table.py`` for the rename; nothing for the keyword, which a rescan finds alone), the
lines ``scripts/scan_releases.py`` would add to ``release_ranges.json``, and the stubs
``scripts/write_stubs.py`` writes (run there). ``served.json`` is left as it is: a rename is
served where the facts derive. Then the shim, ``patch()``, ``doctor``, ``migrate`` and the
upgrade guide run from the copy, in a fresh process each, as a user would run them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TPU = "jax.experimental.pallas.tpu"
PL = "jax.experimental.pallas"
#: The maintainer's edit: pltpu.FAKE_ANY (0.4.30-0.4.33) became pl.ANY (0.4.34 on).
FEATURE_LINE = (
    '    _feature("fake_any", "fake rename", f"{TPU}:FAKE_ANY {PL}:ANY", "{new}", renamed=True),\n'
)
RENAMED = "from jax.experimental.pallas import tpu as pltpu\nspace = pltpu.FAKE_ANY\n"
KEYWORD = (
    "from jax.experimental import pallas as pl\n"
    "f = pl.pallas_call(kernel, out_shape=shape, fake_flag=True)\n"
)


def ignore(folder: str, names: list[str]) -> set[str]:
    return {n for n in names if n == "__pycache__"}


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("one-edit")
    for part in ("pallas_compat", "report", "scripts"):
        shutil.copytree(REPO / part, root / part, ignore=ignore)
    shutil.copy(REPO / "common.py", root / "common.py")
    table = root / "pallas_compat" / "facts" / "_table.py"
    text = table.read_text()
    start = "FEATURES: tuple[Feature, ...] = (\n"
    assert text.count(start) == 1
    table.write_text(text.replace(start, start + FEATURE_LINE))
    # -- what a rescan writes: the new location, the name that went, the keyword that went
    ranges_file = root / "pallas_compat" / "facts" / "release_ranges.json"
    ranges = json.loads(ranges_file.read_text())
    ranges["locations"][f"{TPU}:FAKE_ANY"] = [["0.4.30", "0.4.33"]]
    ranges["names"][f"{TPU}:FAKE_ANY"] = {
        "releases": [["0.4.30", "0.4.33"]],
        "message": None,
        "moved_to": None,
    }
    ranges["keywords"][f"{PL}:pallas_call"]["fake_flag"] = [["0.4.30", "0.9.0"]]
    ranges_file.write_text(json.dumps(ranges, indent=1) + "\n")
    run(root, "scripts/write_stubs.py")
    yield root


def run(root: Path, *args: str, code: str | None = None) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` (or ``python -c CODE``) in the copy, which shadows the installed one."""
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-c", textwrap.dedent(code)] if code else [sys.executable, *args]
    done = subprocess.run(
        command, cwd=root, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def test_the_copy_is_what_runs(copy: Path) -> None:
    done = run(copy, code="import pallas_compat; print(pallas_compat.__file__)")
    assert done.stdout.strip() == str(copy / "pallas_compat" / "__init__.py")


def test_the_stub_declares_the_new_spelling(copy: Path) -> None:
    assert "FAKE_ANY: Any\n" in (copy / "pallas_compat" / "pltpu.pyi").read_text()
    assert "FAKE_ANY" not in (REPO / "pallas_compat" / "pltpu.pyi").read_text()


def test_the_shim_and_patch_serve_the_old_name(copy: Path) -> None:
    """Where JAX has ``pl.ANY`` (0.4.34 on) the old name is it, with a warning that says what
    to write; where no spelling exists (0.4.30-0.4.33 lack the fake old one), the error names
    the name."""
    done = run(
        copy,
        code="""
        import warnings
        import jax.experimental.pallas as native
        import jax.experimental.pallas.tpu as tpu
        import pallas_compat
        from pallas_compat import pltpu
        if not hasattr(native, "ANY"):
            try:
                pltpu.FAKE_ANY
            except pallas_compat.PallasCompatError as exc:
                print("missing:", exc)
            raise SystemExit
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert pltpu.FAKE_ANY is native.ANY
        assert any("Write: pl.ANY" in str(w.message) for w in caught), caught
        pallas_compat.patch()
        assert tpu.FAKE_ANY is native.ANY
        pallas_compat.unpatch()
        assert not hasattr(tpu, "FAKE_ANY")
        print("ok")
        """,
    )
    import jax.experimental.pallas as native  # JAX itself says which outcome is due

    expected = "ok" if hasattr(native, "ANY") else "missing: pltpu.FAKE_ANY"
    assert done.stdout.strip().startswith(expected), (done.stdout, done.stderr)


def test_the_shim_and_patch_refuse_the_keyword_that_went(copy: Path) -> None:
    """Dropping an unknown keyword could change results: both name it instead."""
    done = run(
        copy,
        code="""
        import jax, jax.numpy as jnp
        import jax.experimental.pallas as native
        import pallas_compat
        from pallas_compat import pl
        def kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...]
        shape = jax.ShapeDtypeStruct((8,), jnp.float32)
        for call in (pl.pallas_call, None):
            if call is None:
                pallas_compat.patch()
                call = native.pallas_call
            try:
                call(kernel, out_shape=shape, interpret=True, fake_flag=True)(jnp.zeros(8))
            except (pallas_compat.RefusedArgumentError, TypeError) as exc:
                print("refused:", exc)
        """,
    )
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and all("refused:" in x and "fake_flag" in x for x in lines), done


def doctor(copy: Path, source: str, target: str) -> dict[str, object]:
    (copy / "user.py").write_text(source)
    done = run(
        copy, "-m", "pallas_compat", "doctor", "user.py", "--target", target, "--format", "json"
    )
    report: dict[str, object] = json.loads(done.stdout)
    return report


def test_doctor_finds_both_and_says_where_they_run(copy: Path) -> None:
    renamed = doctor(copy, RENAMED, "0.12.0.1")
    (use,) = renamed["uses"]  # type: ignore[misc]
    assert use["api"] == "pltpu.FAKE_ANY" and use["state"] == "breaks"
    assert use["works_in"] == "0.4.30-0.4.33" and "pl.ANY" in use["write_instead"]
    assert renamed["tree"] == {  # served where any spelling exists: derived, no served.json edit
        "runs_unchanged": "JAX 0.4.30-0.4.33",
        "with_pallas_compat": "JAX 0.4.30-0.12.0.1",
    }
    keyword = doctor(copy, KEYWORD, "0.12.0.1")
    (use,) = keyword["uses"]  # type: ignore[misc]
    assert use["api"] == "pallas_call(fake_flag=...)" and use["state"] == "breaks"
    assert doctor(copy, KEYWORD, "0.9.0")["uses"][0]["state"] == "works"  # type: ignore[index]


def test_migrate_rewrites_the_name_and_notes_the_keyword(copy: Path) -> None:
    (copy / "user.py").write_text(RENAMED + KEYWORD)
    done = run(copy, "-m", "pallas_compat", "migrate", "user.py", "--target", "0.12.0.1")
    assert "+space = pl.ANY" in done.stdout
    assert "pallas_call(fake_flag=...) is not taken by JAX 0.12.0.1" in done.stdout
    old = run(copy, "-m", "pallas_compat", "migrate", "user.py", "--target", "0.4.33", "--check")
    assert old.returncode == 0  # 0.4.33 has the old name and takes the keyword: nothing to do


def test_the_guide_lists_both(copy: Path) -> None:
    snapshots = str(REPO / "reports" / "snapshots")
    done = run(
        copy,
        "-m",
        "report",
        "guide",
        "--from",
        "0.4.30",
        "--to",
        "0.12.0.1",
        "--snapshots",
        snapshots,
    )
    assert done.returncode == 0, done.stderr
    assert "pltpu.FAKE_ANY" in done.stdout and "pl.ANY" in done.stdout
    assert "pallas_call(fake_flag=...)" in done.stdout
