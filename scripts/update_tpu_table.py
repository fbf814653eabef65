"""Regenerate ``pallas_compat/facts/tpu_chips.json`` from a JAX that has ``get_tpu_info_for_chip``.

The shim serves this table on releases without one (before 0.9.2); a test on the newest JAX
checks it still equals the native answers. Each chip's device kind (what cross-lowering tells
JAX it lowers for) is kept from the table, the kind real chips report, which older releases
also know; each is checked against JAX's ``chip_version_from_device_kind``, and a new chip
takes the first spelling of its case there. Run: ``python scripts/update_tpu_table.py``.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import inspect
import json
import sys
from pathlib import Path
from typing import Any

TABLE = Path(__file__).resolve().parents[1] / "pallas_compat" / "facts" / "tpu_chips.json"


def plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    return value


def device_kinds() -> dict[str, str]:
    """ChipVersion name -> the first device kind JAX maps to it (``"TPU v5 lite"``)."""
    from jax._src import tpu_info

    tree = ast.parse(inspect.getsource(tpu_info.chip_version_from_device_kind))
    kinds = {}
    for case in (n for n in ast.walk(tree) if isinstance(n, ast.match_case)):
        patterns = (
            case.pattern.patterns if isinstance(case.pattern, ast.MatchOr) else [case.pattern]
        )
        spellings = [p.value.value for p in patterns if isinstance(p, ast.MatchValue)]
        returned = case.body[0]
        if (
            spellings
            and isinstance(returned, ast.Return)
            and isinstance(returned.value, ast.Attribute)
        ):
            kinds[returned.value.attr] = spellings[0]
    return kinds


def main() -> int:
    import jax
    from jax._src import tpu_info
    from jax.experimental.pallas import tpu as pltpu

    chips = {}
    kept = json.loads(TABLE.read_text())["chips"] if TABLE.is_file() else {}
    kinds = {
        **device_kinds(),
        **{name: c["device_kind"] for name, c in kept.items() if "device_kind" in c},
    }
    for name, kind in kinds.items():
        found = tpu_info.chip_version_from_device_kind(kind)
        if found is None or found.name != name:
            raise SystemExit(f"device kind {kind!r} is not {name} to JAX {jax.__version__}")
    for chip in pltpu.ChipVersion:
        info = plain(pltpu.get_tpu_info_for_chip(chip, 1))
        try:
            pltpu.get_tpu_info_for_chip(chip, 2)
            megacore = True
        except ValueError:
            megacore = False
        chips[chip.name] = {
            "value": chip.value,
            "megacore": megacore,
            "device_kind": kinds[chip.name],
            "info": info,
        }
    table = {"source": f"jax {jax.__version__} pltpu.get_tpu_info_for_chip", "chips": chips}
    tmp = TABLE.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    tmp.replace(TABLE)
    print(f"wrote {TABLE} ({len(chips)} chips)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
