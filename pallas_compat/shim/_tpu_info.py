"""TPU chip facts on every release: JAX's own table where it has one (0.9.2 on), else the
table recorded from the newest JAX (``tpu_chips.json``, see ``scripts/update_tpu_table.py``)."""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
from typing import Any

from pallas_compat.facts._table import FEATURES_BY_KEY, TPU_CHIPS_FILE
from pallas_compat.shim._resolve import Resolution, resolve


@functools.cache
def table() -> dict[str, Any]:
    chips: dict[str, Any] = json.loads(TPU_CHIPS_FILE.read_text())["chips"]
    return chips


@dataclasses.dataclass(frozen=True)
class TpuInfo:
    """One chip's hardware facts, for releases without ``pltpu.get_tpu_info_for_chip``; the
    fields are those of the newest JAX's ``TpuInfo`` (``sparse_core`` as a dict)."""

    chip_version: Any
    facts: dict[str, Any]

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["facts"][name]
        except KeyError:
            raise AttributeError(f"TpuInfo has no field {name!r}") from None


@functools.cache
def chip_version_class() -> Any:
    """``pltpu.ChipVersion``: native, or an enum with the recorded members."""
    resolved = resolve(FEATURES_BY_KEY["chip_version"])
    if resolved.status is not Resolution.UNAVAILABLE:
        return resolved.obj
    members = {name: chip["value"] for name, chip in sorted(table().items())}
    return enum.Enum("ChipVersion", members, type=str, module=__name__)


def table_info(chip: Any, num_cores: int) -> TpuInfo:
    """``get_tpu_info_for_chip`` answered from the recorded table."""
    name = chip.name if isinstance(chip, enum.Enum) else str(chip)
    row = table()[name]
    if num_cores != 1 and not (num_cores == 2 and row["megacore"]):
        raise ValueError(
            f"{name} takes num_tensor_cores_per_logical_device=1"
            + (" or 2" if row["megacore"] else "")
            + f", not {num_cores}"
        )
    facts = {**row["info"], "num_cores": num_cores}
    return TpuInfo(chip_version_class()[name], facts)


def get_tpu_info_for_chip(chip_version: Any, num_tensor_cores_per_logical_device: int) -> Any:
    """``pltpu.get_tpu_info_for_chip`` for releases before 0.9.2, from the recorded table."""
    return table_info(chip_version, num_tensor_cores_per_logical_device)


def chip(spec: Any) -> Any:
    """A ChipVersion member from a member, its value (``"v5e"``) or its name (``"TPU_V5E"``)."""
    cls = chip_version_class()
    if isinstance(spec, enum.Enum):
        return cls[spec.name]
    for member in cls:
        if spec in (member.value, member.name):
            return member
    known = ", ".join(sorted(m.value for m in cls))
    raise ValueError(f"unknown TPU chip {spec!r}; known: {known}")


def tpu_info(spec: Any, num_cores: int = 1) -> Any:
    """Hardware facts of a TPU chip (``"v5e"``, ``"TPU_V5E"`` or a ChipVersion member)."""
    member = chip(spec)
    native = resolve(FEATURES_BY_KEY["tpu_info"])
    if native.status is not Resolution.UNAVAILABLE:
        return native.obj(member, num_cores)
    return table_info(member, num_cores)
