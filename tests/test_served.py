"""``served.json`` is what the shim really serves: measured again on the installed release
(every release of the default matrix runs this module), and read the same by ``shim_serves``."""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import pytest

from pallas_compat import facts
from pallas_compat._served import served_table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import measure_served


def test_the_file_covers_every_scanned_release() -> None:
    assert served_table()["releases"] == facts.scanned_releases()


def test_what_the_shim_serves_here_is_what_the_file_says() -> None:
    """Every fill of every namespace, looked up on this JAX, against the file's row for it:
    a shim change the file does not know (or a fill that stopped building) fails here."""
    release = jax.__version__
    if release not in served_table()["releases"]:
        pytest.fail(f"JAX {release} is not a scanned release: rescan, then measure_served.py")
    measured = measure_served.measure_installed()
    recorded = {
        alias: sorted(n for n, spans in names.items() if facts.works_in(spans, release))
        for alias, names in served_table()["namespaces"].items()
    }
    assert {a: n for a, n in measured.items() if n} == {a: n for a, n in recorded.items() if n}


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
