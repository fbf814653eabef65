"""Idioms of the JAX 0.4.30-0.6.x era that no published library's code holds, written as
small kernel files in the style of JAX's own Pallas tests and tutorials of those releases
(``tests/fixtures/idioms``; neither the tests nor the tutorials ship in any package, so they
cannot be fetched like the libraries). Each file runs natively on the release it was written
for and through ``patch()``, the shim's imports and ``migrate`` on every newer one, against
NumPy float64 references written here; ``doctor`` must find exactly the ``# drift:`` marks.
"""

from __future__ import annotations

import collections
import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import jax
import numpy as np
import pytest
from packaging.version import Version

from common import CorpusStatus
from kernels.corpus._package import Tree
from kernels.corpus._run import ROUTES, attempt, load
from pallas_compat.lint._finder import uses_in
from pallas_compat.lint._migrate import MARKER, migrate_source

IDIOMS = Path(__file__).parent / "fixtures" / "idioms"
INSTALLED = Version(jax.__version__)
X = np.arange(32 * 128, dtype=np.float32).reshape(32, 128) / 100
X64 = X.astype(np.float64)


@dataclass(frozen=True)
class Idiom:
    file: str
    written_for: str
    run: Callable[[ModuleType], Any]
    reference: Callable[[], np.ndarray]
    atol: float = 1e-3
    #: What the corpus harness asks of a case (``kernels/corpus/_run.py``'s ``Check``).
    hardware: str = "TPU"
    finish: Callable[[np.ndarray], np.ndarray] = np.asarray
    precision: str = "highest"
    device: str | None = None

    def machine(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()


def windows() -> np.ndarray:
    return np.stack([X64[s : s + 8].sum(axis=0) for s in range(0, 32 - 8 + 1, 4)])


def megacore_split(module: ModuleType) -> np.ndarray:
    """The output, then whether each of the 4 grid points ran once and each core ran 2."""
    module.visited.clear()
    out = np.asarray(module.add_one_on_two_cores(X), dtype=np.float64)
    points = sorted(point for point, _ in module.visited)
    cores = collections.Counter(core for _, core in module.visited)
    fair = float(points == [(0,), (1,), (2,), (3,)] and cores == {0: 2, 1: 2})
    return np.append(out.ravel(), fair)


def total_of_x(module: ModuleType) -> Any:
    return module.total(X)


CASES = (
    Idiom("indexing_modes.py", "0.5.3", lambda m: m.doubled(X), lambda: 2 * X64),
    Idiom("mode_parameter.py", "0.5.3", lambda m: m.doubled(X), lambda: 2 * X64),
    Idiom("indexing_modes.py", "0.5.3", lambda m: m.window_sums(X), windows),
    Idiom(
        "interpret_params.py",
        "0.6.2",
        megacore_split,
        lambda: np.append((X64 + 1).ravel(), 1.0),
    ),
    Idiom("atomics.py", "0.6.2", total_of_x, lambda: np.array(X64.sum()), atol=0.1),
    Idiom(
        "atomics.py",
        "0.6.2",
        lambda m: m.largest_of_even_and_odd_blocks(X),
        lambda: np.array([X64.reshape(4, 8, 128)[::2].max(), X64.reshape(4, 8, 128)[1::2].max()]),
    ),
    Idiom("imports.py", "0.4.30", lambda m: m.tripled(X[0]), lambda: 3 * X64[0]),
    Idiom("memory_space.py", "0.6.2", lambda m: m.doubled(X), lambda: 2 * X64),
    Idiom("cost_estimate_numbers.py", "0.4.38", lambda m: m.scaled(X), lambda: 1.5 * X64 + 1.0),
    Idiom("device_id_type.py", "0.6.2", lambda m: m.ring(X), lambda: X64),
)


#: Files migrate cannot make run, by design: it leaves a note saying exactly why (checked
#: below), and the file is for the patch and shim routes.
LEFT_FOR_A_PERSON = {"mode_parameter.py"}


def routes(idiom: Idiom) -> list[str]:
    written_for = Version(idiom.written_for)
    if written_for == INSTALLED:
        return ["native"]
    if written_for > INSTALLED:
        return []
    return [r for r in ROUTES if r != "migrate" or idiom.file not in LEFT_FOR_A_PERSON]


def interpreter_refuses_0d_atomics() -> bool:
    """JAX 0.8.0 on: the interpreter's ``atomic_rmw`` cannot index a 0-d ref (found by
    trying, as the shim does)."""
    from pallas_compat import pltriton
    from pallas_compat.shim._atomic_ops import interpreter_takes_0d

    native = getattr(pltriton, "atomic_add", None)
    return native is not None and not interpreter_takes_0d(native.__wrapped__)


def params() -> list[object]:
    found: list[object] = []
    for idiom in CASES:
        for route in routes(idiom):
            marks = []
            if idiom.run is total_of_x and route == "migrate" and interpreter_refuses_0d_atomics():
                marks.append(
                    pytest.mark.xfail(
                        strict=True,
                        reason="JAX 0.8.0 on: the interpreter cannot index a 0-d ref in an "
                        "atomic ('not enough values to unpack'); migrate writes JAX's own "
                        "call, which Triton compiles; only the shim takes it apart",
                    )
                )
            found.append(pytest.param(idiom, route, marks=marks, id=f"{idiom.file}-{route}"))
    return found


@pytest.mark.parametrize(("idiom", "route"), params())
def test_an_idiom_of_the_era_works_by_each_route(idiom: Idiom, route: str, tmp_path: Path) -> None:
    tag = f"idiom_{Path(idiom.file).stem}_{route}"
    tree = Tree(IDIOMS, "idioms", False)
    verdict = attempt(
        idiom,
        route,
        lambda: load(tree, idiom.file, route, jax.__version__, tmp_path, tag),
        tag,
        tmp_path,
    )
    assert verdict["status"] == CorpusStatus.WORKS, verdict


def marks(path: Path) -> list[tuple[int, str]]:
    """(line, api) from the ``# drift: a; b`` marks written by hand in a fixture."""
    found = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if match := re.search(r"# drift: (.+)$", line):
            found += [(number, api.strip()) for api in match.group(1).split(";")]
    return found


@pytest.mark.parametrize("name", sorted(p.name for p in IDIOMS.glob("*.py")))
def test_doctor_finds_exactly_the_marked_uses(name: str) -> None:
    path = IDIOMS / name
    uses = uses_in(str(path), path.read_text())
    found = [(u.line, str(u.api)) for u in uses]
    assert sorted(found) == sorted(marks(path))


def test_a_removed_pipeline_keyword_is_left_with_what_to_write() -> None:
    """``should_accumulate_out`` has no successor keyword: migrate keeps the call and says how
    to accumulate in the body (emit_pipeline needs a TPU device kind on 0.6.2, so the file is
    read here, not run)."""
    source = (IDIOMS / "pipeline.py").read_text()
    migrated = migrate_source(source, "0.12.0.1")
    assert "should_accumulate_out=True" in migrated
    (note,) = [line for line in migrated.splitlines() if MARKER in line and "accumulate" in line]
    assert note.startswith("    )(x_hbm, o_hbm)  " + MARKER)  # the statement's last line
    assert "accumulate in the body" in note


def test_a_mode_from_a_parameter_is_left_with_a_note_saying_why() -> None:
    """migrate cannot tell which mode a parameter carries: it notes both the default and the
    keyword, and says what to write for each mode."""
    source = (IDIOMS / "mode_parameter.py").read_text()
    migrated = migrate_source(source, "0.12.0.1").splitlines()
    header = next(line for line in migrated if line.startswith("def doubled("))
    spec = next(line for line in migrated if "indexing_mode=mode" in line)
    assert MARKER in header and "pl.Blocked() is not the indexing mode in JAX 0.12.0.1" in header
    assert "the mode comes from a variable here" in spec and "pl.Element(n, (low, high))" in spec


def test_device_id_gets_its_successor_named() -> None:
    """``pltpu.device_id()`` has no one-line successor (``lax.axis_index`` needs the mesh
    axis's name, which the kernel does not hold): doctor and migrate's note name it."""
    path = IDIOMS / "device_id.py"
    (use,) = uses_in(str(path), path.read_text())
    assert use.hint.startswith("jax.lax.axis_index(axis_name)") and use.releases == (
        ("0.4.30", "0.5.3"),
    )
    migrated = migrate_source(path.read_text(), "0.12.0.1")
    (line,) = [line for line in migrated.splitlines() if "me = pltpu.device_id()" in line]
    assert MARKER in line and "jax.lax.axis_index(axis_name)" in line
