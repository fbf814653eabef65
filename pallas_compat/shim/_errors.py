"""The errors the shim raises: each names the feature, the installed JAX and what to do."""

from __future__ import annotations

from pallas_compat.facts._table import WRITE_INSTEAD, Feature, Location, describe, installed_jax


class PallasCompatError(Exception):
    """A Pallas feature that the installed JAX cannot provide, with what to do instead."""


class MissingFeatureError(PallasCompatError, AttributeError):
    """A name that does not exist on the installed JAX, not even in a private location."""


class UnsupportedFeatureError(PallasCompatError, NotImplementedError):
    """A mode or behaviour (e.g. the TPU simulator) that the installed JAX does not have."""


class RefusedArgumentError(PallasCompatError, TypeError):
    """An argument the installed JAX does not know, where dropping it would change results."""


def availability(feature: Feature) -> str:
    """'first in JAX 0.6.2' style text for error messages."""
    if feature.since is None:
        return "not found in any location this shim knows"
    return f"first in JAX {feature.since}"


def missing(feature: Feature, spelling: str) -> MissingFeatureError:
    return MissingFeatureError(
        f"{spelling} ({feature.title}) is not available in the installed JAX {installed_jax()} "
        f"({availability(feature)}); upgrade JAX, or write: {feature.hint}"
    )


def unsupported(feature: Feature, what: str, instead: str) -> UnsupportedFeatureError:
    return UnsupportedFeatureError(
        f"{what} needs {feature.title}, which the installed JAX {installed_jax()} does not have "
        f"({availability(feature)}); upgrade JAX, or {instead}"
    )


def missing_name(module: str, name: str) -> MissingFeatureError:
    """A public Pallas name the installed JAX lacks: say which releases have it (scanned),
    so that a newer kernel run on an older JAX fails with its reason, not a bare lookup."""
    location = Location(module, name)
    spelling, spans = location.spelling, location.releases
    if spans:
        where = f"JAX {describe(spans)} has it"
    elif module.startswith("jax.experimental.pallas"):
        where = "no scanned JAX release has it"
    else:  # outside Pallas the scan never looked: claim nothing about other releases
        where = f"the release scan covers Pallas, not {module}"
    instead = WRITE_INSTEAD.get(f"{module}:{name}")
    return MissingFeatureError(
        f"{spelling} is not in the installed JAX {installed_jax()}; {where}, and pallas-compat "
        "does not serve it" + (f"; write: {instead}" if instead else "")
    )
