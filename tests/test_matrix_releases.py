"""pallas_compat/matrix/_releases.py: which releases ``matrix --jax`` names, and their Python."""

from __future__ import annotations

import json

import pytest
from packaging.specifiers import SpecifierSet

from pallas_compat._usage import UsageError
from pallas_compat.facts._table import scanned_releases
from pallas_compat.matrix._releases import (
    default_releases,
    pythons_for,
    releases_of,
    requires_python,
)
from tests.conftest import REPO

MATRIX = json.loads((REPO / "jax-matrix.json").read_text())


def test_default_is_the_main_jobs_default_matrix() -> None:
    assert list(default_releases()) == MATRIX["default"]


def test_requires_python_is_each_releases_own() -> None:
    for entry in MATRIX["every"]:
        assert requires_python(entry["jax"]) == SpecifierSet(entry["requires_python"]), entry


def test_every_release_gets_an_interpreter_it_allows_newest_jax_only_312_on() -> None:
    assert all(pythons_for(r) for r in scanned_releases())
    assert pythons_for("0.12.0.1") == ("3.12", "3.13")
    assert pythons_for("0.4.30")[0] == "3.12"


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("0.6.2,0.4.30", ("0.4.30", "0.6.2")),
        ("0.9.2..0.10.1", ("0.9.2", "0.10.0", "0.10.1")),
        ("0.9..0.9.1", ("0.9.0", "0.9.0.1", "0.9.1")),
        ("default", tuple(MATRIX["default"])),
        ("every", tuple(scanned_releases())),
        ("0.4.30,default", tuple(MATRIX["default"])),
    ],
)
def test_lists_ranges_and_names(spec: str, expected: tuple[str, ...]) -> None:
    assert releases_of(spec) == expected


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("0.6.3", "unknown JAX release '0.6.3'"),
        ("0.6.3..0.6.9", "no JAX release in that range"),
        ("0.12.0.1..0.6.2", "the oldest release comes first"),
        ("latest", "'latest' is not a release number"),
        (",", "names no release"),
    ],
)
def test_bad_input_is_one_line(spec: str, says: str) -> None:
    with pytest.raises(UsageError, match=says) as caught:
        releases_of(spec)
    assert "\n" not in str(caught.value)
