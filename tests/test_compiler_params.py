from __future__ import annotations

import dataclasses
import inspect
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


_TPU, _TRITON = "jax.experimental.pallas.tpu", "jax.experimental.pallas.triton"
#: The params classes' old names, written out: (namespace, old, new, JAX's module, the feature
#: whose advice the warning gives).
RENAMED_PARAMS = (
    (pltpu, "TPUCompilerParams", "CompilerParams", _TPU, "tpu_compiler_params"),
    (pltriton, "TritonCompilerParams", "CompilerParams", _TRITON, "triton_compiler_params"),
)


@pytest.mark.parametrize(
    ("space", "old", "new", "home", "key"), RENAMED_PARAMS, ids=lambda v: getattr(v, "__name__", v)
)
def test_the_old_params_name_warns_where_it_is_used_unless_it_is_this_jax_s_newest(
    space: object, old: str, new: str, home: str, key: str
) -> None:
    """Making the class under its old name warns once, at this line, with what to write;
    except where JAX has the old name and not yet the new (then it is the name to use). The
    new name never warns. Which release has which, asked of JAX itself."""
    from pallas_compat import FEATURES_BY_KEY
    from tests.conftest import jax_object

    spelling = f"{space.__name__.rpartition('.')[2]}.{old}"  # type: ignore[attr-defined]
    forget_warnings()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(space, new)()
        line = inspect.currentframe().f_lineno + 1  # type: ignore[union-attr]
        getattr(space, old)()
    ours = [
        w for w in caught if issubclass(w.category, pallas_compat.PallasCompatDeprecationWarning)
    ]
    newest = jax_object(home, old) is not None and jax_object(home, new) is None
    expected = f"{spelling} was renamed; write {FEATURES_BY_KEY[key].hint}"
    assert [(str(w.message), w.filename, w.lineno) for w in ours] == (
        [] if newest else [(expected, __file__, line)]
    )
