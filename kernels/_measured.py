"""What a result records of its error: the verdict at a stated tolerance, not the error.

A measured max error moves with the CPU, XLA's thread count and the machine's load (threads
reduce in varying orders, another CPU vectorizes differently), and a re-run on an unchanged
release must write the same bytes on any machine. So a record carries its verdict and the
tolerance it was taken at; the measured error rides along under ``MEASURED`` only until the
command line moves it to the timings file beside the results.
"""

from __future__ import annotations

#: The key of a record's measured max abs error, moved out of the record before it is written.
MEASURED = "max_abs_error"


def stated(rtol: float, atol: float) -> str:
    """The tolerance a verdict was taken at, as the record states it: ``rtol=1e-05 atol=0``."""
    return f"rtol={rtol:g} atol={atol:g}"
