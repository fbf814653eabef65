"""On ``PYTHONPATH`` for ``pallas-compat matrix``'s patch route when the command is not pytest:
every Python process of the run starts with ``pallas_compat.patch()`` installed."""

from __future__ import annotations

import pallas_compat

pallas_compat.patch()
