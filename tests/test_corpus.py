"""kernels.corpus: a shipped kernel of release X run on this release, by every route.

The ops tree here holds real softmax kernels: this JAX's own, as it shipped it (the native
validation), and JAX 0.4.30's (tests/fixtures/real) as an older release (patch, shim, migrate)
and as a newer one (the shim only), plus a file that imports a JAX module no release has.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jax

from kernels.corpus import SCHEMA
from report._corpus import THIRDPARTY, corpus

REPO = Path(__file__).resolve().parent.parent
SOFTMAX = REPO / "tests" / "fixtures" / "real" / "jax_0_4_30" / "softmax.py"
GONE = "import jax._src.no_such_module_anywhere\nfrom jax.experimental import pallas as pl\n"


def run_corpus(tmp_path: Path) -> list[dict[str, object]]:
    ops = tmp_path / "ops"
    own = Path(jax.__file__).parent / "experimental" / "pallas" / "ops" / "gpu" / "softmax.py"
    for release, source in (("0.0.1", SOFTMAX), (jax.__version__, own), ("99.0", SOFTMAX)):
        (ops / release / "gpu").mkdir(parents=True)
        (ops / release / "gpu" / "softmax.py").write_text(source.read_text())
    (ops / "0.0.1" / "gpu" / "layer_norm.py").write_text(GONE)
    out = tmp_path / "corpus.json"
    done = subprocess.run(
        [sys.executable, "-m", "kernels.corpus", "--ops", str(ops), "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(out.read_text())
    assert document["schema"] == SCHEMA and document["jax"] == jax.__version__
    return document["results"]


def test_routes_by_release_and_the_old_codes_own_dependency(tmp_path: Path) -> None:
    results = run_corpus(tmp_path)
    by = {(r["from"], r["kernel"], r["route"]): r for r in results}
    softmax = [k for k in {r["kernel"] for r in results} if k.startswith("softmax")]
    assert len(softmax) == 2
    for kernel in softmax:
        assert by[(jax.__version__, kernel, "native")]["status"] == "works"
        for route in ("patch", "shim", "migrate"):
            assert by[("0.0.1", kernel, route)]["status"] == "works", by[("0.0.1", kernel, route)]
        assert by[("99.0", kernel, "shim")]["status"] == "works"
        assert ("99.0", kernel, "patch") not in by
        for record in results:  # and each, interpret off, lowered for CUDA through Triton
            if record["kernel"] == kernel:
                assert record["lowered"] == {"by": "Triton", "for": "GPU", "status": "lowers"}
    norm = by[("0.0.1", "layer norm", "patch")]
    assert norm["status"] == "dependency" and "jax._src.no_such_module_anywhere" in norm["detail"]
    assert "lowered" not in norm  # the kernel's own dependency: nothing to lower


def test_the_report_section_counts_only_validated_cases() -> None:
    def record(source: str, route: str, status: str, **extra: object) -> dict[str, object]:
        return {"from": source, "kernel": "softmax", "route": route, "status": status, **extra}

    results = {
        "1.0": {"jax": "1.0", "results": [record("1.0", "native", "works")]},
        "2.0": {
            "jax": "2.0",
            "results": [
                record("1.0", "patch", "works"),
                record("1.0", "shim", "error", detail="ValueError: no", whose="shim"),
                record("1.0", "migrate", "works"),
                record("2.0", "native", "wrong", tolerance="rtol=0 atol=1e-05"),
            ],
        },
        "3.0": {"jax": "3.0", "results": [record("2.0", "patch", "works")]},
    }
    section = corpus(results)
    counts, dropped = section.tables
    (matrix,), (problems,) = (fold.tables for fold in section.folds)
    assert [c.text for c in matrix.rows[0]] == ["1.0", "softmax", "native ✓", "P✓ S! M✓", "—"]
    assert matrix.rows[0][3].tone == "bad" and len(matrix.rows) == 1
    by_route = {row[0].text: [c.text for c in row[1:]] for row in counts.rows}
    assert by_route["patch() on older kernels"] == ["—", "1/1", "—"]  # 2.0's own case: dropped
    assert by_route["shim imports on older kernels"] == ["—", "0/1", "—"]
    assert [c.text for c in problems.rows[0]][:6] == [
        "1.0",
        "softmax",
        "shim",
        "shim",
        "2.0",
        "ValueError: no",
    ]
    assert problems.rows[0][6].text == "not known yet: a gap to close"
    assert [c.text for c in dropped.rows[0]] == [
        "2.0",
        "softmax",
        "wrong on JAX 2.0: max abs error beyond rtol=0 atol=1e-05",
    ]


def test_a_route_works_only_where_it_also_compiles() -> None:
    """``a`` lowers natively, so its shim route's failed lowering is counted against the
    route and listed; ``b`` does not lower on its own release either, so its routes are
    counted on the interpreter alone, and the table says why."""
    lowers = {"for": "GPU", "status": "lowers", "by": "Triton"}
    fails = {"for": "GPU", "status": "fails", "detail": "NotImplementedError: dus"}

    def record(kernel: str, route: str, lowered: dict[str, str]) -> dict[str, object]:
        return {"from": "1.0", "kernel": kernel, "route": route, "status": "works",
                "lowered": lowered}  # fmt: skip

    results = {
        "1.0": {"jax": "1.0", "results": [record("a", "native", lowers),
                                          record("b", "native", fails)]},
        "2.0": {"jax": "2.0", "results": [record("a", "patch", lowers), record("a", "shim", fails),
                                          record("b", "patch", fails)]},
    }  # fmt: skip
    section = corpus(results)
    counts, own = section.tables
    (matrix,), (problems,) = (fold.tables for fold in section.folds)
    assert [[c.text for c in row] for row in matrix.rows] == [
        ["1.0", "a", "native ✓/✓", "P✓/✓ S✓/✗"],
        ["1.0", "b", "native ✓/✗", "P✓/✗"],
    ]
    assert matrix.rows[0][3].tone == "bad" and matrix.rows[1][3].tone == "good"
    by_route = {row[0].text: [c.text for c in row[1:]] for row in counts.rows}
    assert by_route["patch() on older kernels"] == ["—", "2/2"]
    assert by_route["shim imports on older kernels"] == ["—", "0/1"]
    assert [c.text for c in problems.rows[0]][:6] == [
        "1.0", "a", "shim", "—", "2.0", "compiling for GPU: NotImplementedError: dus"
    ]  # fmt: skip
    assert [c.text for c in own.rows[0]] == [
        "1.0", "b", "does not compile for GPU: NotImplementedError: dus"
    ]  # fmt: skip


def test_a_case_no_interpreter_runs_is_validated_and_counted_by_its_lowering() -> None:
    """Mosaic GPU before 0.11.1: ``a`` lowers on its own release (validated), and on 2.0 one
    route lowers, one does not, and one runs in the interpreter there and is wrong; ``b``
    does not lower on its own release: dropped, with the lowering's reason."""
    lowers = {"for": "GPU", "status": "lowers", "by": "Mosaic GPU"}
    fails = {"for": "GPU", "status": "fails", "detail": "TypeError: out_shape"}
    none = "this JAX has no Mosaic GPU interpreter"

    def record(kernel: str, route: str, status: str, lowered: dict[str, str]) -> dict[str, object]:
        return {"from": "1.0", "kernel": kernel, "route": route, "status": status,
                "lowered": lowered, "detail": none if status == "lowered only" else "max"}  # fmt: skip

    results = {
        "1.0": {"jax": "1.0", "results": [record("a", "native", "lowered only", lowers),
                                          record("b", "native", "lowered only", fails)]},
        "2.0": {"jax": "2.0", "results": [record("a", "patch", "lowered only", lowers),
                                          record("a", "shim", "lowered only", fails),
                                          record("a", "migrate", "wrong", lowers),
                                          record("b", "patch", "lowered only", fails)]},
    }  # fmt: skip
    section = corpus(results)
    counts, dropped = section.tables
    (matrix,), (problems,) = (fold.tables for fold in section.folds)
    assert [[c.text for c in row] for row in matrix.rows] == [
        ["1.0", "a", "native ·/✓", "P·/✓ S·/✗ M✗/✓"],
    ]
    by_route = {row[0].text: [c.text for c in row[1:]] for row in counts.rows}
    assert by_route["patch() on older kernels"] == ["—", "1/1"]
    assert by_route["shim imports on older kernels"] == ["—", "0/1"]
    assert by_route["migrate, then plain JAX, on older kernels"] == ["—", "0/1"]
    assert {row[2].text for row in problems.rows} == {"shim", "migrate"}
    assert [c.text for c in dropped.rows[0]] == [
        "1.0", "b", f"lowered only on JAX 1.0: {none}; lowering: TypeError: out_shape"
    ]  # fmt: skip


