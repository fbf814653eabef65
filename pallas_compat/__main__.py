"""``python -m pallas_compat`` is the ``pallas-compat`` command."""

from __future__ import annotations

import sys

from pallas_compat._cli import main

sys.exit(main())
