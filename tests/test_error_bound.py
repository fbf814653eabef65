"""kernels/_error_bound.py: results record a power of ten, not an error's last digits."""

from __future__ import annotations

import math

from kernels._error_bound import error_bound


def test_the_smallest_power_of_ten_at_or_above() -> None:
    assert error_bound(3.36e-6) == error_bound(3.46e-6) == 1e-5  # two runs, one record
    assert error_bound(1e-5) == 1e-5 and error_bound(1.0000001e-5) == 1e-4
    assert error_bound(0.5) == 1.0 and error_bound(7.0) == 10.0


def test_zero_and_non_finite_errors_are_kept() -> None:
    assert error_bound(0.0) == 0.0 and error_bound(math.inf) == math.inf
    assert math.isnan(error_bound(math.nan))
