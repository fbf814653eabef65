"""Each text the routes import from their copies compiled to bytecode once per session.

Every route imports its own copy of each file a case needs, and many cases need the same
files (splash attention's mask helpers, a library's common module). A copy's path is new, so
no ``__pycache__`` applies, and Python compiles each copy from source again: about 5 s of a
corpus session. The same text compiled under another file name is the same code with
another ``co_filename``, so the first compile of a text is kept and each later copy gets it
renamed (``CodeType.replace``, nested code too), as if it had been compiled at its own path:
tracebacks, warnings and ``whose`` still name each copy's own file. No copy leaves bytecode
behind: its path never recurs, and the sessions keep the bytecode of what else they import
(the noxfile's ``keep_bytecode``).
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import CodeType
from typing import Any


@contextlib.contextmanager
def compiled_once(work: Path) -> Iterator[None]:
    """While active, files imported from under ``work`` compile once per text."""
    loader = importlib.machinery.SourceFileLoader
    compile_source = loader.source_to_code
    below = str(work) + os.sep
    kept: dict[bytes, CodeType] = {}

    def source_to_code(self: Any, data: Any, path: Any, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs or not isinstance(data, bytes) or not str(path).startswith(below):
            return compile_source(self, data, path, *args, **kwargs)
        code = kept.get(data)
        if code is None:
            code = kept[data] = compile_source(self, data, path)
            return code
        return renamed(code, str(path))

    def get_code(self: Any, fullname: str) -> Any:
        if not str(self.path).startswith(below) or sys.dont_write_bytecode:
            return find_code(self, fullname)
        sys.dont_write_bytecode = True  # get_code compiles only: no other import runs meanwhile
        try:
            return find_code(self, fullname)
        finally:
            sys.dont_write_bytecode = False

    find_code = loader.get_code
    loader.source_to_code = source_to_code  # type: ignore[method-assign]
    loader.get_code = get_code  # type: ignore[method-assign]
    try:
        yield
    finally:
        loader.source_to_code = compile_source  # type: ignore[method-assign]
        loader.get_code = find_code  # type: ignore[method-assign]


def renamed(code: CodeType, filename: str) -> CodeType:
    """``code`` as compiled from a file named ``filename``."""
    consts = tuple(renamed(c, filename) if isinstance(c, CodeType) else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)
