"""The TPU hardware table for every chip version the installed JAX knows."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from probes._observe import error_record, py_repr
from probes._pallas import feature
from probes._registry import probe


def jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return py_repr(value)
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, float):
        return value if value == value else "nan"
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return py_repr(value)


@probe("hardware.tpu_chips")
def tpu_chips() -> dict[str, Any]:
    chip_version = feature("chip_version")
    get_info = feature("tpu_info")
    table: dict[str, Any] = {}
    for chip in chip_version:
        try:
            table[str(chip.value)] = jsonable(get_info(chip, 1))
        except Exception as exc:
            table[str(chip.value)] = {"error": error_record(exc)}
    return {"members": {c.name: py_repr(c.value) for c in chip_version}, "info": table}