def test_the_report_checks_doctor_on_validated_cases_only() -> None:
    """A library's case, validated on 1.0: on 2.0 doctor agreed, on 3.0 it missed the break;
    a dropped case's disagreement is not counted."""

    def record(kernel: str, route: str, status: str, **extra: object) -> dict[str, object]:
        return {"library": "lib", "version": "1", "from": "1.0", "kernel": kernel,
                "route": route, "status": status, **extra}  # fmt: skip

    results = {
        "1.0": {"jax": "1.0", "results": [
            record("good", "native", "works"), record("bad", "native", "wrong"),
        ]},
        "2.0": {"jax": "2.0", "results": [
            record("good", "native", "error", doctor="agrees", flagged=["pl.load"]),
            record("good", "patch", "works"),
        ]},
        "3.0": {"jax": "3.0", "results": [
            record("good", "native", "error", doctor="missed", flagged=[], detail="E: no"),
            record("bad", "native", "works", doctor="false alarm", flagged=["pl.dot"]),
            record("good", "patch", "works"),
        ]},
    }  # fmt: skip
    tables = corpus(results, THIRDPARTY).tables
    checked = next(t for t in tables if t.caption.startswith("doctor vs a plain run"))
    assert [[c.text for c in row] for row in checked.rows] == [["lib", "—", "1/1", "0/1"]]
    (wrong,) = [t for t in tables if t.caption == "where doctor and the plain run disagree"]
    assert [[c.text for c in row] for row in wrong.rows] == [
        ["lib 1 (JAX 1.0)", "good", "3.0", "missed", "error: E: no", "nothing"]
    ]


