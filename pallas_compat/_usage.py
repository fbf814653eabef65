"""The one error every command answers with a line on stderr and exit status 2.

It sits on the bottom floor, beside the facts, so that the lint tools, the matrix and the CLI
raise the same class without importing each other.
"""

from __future__ import annotations

__all__ = ["UsageError"]


class UsageError(Exception):
    """Bad input: reported as one line with exit status 2."""
