from __future__ import annotations

import dataclasses

import pytest

from pallas_compat import pl
from pallas_compat.shim._block_spec import Element, Squeezed, Unblocked, from_new_dims
from pallas_compat.shim._errors import RefusedArgumentError

pytestmark = pytest.mark.filterwarnings("ignore::pallas_compat.PallasCompatDeprecationWarning")


def index_map(i):
    return (i, 0)


def fields(spec) -> dict[str, object]:
    return {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)}


def test_both_argument_orders_give_the_same_native_spec() -> None:
    new = pl.BlockSpec((8, 128), index_map)
    old = pl.BlockSpec(index_map, (8, 128))
    keywords = pl.BlockSpec(block_shape=(8, 128), index_map=index_map)
    assert fields(new) == fields(old) == fields(keywords)
    assert type(new).__module__.startswith("jax.")
    assert isinstance(new, pl.BlockSpec)
    assert new.block_shape == (8, 128)


def test_one_positional_argument() -> None:
    assert pl.BlockSpec((8, 128)).block_shape == (8, 128)
    assert fields(pl.BlockSpec(index_map)) == fields(pl.BlockSpec(index_map=index_map))


def test_unblocked_indexing_mode_means_element_dimensions() -> None:
    spec = pl.BlockSpec((8, 128), index_map, indexing_mode=pl.Unblocked(((1, 1), (0, 0))))
    if "indexing_mode" in {f.name for f in dataclasses.fields(spec)} and spec.indexing_mode:
        assert spec.block_shape == (8, 128)
        assert spec.indexing_mode == pl.Unblocked(((1, 1), (0, 0)))
    else:
        assert [(d.block_size, tuple(d.padding)) for d in spec.block_shape] == [
            (8, (1, 1)),
            (128, (0, 0)),
        ]


def test_element_dimensions_before_they_existed() -> None:
    shape, mode = from_new_dims((Element(8, (1, 1)), Element(128)), None, Unblocked)
    assert shape == (8, 128) and mode == Unblocked(((1, 1), (0, 0)))
    assert from_new_dims((Squeezed(), 8), None, Unblocked) == ((None, 8), None)
    with pytest.raises(RefusedArgumentError, match=r"mixes pl\.Element"):
        from_new_dims((Element(8), 128), None, Unblocked)
