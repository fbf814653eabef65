"""What a result records of its error: a bound, not the last digits.

The last digits of a max error move between runs on the same release (XLA's CPU threads
reduce in varying orders), and a re-run on an unchanged release must write the same bytes.
The verdict is taken on the exact error; the record keeps the power of ten at or above it.
"""

from __future__ import annotations

import math


def error_bound(err: float) -> float:
    """The smallest power of ten at or above ``err`` (``0``, ``inf`` and ``nan`` as they are)."""
    if not math.isfinite(err) or err <= 0:
        return err
    return float(f"1e{math.ceil(math.log10(err) - 1e-12)}")
