"""Real third-party Pallas code for the tests: the libraries of the third-party corpus, fetched
from the package registry by ``scripts/fetch_libraries.py`` (``nox -s tests`` runs it first)
into the cache, never committed. A library missing from the cache fails the test that needs
it, with the command that fetches it."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import pytest

from kernels.corpus._package import Tree
from kernels.corpus._run import load
from kernels.thirdparty._cases import ThirdPartyCase, cases
from kernels.thirdparty._libraries import BY_NAME

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

from fetch_ops import default_cache  # noqa: E402

LIBRARIES = default_cache() / "libraries"


def library_dir(name: str) -> Path:
    """The unpacked wheel of library ``name`` (its top-level folders inside)."""
    library = BY_NAME[name]
    folder = LIBRARIES / f"{library.name}-{library.version}"
    if not folder.is_dir():
        pytest.fail(
            f"{folder}: {library.label} is not fetched; run python scripts/fetch_libraries.py "
            "(nox -s tests does)"
        )
    return folder


def real_file(name: str, relative: str) -> Path:
    """A file of library ``name``, relative to its top-level package."""
    return library_dir(name) / BY_NAME[name].package / relative


def tree(name: str) -> Tree:
    library = BY_NAME[name]
    return Tree(library_dir(name) / library.package, library.package, False)


def case(library: str, starts: str) -> ThirdPartyCase:
    """The corpus case of ``library`` named ``starts``, or the one whose name starts so."""
    mine = [c for c in cases() if c.library.name == library]
    exact = [c for c in mine if c.name == starts]
    (found,) = exact or [c for c in mine if c.name.startswith(starts)]
    return found


def load_case(found: ThirdPartyCase, route: str, target: str, work: Path, tag: str) -> ModuleType:
    """The case's file and its siblings as ``route`` prepares them, imported (the corpus's
    own preparation)."""
    return load(tree(found.library.name), found.file, route, target, work, tag)
