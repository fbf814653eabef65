"""The copies of JAX's ops register themselves as user code once per session, not once per
route of every case.

JAX's ``pallas/ops/__init__.py`` registers its folder with ``source_info_util.
register_inclusion``: inside JAX, the ops' frames would otherwise count as JAX's own in
locations and messages. Every route's copy of every case runs that ``__init__`` again, and
each call empties JAX's caches and compiles one regex of all the folders so far: quadratic,
about 5 s of a 90-s corpus session. A copy lives under the session's work folder, which no
folder JAX excludes covers, so its frames are the user's already and registering it changes
nothing: while ``copies_are_user_code`` is active, such a registration is skipped.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any


@contextlib.contextmanager
def copies_are_user_code(work: Path) -> Iterator[None]:
    from jax._src import source_info_util as info

    register = info.register_inclusion
    below = str(work) + os.sep

    def register_inclusion(path: str) -> None:
        if not path.startswith(below) or excluded(info, path):
            register(path)

    info.register_inclusion = register_inclusion
    try:
        yield
    finally:
        info.register_inclusion = register


def excluded(info: Any, path: str) -> bool:
    """Whether a folder JAX excludes covers ``path`` or lies inside it (its exclusions are
    prefixes); where this JAX keeps them elsewhere, assume so."""
    exclusions = getattr(info, "_exclude_paths", None)
    if not isinstance(exclusions, list):
        return True
    return any(path.startswith(p) or p.startswith(path) for p in exclusions)
