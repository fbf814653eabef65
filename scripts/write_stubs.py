"""Regenerate ``pallas_compat/<alias>.pyi``, the shim's namespaces as type checkers see them
(``pallas_compat/shim/_stubs.py`` says how). Run after a new fill or a rename in the facts:

    python scripts/write_stubs.py
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> int:
    from pallas_compat._file_writes import write_atomic
    from pallas_compat.shim._stubs import STUB_ALIASES, stub_text

    for spelling in STUB_ALIASES:
        write_atomic(REPO / "pallas_compat" / f"{spelling}.pyi", stub_text(spelling))
    print(f"wrote {len(STUB_ALIASES)} stubs: {', '.join(STUB_ALIASES)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
