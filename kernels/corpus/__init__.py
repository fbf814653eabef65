"""The real-kernel corpus: JAX's own shipped Pallas kernels of release X, run on release Y.

``scripts/fetch_ops.py`` extracts ``jax/experimental/pallas/ops`` from each release's wheel;
``python -m kernels.corpus`` runs every case of every extracted release up to the installed
one: natively on its own release (the validation), and on newer releases through three
routes (``patch()``, the shim's imports, ``migrate`` then plain JAX), each against a NumPy
float64 reference written in ``kernels/corpus/_cases.py``.
"""

from __future__ import annotations

from common import CORPUS_SCHEMA as SCHEMA

__all__ = ["SCHEMA"]
