"""The API-facts table, public: what the shim, ``doctor`` and ``migrate`` know about Pallas.

One declarative table (``_facts.py``) plus the release ranges scanned from every release's
sources (``release_ranges.json``). The probes, the scripts and the report read it from here;
nothing outside the shim edits it. Adding a rename is one ``Feature`` entry in ``_facts.py``
(and a rescan), and every reader picks it up. Where the shim serves each name it fills in
is measured on every release (``served.json``, ``shim_serves``).
"""

from __future__ import annotations

from pallas_compat import _facts
from pallas_compat._anchors import form_anchor, name_anchor
from pallas_compat._facts import (
    ALIASES,
    BACKENDS,
    BACKENDS_BY_KEY,
    CALL_FORMS,
    CALL_KEYWORDS,
    COST_ANALYSIS_HINT,
    COST_ANALYSIS_INDEX,
    DICT_PARAMS,
    FEATURES,
    FEATURES_BY_KEY,
    GPU_CUSTOM_CALLS,
    GPU_LEGACY,
    HEADLINE_FEATURES,
    INTERPRET_FORMS,
    INVENTORIED_MODULES,
    MEMBER_MOVES,
    MOSAIC_GPU,
    NAMESPACE_OF,
    OUTSIDE_MODULES,
    PL,
    PUBLIC_MODULES,
    TPU,
    TPU_BACKEND,
    TRITON,
    WRITE_INSTEAD,
    Backend,
    CallForm,
    Feature,
    Location,
    backend_of,
    call_form_releases,
    cost_analysis_index_releases,
    describe,
    pallas_call_keyword_releases,
    release_ranges,
    renames,
    scanned_releases,
    watched_names,
    works_in,
)
from pallas_compat._resolve import deprecation_table, find
from pallas_compat._served import fill_releases, shim_serves

__all__ = [
    "ALIASES",
    "BACKENDS",
    "BACKENDS_BY_KEY",
    "CALL_FORMS",
    "CALL_KEYWORDS",
    "COST_ANALYSIS_HINT",
    "COST_ANALYSIS_INDEX",
    "DICT_PARAMS",
    "FEATURES",
    "FEATURES_BY_KEY",
    "GPU_CUSTOM_CALLS",
    "GPU_LEGACY",
    "HEADLINE_FEATURES",
    "INTERPRET_FORMS",
    "INVENTORIED_MODULES",
    "MEMBER_MOVES",
    "MOSAIC_GPU",
    "NAMESPACE_OF",
    "OUTSIDE_MODULES",
    "PL",
    "PUBLIC_MODULES",
    "TPU",
    "TPU_BACKEND",
    "TRITON",
    "WRITE_INSTEAD",
    "Backend",
    "CallForm",
    "Feature",
    "Location",
    "backend_of",
    "call_form_releases",
    "cost_analysis_index_releases",
    "deprecation_table",
    "describe",
    "features_and_moves",
    "fill_releases",
    "find",
    "form_anchor",
    "name_anchor",
    "pallas_call_keyword_releases",
    "release_ranges",
    "renames",
    "scanned_releases",
    "served_names",
    "shim_serves",
    "watched_names",
    "works_in",
]


def served_names(module: str) -> frozenset[str]:
    """The names the shim's namespace for ``module`` serves where the installed JAX lacks them
    (its back-fills), whatever JAX is installed: the report says "pallas-compat serves it"."""
    from pallas_compat._fills import NAMESPACES

    alias = NAMESPACE_OF.get(module)
    return frozenset(NAMESPACES[alias][1]()) if alias in NAMESPACES else frozenset()


def features_and_moves() -> tuple[Feature, ...]:
    """Every feature of the table plus each move the release scan proved (old and new name
    import one object) that no feature owns; read at call time, so a new entry shows at once."""
    return (*_facts.FEATURES, *_facts.moves())