def test_bad_input_is_one_line_before_any_work(tmp_path: Path) -> None:
    for argv, says in (
        (["--ops", str(tmp_path / "missing")], "no such folder (run scripts/fetch_ops.py first)"),
        (["--ops", str(tmp_path), "--out", str(tmp_path)], "is a folder; give a file name"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "kernels.corpus", *argv],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert done.stderr.count("\n") == 1 and says in done.stderr


def test_an_old_kernel_imports_its_siblings_from_its_own_release(tmp_path: Path) -> None:
    """``from jax.experimental.pallas.ops.tpu.megablox import common`` in an old file must
    reach the old ``common`` (the installed JAX ships one too), prepared by the same route."""
    import importlib

    from kernels.corpus._package import build, forget, needed_files, prng_registry

    release = tmp_path / "ops" / "0.0.1"
    (release / "tpu" / "megablox").mkdir(parents=True)
    (release / "tpu" / "megablox" / "common.py").write_text("WHO = 'the old release'\n")
    (release / "tpu" / "megablox" / "gmm.py").write_text(
        "from jax.experimental.pallas.ops.tpu.megablox import common\n"
        "from jax.experimental.pallas.ops.tpu.megablox.common import (\n    WHO,\n)\n"
    )
    (release / "tpu" / "megablox" / "unused.py").write_text("raise SystemExit\n")
    assert needed_files(release, "tpu/megablox/gmm.py") == [
        "tpu/megablox/common.py",
        "tpu/megablox/gmm.py",
    ]
    work = tmp_path / "work"
    sys.path.insert(0, str(work))
    try:
        name = build(release, "tpu/megablox/gmm.py", "shim", jax.__version__, work, "pkg_0_0_1")
        module = importlib.import_module(name)
        assert module.common.WHO == module.WHO == "the old release"
    finally:
        forget("pkg_0_0_1", set(prng_registry()))
        sys.path.remove(str(work))
    assert not any(m.startswith("pkg_0_0_1") for m in sys.modules)


def test_a_prng_registered_on_import_is_forgotten_with_the_package() -> None:
    """JAX's random ops register a PRNG implementation when imported; a second route of the
    same file must not find it already registered (it did, for 0.9.2's Threefry and Philox)."""
    from kernels.corpus._package import forget, prng_registry

    jax.random.key(0)  # JAX's own implementations are registered by now
    registry = prng_registry()
    assert "threefry2x32" in registry, "no PRNG registry found in this JAX"
    before = set(registry)
    registry["corpus-test-prng"] = object()
    forget("corpus_test_nothing", before)
    assert set(registry) == before


def test_an_error_line_names_no_install_path() -> None:
    """A record must not depend on where the venv lives: a re-run elsewhere writes the same."""
    from kernels.corpus._run import first_line

    site = "/somewhere/.nox/corpus-jax-0-12-0-1/lib/python3.12/site-packages"
    error = ImportError(f"cannot import name 'util' from 'jax' ({site}/jax/__init__.py)")
    text = first_line(error, Path("/ops"))
    assert (
        text
        == "ImportError: cannot import name 'util' from 'jax' (<site-packages>/jax/__init__.py)"
    )


def test_an_outside_module_gone_by_name_is_the_surface_not_the_kernels_dependency() -> None:
    """``from jax._src.lax.control_flow import for_loop`` (gone in 0.7.2) and ``from jax import
    util`` fail with a plain ImportError naming the parent: that is the surface pallas-compat
    serves, so a failure there is no "dependency" of the kernel. A module outside that surface
    (``jax._src.random``) stays the kernel's own."""
    from kernels.corpus._run import surface_import

    def gone(name: str, parent: str) -> ImportError:
        return ImportError(f"cannot import name {name!r} from {parent!r} (<site-packages>)",
                           name=parent)  # fmt: skip

    assert surface_import(gone("for_loop", "jax._src.lax.control_flow"))
    assert surface_import(gone("util", "jax"))
    assert surface_import(gone("prng", "jax._src"))
    assert not surface_import(gone("threefry2x32", "jax._src.random"))
    assert not surface_import(ModuleNotFoundError("No module named 'x'", name="x"))
    try:  # and this JAX's own error, where it has no for_loop
        from jax._src.lax.control_flow import for_loop  # type: ignore[attr-defined]  # noqa: F401
    except ImportError as exc:
        assert surface_import(exc)


def test_a_route_that_ends_early_still_takes_patch_back(tmp_path: Path) -> None:
    """A patched route whose kernel needs what the environment lacks returns at once; the
    next case must not run patched."""
    from kernels.corpus._run import Dependency, attempt
    from pallas_compat.shim._patch import patched

    def missing() -> object:
        raise Dependency("imports something gone")

    class Case:
        hardware, precision, atol, device = "GPU", "highest", 0.0, None

        def machine(self) -> contextlib.AbstractContextManager[None]:
            return contextlib.nullcontext()

    assert not patched()
    record = attempt(Case(), "patch", missing, "early_return", tmp_path)  # type: ignore[arg-type]
    assert record["status"] == "dependency" and "lowered" not in record
    assert not patched(), "patch() was left on"


#: A few cases of the committed corpus, run live by every route the record has for them on
#: this release (fast ones, of both hardware kinds, one that errs by some route): a regression
#: of the shim, patch or migrate fails here before ``nox`` reruns the corpus.
LIVE = (
    ("0.4.30", "softmax, a power-of-two row"),
    ("0.4.30", "TPU example kernel (double)"),
    ("0.4.30", "decode attention (gqa, 16 q heads per kv head)"),
    ("0.4.30", "splash attention, causal mask"),
    ("0.4.36", "softmax, a block that overhangs the row"),
    ("0.6.2", "Mosaic GPU flash attention forward (float16)"),
)


def committed_here() -> list[dict[str, Any]]:
    path = REPO / "reports" / "corpus" / f"jax-{jax.__version__}.json"
    assert path.is_file(), f"no committed corpus record for JAX {jax.__version__}: nox -s corpus"
    return json.loads(path.read_text())["results"]  # type: ignore[no-any-return]


def test_a_few_cases_run_live_as_the_committed_record_says(tmp_path: Path) -> None:
    from kernels.corpus.__main__ import one
    from kernels.corpus._cases import cases

    sys.path.insert(0, str(REPO / "scripts"))
    from fetch_ops import default_cache

    ops = default_cache() / "ops"
    by_name = {case.name: case for case in cases()}
    wanted = [r for r in committed_here() if (r["from"], r["kernel"]) in LIVE]
    assert len(wanted) >= 4
    for record in wanted:
        assert (ops / record["from"]).is_dir(), (
            f"run scripts/fetch_ops.py --releases {record['from']}"
        )
        live = one(
            by_name[record["kernel"]],
            record["from"],
            record["route"],
            jax.__version__,
            ops,
            tmp_path,
        )
        seen = (live["status"], live.get("lowered", {}).get("status"))
        said = (record["status"], record.get("lowered", {}).get("status"))
        assert seen == said, (record["from"], record["kernel"], record["route"], live)
