from __future__ import annotations

import dataclasses
import enum
import json

import pytest

import pallas_compat
from pallas_compat import pltpu
from pallas_compat.shim import _tpu_info


def test_chip_spellings() -> None:
    by_value = pallas_compat.tpu_info("v5e")
    by_name = pallas_compat.tpu_info("TPU_V5E")
    by_member = pallas_compat.tpu_info(pltpu.ChipVersion.TPU_V5E)
    assert by_value.vmem_capacity_bytes == by_name.vmem_capacity_bytes
    assert by_name.vmem_capacity_bytes == by_member.vmem_capacity_bytes
    with pytest.raises(ValueError, match="unknown TPU chip 'v99'"):
        pallas_compat.tpu_info("v99")


def test_recorded_table_equals_this_jax_where_it_has_one() -> None:
    """On releases with get_tpu_info_for_chip the shim's table must say what JAX says; where
    JAX has none, the table is the answer."""
    native = pallas_compat.resolve(pallas_compat.FEATURES_BY_KEY["tpu_info"])
    if native.obj is None:
        info = pltpu.get_tpu_info_for_chip(pltpu.ChipVersion.TPU_V5P, 2)
        assert info.num_cores == 2
        with pytest.raises(ValueError, match="TPU_V5E"):
            pltpu.get_tpu_info_for_chip(pltpu.ChipVersion.TPU_V5E, 2)
        return
    for chip in pltpu.ChipVersion:
        if chip.name not in _tpu_info.table():
            continue
        want = json.loads(json.dumps(plain(native.obj(chip, 1))))
        got = _tpu_info.table_info(chip.name, 1)
        assert want == {**got.facts, "chip_version": chip.value}, chip


def plain(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    return value


def test_each_chip_s_device_kind_is_that_chip_to_jax() -> None:
    """The one chip table also holds the device kind cross-lowering tells JAX; where JAX maps
    kinds to chips itself, each kind must come back as its chip."""
    from pallas_compat.shim._tpu_info import table

    try:
        from jax._src.tpu_info import chip_version_from_device_kind
    except ImportError:  # older releases: the map lives in Mosaic's lowering, not checked here
        assert all(chip["device_kind"].startswith("TPU") for chip in table().values())
        return
    for name, chip in table().items():
        found = chip_version_from_device_kind(chip["device_kind"])
        assert found is not None and found.name == name, (name, chip["device_kind"])
