"""The namespaces as type checkers see them: ``pallas_compat/<alias>.pyi``, written from the
fills (``scripts/write_stubs.py``; ``tests/test_stubs.py`` fails while a file is stale).

A namespace is the installed JAX's module plus the shim's fills, built at run time, so no
type checker could follow it. Each stub declares the fills first, as ``Any`` (what they are
depends on the release: an old name back-filled, a new one forward-filled, a facade taking
both call forms), then star-imports JAX's own module, whose names keep their own types
(the first binding wins). A name neither has is an error, as it would be at run time.
The namespaces of JAX's private modules (``jax_util``, ``dtypes``, ...) pass any other name
through untyped: those modules move between releases.
"""

from __future__ import annotations

from pallas_compat.shim._fills import NAMESPACES
from pallas_compat.shim._namespaces import SPELLINGS

__all__ = ["STUB_ALIASES", "stub_text"]

#: Every spelling ``from pallas_compat import X`` takes (``plgpu`` is ``plmgpu``).
STUB_ALIASES: tuple[str, ...] = tuple(sorted(SPELLINGS))

HEADER = '''"""``pallas_compat.{spelling}`` for type checkers: the shim's fills, then {source}.

Written by scripts/write_stubs.py from the shim's fills; do not edit by hand.
"""

from typing import Any

'''


def stub_text(spelling: str) -> str:
    """The ``.pyi`` text of the namespace ``from pallas_compat import <spelling>`` gives."""
    modules, fills = NAMESPACES[SPELLINGS[spelling]]
    native = modules[0]
    public = native.startswith("jax.experimental.pallas")
    source = f"JAX's own {native}" if public else f"any name of JAX's private {native}, untyped"
    lines = [HEADER.format(spelling=spelling, source=source)]
    lines += [f"{name}: Any\n" for name in sorted(fills())]
    if public:
        lines.append(f"\nfrom {native} import *  # noqa: E402, F403\n")
    else:
        lines.append("\ndef __getattr__(name: str) -> Any: ...\n")
    return "".join(lines)
