"""What doctor and migrate check against and which rules run: flags, then pyproject, then
the installed JAX and every rule."""

from __future__ import annotations

import pytest

from pallas_compat._usage import UsageError
from pallas_compat.lint._config import Config
from pallas_compat.lint._settings import parse_window, selection, window
from pallas_compat.rules import RULES_BY_CODE


def test_a_window_is_every_scanned_release_between_its_ends() -> None:
    releases = window("0.6.2", "0.7.1")
    assert releases == ("0.6.2", "0.7.0", "0.7.1")  # 0.6.2's successors the scan knows
    with pytest.raises(UsageError, match="oldest release comes first"):
        window("0.7.1", "0.6.2")
    with pytest.raises(UsageError, match=r"unknown JAX release '0\.6\.3'"):
        window("0.6.3", "0.7.1")
    assert parse_window("0.6.2:0.12.0.1") == ("0.6.2", "0.12.0.1")
    with pytest.raises(UsageError, match="OLDEST:NEWEST"):
        parse_window("0.6.2")


def test_flags_win_over_pyproject_and_everything_is_the_default() -> None:
    assert selection([], [], Config()) == set(RULES_BY_CODE)
    config = Config(select=("PAL2",), ignore=("PAL201",))
    chosen = selection([], [], config)
    assert "PAL201" not in chosen and chosen and all(c.startswith("PAL2") for c in chosen)
    assert selection(["PAL301"], [], config) == {"PAL301"}  # the flag's select, pyproject's ignore
    assert selection(["PAL201"], [], config) == set()
