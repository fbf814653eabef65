"""Regenerate ``pallas_compat/tpu_chips.json`` from a JAX that has ``get_tpu_info_for_chip``.

The shim serves this table on releases without one (before 0.9.2); a test on the newest JAX
checks it still equals the native answers. Run: ``python scripts/update_tpu_table.py``.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import sys
from pathlib import Path
from typing import Any

TABLE = Path(__file__).resolve().parents[1] / "pallas_compat" / "tpu_chips.json"


def plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    return value


def main() -> int:
    import jax
    from jax.experimental.pallas import tpu as pltpu

    chips = {}
    for chip in pltpu.ChipVersion:
        info = plain(pltpu.get_tpu_info_for_chip(chip, 1))
        try:
            pltpu.get_tpu_info_for_chip(chip, 2)
            megacore = True
        except ValueError:
            megacore = False
        chips[chip.name] = {"value": chip.value, "megacore": megacore, "info": info}
    table = {"source": f"jax {jax.__version__} pltpu.get_tpu_info_for_chip", "chips": chips}
    tmp = TABLE.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    tmp.replace(TABLE)
    print(f"wrote {TABLE} ({len(chips)} chips)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
