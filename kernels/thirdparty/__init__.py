"""The third-party corpus: Pallas kernels that libraries published on the package registry,
at versions written for JAX 0.4.30-0.6.x, run on every newer release.

``python -m kernels.thirdparty`` fetches each library's wheel (pip, no dependencies, cached,
never committed), copies the kernel files a case needs, and runs every case natively on the
release the library was written for (the validation) and through ``patch()``, the shim's
imports and ``migrate`` on newer releases, each against a NumPy float64 (or exact integer)
reference written in ``kernels/thirdparty/_cases.py``. Records have the ops corpus's shape
plus the library, so that the report shows both side by side.
"""

from __future__ import annotations

from common import THIRDPARTY_SCHEMA as SCHEMA

__all__ = ["SCHEMA"]
