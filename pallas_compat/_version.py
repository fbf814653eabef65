"""The package's version, on the bottom floor so that every room can read it (the matrix
installs this same release into the environments it makes). Kept equal to pyproject's."""

from __future__ import annotations

__version__ = "0.1.0"
