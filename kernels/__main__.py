"""``python -m kernels``: run the chapter's kernels under the chosen modes."""

from __future__ import annotations

import sys

from kernels._cli import main

sys.exit(main())
