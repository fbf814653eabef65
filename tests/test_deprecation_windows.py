"""Deprecation windows read from the sources hold natively: the old form runs where the
table says it runs, and warns where it says it warns. ``nox -s tests`` runs this module on
every release of the default matrix and on the ends of each window outside it (0.4.31 and
0.4.34 for ``BlockSpec``'s argument order)."""

from __future__ import annotations

import warnings

import pytest

from pallas_compat.facts._table import (
    BLOCK_SPEC_ORDER,
    call_form_releases,
    call_form_warned_releases,
    installed_jax,
    works_in,
)


@pytest.mark.release
def test_the_old_block_spec_order_runs_and_warns_where_the_table_says() -> None:
    from jax.experimental import pallas as pl

    release = installed_jax()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        spec = pl.BlockSpec(lambda i: (i,), (8,))  # index_map first: the order of 0.4.30
    took = callable(spec.index_map) and not callable(spec.block_shape)
    warned = any(
        issubclass(w.category, DeprecationWarning) and "BlockSpec" in str(w.message) for w in caught
    )
    assert took == works_in(call_form_releases(BLOCK_SPEC_ORDER), release)
    assert warned == works_in(call_form_warned_releases(BLOCK_SPEC_ORDER), release)
