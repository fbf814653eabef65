"""kernels.thirdparty: published libraries' Pallas kernels, by every route, on the installed JAX.

The libraries are real code from the package registry (``tests/third_party.py`` says how they
are fetched); the references are NumPy float64 or exact integers written in
``kernels/thirdparty/_cases.py``.
"""

from __future__ import annotations

import email
import json
import subprocess
import sys
from pathlib import Path

import jax
import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from common import CorpusStatus
from kernels.thirdparty import SCHEMA
from kernels.thirdparty.__main__ import one
from kernels.thirdparty._libraries import LIBRARIES
from report._corpus import validated as held
from tests.third_party import LIBRARIES as CACHE
from tests.third_party import case, library_dir

REPO = Path(__file__).resolve().parent.parent
INSTALLED = Version(jax.__version__)

#: Real kernels that together use every idiom the corpus found: masked loads of a block that
#: overhangs (fjformer), the in-kernel for_loop imported as a function (fjformer) and as a
#: module (recurrentgemma), misspelt Triton params and keyword loads and stores
#: (jax-flash-attn2), partial(pl.pallas_call, ...) as a decorator (easydel), pltpu.roll in
#: the TPU interpreter (jaxite), a pallas_call wrapper over QTensors (aqtp).
REAL = (
    ("fjformer", "softmax, a block that overhangs"),
    ("fjformer", "RMS norm (in-kernel"),
    ("jax-flash-attn2", "flash attention 2 with a bias per head, sequence 128"),
    ("easydel", "flash attention 2 (its GQA"),
    ("jaxite", "signed Toeplitz"),
    ("recurrentgemma", "LRU linear scan, forward ("),
    ("aqtp", "int8 matmul of AQT QTensors (both"),
)


def routes_here(library: str) -> list[str]:
    """Native on the release the library was written for, the three routes on newer ones;
    on older releases the case does not apply (the corpus does not run it there)."""
    written_for = Version(next(lib for lib in LIBRARIES if lib.name == library).written_for)
    if written_for == INSTALLED:
        return ["native"]
    return ["patch", "shim", "migrate"] if written_for < INSTALLED else []


@pytest.mark.parametrize(
    ("library", "starts", "route"),
    [(lib, starts, route) for lib, starts in REAL for route in routes_here(lib)],
)
def test_a_real_kernel_works_by_each_route(
    library: str, starts: str, route: str, tmp_path: Path
) -> None:
    record = one(case(library, starts), route, jax.__version__, CACHE, tmp_path)
    assert record["status"] == CorpusStatus.WORKS, record
    said = [  # what the main job recorded for it here: the live run must still say it
        r
        for r in committed()
        if r["jax"] == jax.__version__ and r["kernel"] == record["kernel"] and r["route"] == route
    ]
    if jax.__version__ in {r["jax"] for r in committed()}:  # (outside the matrix: no record)
        assert said, record
        assert record["lowered"]["status"] == said[0]["lowered"]["status"], record  # type: ignore[index]
        if route == "native":  # the plain run also asks doctor, which must agree with it
            assert record["doctor"] == said[0]["doctor"] == "agrees", record


def test_every_library_was_written_for_the_release_it_is_validated_on() -> None:
    """The wheel's own metadata admits the release (its Requires-Dist on jax), and the wheel
    is the version the corpus names."""
    for library in LIBRARIES:
        folder = library_dir(library.name)
        (metadata,) = folder.glob("*.dist-info/METADATA")
        message = email.message_from_string(metadata.read_text())
        assert message["Version"] == library.version
        (declared,) = {
            str(Requirement(r).specifier)
            for r in message.get_all("Requires-Dist") or []
            if Requirement(r).name == "jax"
        } or {""}
        assert Requirement(library.requires).specifier == Requirement(f"jax{declared}").specifier
        assert Requirement(library.requires).specifier.contains(library.written_for), library


def committed() -> list[dict[str, object]]:
    """Every committed record, each with the release it ran on as ``jax``."""
    records = []
    for path in sorted((REPO / "reports" / "thirdparty").glob("jax-*.json")):
        document = json.loads(path.read_text())
        assert document["schema"] == SCHEMA
        records += [{**r, "jax": document["jax"]} for r in document["results"]]
    return records


def test_the_committed_corpus_has_25_validated_cases_from_6_libraries() -> None:
    native = [r for r in committed() if r["route"] == "native" and r["from"] == r["jax"]]
    validated = {(r["library"], r["kernel"]) for r in native if r["status"] == "works"}
    assert len(validated) >= 25
    assert len({library for library, _ in validated}) >= 6


def test_doctor_agrees_with_every_plain_run_of_a_validated_case() -> None:
    """The issue's measure of doctor on the corpus: on every release, what it says breaks ran
    when the plain run failed, and nothing it flags ran when the run worked."""
    records = committed()
    validated = {
        (r["library"], r["kernel"])
        for r in records
        if r["route"] == "native" and r["from"] == r["jax"] and held(r)
    }
    plain = [
        r for r in records if r["route"] == "native" and (r["library"], r["kernel"]) in validated
    ]
    checked = [r for r in plain if "doctor" in r]
    assert len(checked) >= 200
    assert [r for r in checked if r["doctor"] not in ("agrees", "not Pallas's")] == []
    # and none went unchecked by passing for the kernel's own dependency: what those files
    # import from JAX is Pallas, or the outside surface that doctor lists (for_loop, ...)
    assert [r for r in plain if "doctor" not in r] == []


def test_bad_input_is_one_line_before_any_work(tmp_path: Path) -> None:
    for argv, says in (
        (["--cache", str(tmp_path)], "not unpacked (run scripts/fetch_libraries.py first)"),
        (["--routes", "native,teleport"], "unknown route 'teleport'"),
        (["--out", str(tmp_path)], "is a folder; give a file name"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "kernels.thirdparty", *argv],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.count("\n") == 1 and says in done.stderr
