"""``served.json`` is what the shim really serves: measured again on the installed release
(every release of the default matrix runs this module), and read the same by ``shim_serves``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jax
import pytest
from packaging.version import Version

from pallas_compat import facts
from pallas_compat.facts._served import fill_releases, rename_releases, served_table
from pallas_compat.shim._fills import served_names

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import measure_served

SCAN = json.loads(
    (
        Path(__file__).resolve().parent.parent / "pallas_compat" / "facts" / "release_ranges.json"
    ).read_text()
)


def test_the_file_covers_every_scanned_release() -> None:
    assert served_table()["releases"] == facts.scanned_releases()


def test_what_the_shim_serves_here_is_what_the_facts_say() -> None:
    """Every fill of every namespace, looked up on this JAX, against where the facts say it is
    served (the file's row, else the releases derived for a rename): a shim change the file
    does not know, a fill that stopped building or a derivation that is wrong fails here."""
    release = jax.__version__
    if release not in served_table()["releases"]:
        pytest.fail(f"JAX {release} is not a scanned release: rescan, then measure_served.py")
    measured = measure_served.measure_installed()
    claimed = {
        alias: sorted(
            name
            for name in served_names(module)
            if facts.works_in(fill_releases(module, name), release)
        )
        for module, alias in reversed(facts.NAMESPACE_OF.items())
    }
    assert {a: n for a, n in measured.items() if n} == {a: n for a, n in claimed.items() if n}


def test_a_rename_is_served_where_any_spelling_is_without_a_row() -> None:
    """``pltpu.TPUMemorySpace`` -> ``MemorySpace``: derived from the table, no row needed."""
    assert "TPUMemorySpace" not in served_table()["namespaces"]["pltpu"]
    spans = rename_releases(facts.TPU, "TPUMemorySpace")
    assert spans == [[facts.scanned_releases()[0], facts.scanned_releases()[-1]]]
    assert rename_releases(facts.PL, "load") is None  # built by code: measured


@pytest.mark.parametrize(
    ("module", "name"),
    [
        (facts.PL, "swap"),  # gone in 0.9; the report once said "no"
        (facts.TPU, "repeat"),  # gone in 0.10.2; rebuilt from jnp.concatenate
        (facts.PL, "load"),
        (facts.TPU, "TPUCompilerParams"),
    ],
)
def test_old_names_the_shim_fills_in_are_served_here(module: str, name: str) -> None:
    """The claim, checked by calling: where ``shim_serves`` says yes, the namespace gives it."""
    import importlib
    import warnings

    assert facts.shim_serves(module, name, jax.__version__)
    space = importlib.import_module(f"pallas_compat.{facts.NAMESPACE_OF[module]}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert getattr(space, name) is not None


def test_a_name_no_release_has_and_no_fill_serves_is_not_served() -> None:
    assert not facts.shim_serves(facts.PL, "no_such_name", jax.__version__)


def test_a_module_the_shim_has_no_namespace_for_serves_nothing() -> None:
    newest = facts.scanned_releases()[-1]
    assert fill_releases("jax.numpy", "sin") == []
    assert rename_releases("jax.numpy", "sin") is None
    assert not facts.shim_serves("jax.numpy", "sin", newest)  # JAX has it; not ours to claim


def test_jaxs_own_names_are_served_where_the_scan_finds_them() -> None:
    """No fill and no rename: ``pl.GridSpec`` is served exactly where JAX has it (0.4.31 on,
    by the scan), not on 0.4.30."""
    every = facts.scanned_releases()
    assert fill_releases(facts.PL, "GridSpec") == []
    spans = SCAN["locations"][f"{facts.PL}:GridSpec"]
    assert spans == [["0.4.31", every[-1]]]
    assert [r for r in every if facts.shim_serves(facts.PL, "GridSpec", r)] == every[1:]


def test_a_measured_fill_is_served_on_its_measured_releases_only() -> None:
    """``pltpu.InterpretParams``: built by code from 0.5.1 on (a private class before the
    public one), not on 0.4.30, whatever JAX has."""
    measured = served_table()["namespaces"]["pltpu"]["InterpretParams"]
    assert fill_releases(facts.TPU, "InterpretParams") == measured
    first = measured[0][0]
    before = [r for r in facts.scanned_releases() if Version(r) < Version(first)]
    assert before and not facts.shim_serves(facts.TPU, "InterpretParams", before[-1])
    assert facts.shim_serves(facts.TPU, "InterpretParams", first)
