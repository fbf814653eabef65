"""The one error type the shim raises for people."""

from __future__ import annotations


class PallasCompatError(Exception):
    """A Pallas feature that the installed JAX cannot provide, with what to do instead."""


class MissingFeatureError(PallasCompatError, AttributeError):
    """A name that does not exist on the installed JAX, not even in a private location."""
