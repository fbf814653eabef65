"""The probe suite: record the live Pallas surface of the installed JAX as one JSON snapshot.

Run ``python -m probes [--out FILE]`` from the repository root. Each probe group runs in its own
subprocess; a probe that raises, hangs or crashes costs only its own entry.
"""

from __future__ import annotations

#: Bump (in common.py) when the meaning of a snapshot field changes; the report refuses
#: unknown schemas.
from common import SNAPSHOT_SCHEMA as SCHEMA

__all__ = ["SCHEMA"]
