from __future__ import annotations

import dataclasses
import warnings

import pytest

import pallas_compat
from pallas_compat import pltpu, pltriton
from pallas_compat.shim._compiler_params import LegacyCompilerParams, adapt_fields, normalize
from pallas_compat.shim._warnings import forget_warnings

HINTS = frozenset({"dimension_semantics"})


def test_unknown_hint_is_dropped_with_one_warning() -> None:
    forget_warnings()
    with pytest.warns(pallas_compat.PallasCompatDeprecationWarning, match="opt_level"):
        kept = adapt_fields("mosaic", {"dimension_semantics": ("parallel",), "opt_level": 2}, HINTS)
    assert kept == {"dimension_semantics": ("parallel",)}


def test_unknown_field_at_its_default_is_dropped_silently() -> None:
    forget_warnings()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert adapt_fields("mosaic", {"has_side_effects": False}, HINTS) == {}


def test_field_that_changes_results_is_refused() -> None:
    with pytest.raises(pallas_compat.RefusedArgumentError, match="has_side_effects=True"):
        adapt_fields("mosaic", {"has_side_effects": True}, HINTS)
    with pytest.raises(TypeError, match="no_such_field"):
        adapt_fields("mosaic", {"no_such_field": 1}, HINTS)


def test_compiler_params_build_what_this_jax_takes() -> None:
    made = pltpu.CompilerParams(dimension_semantics=("parallel",), vmem_limit_bytes=1 << 20)
    if isinstance(made, LegacyCompilerParams):
        assert normalize(made, accepts_dicts=True) == {
            "mosaic": {"dimension_semantics": ("parallel",), "vmem_limit_bytes": 1 << 20}
        }
    else:
        assert dataclasses.is_dataclass(made)
        assert type(made).__module__.startswith("jax.")
        assert isinstance(made, pltpu.CompilerParams)
        assert made.dimension_semantics == ("parallel",)


@pytest.mark.filterwarnings("ignore::pallas_compat.PallasCompatDeprecationWarning")
def test_dict_form_becomes_the_same_object_as_the_class() -> None:
    from_dict = normalize({"mosaic": {"vmem_limit_bytes": 4096}}, accepts_dicts=False)
    from_class = normalize(pltpu.CompilerParams(vmem_limit_bytes=4096), accepts_dicts=False)
    assert from_dict == from_class
    old_key = normalize({"mosaic_params": {"vmem_limit_bytes": 4096}}, accepts_dicts=False)
    assert old_key == from_class


@pytest.mark.filterwarnings("ignore::pallas_compat.PallasCompatDeprecationWarning")
def test_old_and_new_names_agree() -> None:
    assert pltpu.TPUCompilerParams(vmem_limit_bytes=8) == pltpu.CompilerParams(vmem_limit_bytes=8)
    assert pltriton.TritonCompilerParams(num_warps=2) == pltriton.CompilerParams(num_warps=2)


def test_several_backends_refused_where_only_objects_are_taken() -> None:
    with pytest.raises(pallas_compat.RefusedArgumentError, match="several backends"):
        normalize({"mosaic": {}, "triton": {}}, accepts_dicts=False)
    assert normalize({"mosaic": {}, "triton": {}}, accepts_dicts=True) == {
        "mosaic": {},
        "triton": {},
    }


def test_a_triton_dict_key_no_release_knows_is_dropped_naming_it() -> None:
    """``dict(triton=dict(num_wraps=4, num_stages=1))``, as jax-flash-attn2 and easydel wrote
    it: the dict-era lowering ignored ``num_wraps``; so does the shim, saying so."""
    forget_warnings()
    with pytest.warns(pallas_compat.PallasCompatDeprecationWarning, match="'num_wraps'"):
        made = normalize({"triton": {"num_wraps": 4, "num_stages": 1}}, accepts_dicts=False)
    fields = made["triton"] if isinstance(made, dict) else dataclasses.asdict(made)
    assert "num_wraps" not in fields and fields.get("num_stages") == 1
    # a Mosaic dict has no such era: an unknown key is refused there
    with pytest.raises(pallas_compat.RefusedArgumentError, match="num_wraps"):
        normalize({"mosaic": {"num_wraps": 4}}, accepts_dicts=False)
