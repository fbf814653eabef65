"""An old enum name whose members JAX has since moved elsewhere.

``pltpu.TPUMemorySpace.ANY`` was a member; newer JAX renamed the enum to ``MemorySpace`` and
moved ``ANY`` (and ``HOST``) out of it to ``pl.ANY``. The back-filled old name is a view:
every member of the native enum, plus each moved member from where it lives now. The native
enum itself is never changed.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator, Mapping
from typing import Any


class _EnumViewMeta(type):
    __native__: type[enum.Enum]
    __moved__: dict[str, Callable[[], Any]]

    def __getattr__(cls, name: str) -> Any:
        if name in cls.__moved__:
            return cls.__moved__[name]()
        return getattr(cls.__native__, name)

    def __getitem__(cls, name: str) -> Any:
        return cls.__moved__[name]() if name in cls.__moved__ else cls.__native__[name]

    def __iter__(cls) -> Iterator[Any]:
        return iter(cls.__native__)

    def __len__(cls) -> int:
        return len(cls.__native__)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls.__native__(*args, **kwargs)

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, cls.__native__) or any(
            obj is member() for member in cls.__moved__.values()
        )

    def __dir__(cls) -> list[str]:
        return sorted(set(dir(cls.__native__)) | set(cls.__moved__))

    def __repr__(cls) -> str:
        return f"<enum {cls.__name__!r}: {cls.__native__.__name__} + {', '.join(cls.__moved__)}>"


def enum_view(name: str, native: type[enum.Enum], moved: Mapping[str, Callable[[], Any]]) -> type:
    """``native`` under the old ``name``, with ``moved`` members (name -> getter) added."""
    return _EnumViewMeta(
        name, (), {"__native__": native, "__moved__": dict(moved), "__doc__": native.__doc__}
    )
