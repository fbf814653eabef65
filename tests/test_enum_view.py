"""pallas_compat.shim._enum_view: an old enum name, with the members JAX moved out of it."""

from __future__ import annotations

import enum

from pallas_compat.shim._enum_view import enum_view

ANY = object()


class MemorySpace(enum.Enum):
    VMEM = "vmem"
    SMEM = "smem"


def test_members_moved_and_native() -> None:
    view = enum_view("TPUMemorySpace", MemorySpace, {"ANY": lambda: ANY})
    assert view.ANY is ANY and view["ANY"] is ANY
    assert view.VMEM is MemorySpace.VMEM and view["SMEM"] is MemorySpace.SMEM
    assert view("vmem") is MemorySpace.VMEM
    assert list(view) == list(MemorySpace) and len(view) == 2
    assert isinstance(MemorySpace.SMEM, view) and isinstance(ANY, view)
    assert not isinstance("vmem", view)
    assert "ANY" in dir(view) and view.__name__ == "TPUMemorySpace"


def test_the_shim_serves_tpu_memory_space_any() -> None:
    import warnings

    from pallas_compat import pl, pltpu

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        old = pltpu.TPUMemorySpace
    if hasattr(old, "__native__"):  # a view: this JAX moved ANY out of the enum
        assert old.ANY is pl.ANY
    else:  # this JAX still has the old enum with its own ANY: the shim serves it as it is
        assert isinstance(old, enum.EnumMeta) and old.ANY is old["ANY"]
        assert old.ANY in list(old)
