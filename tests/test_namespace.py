from __future__ import annotations

import importlib

import pytest

import pallas_compat
from pallas_compat import pl
from pallas_compat.shim._module_like import Namespace

native_pl = importlib.import_module("jax.experimental.pallas")


def test_native_names_are_the_native_objects() -> None:
    for name in ("program_id", "num_programs", "when", "cdiv", "ds"):
        assert getattr(pl, name) is getattr(native_pl, name)


def test_dir_lists_native_names_and_fills() -> None:
    names = dir(pl)
    assert "program_id" in names and "load" in names and "Squeezed" in names


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        pl.no_such_name  # noqa: B018


def test_missing_feature_error_says_what_to_do() -> None:
    from pallas_compat.shim._errors import missing

    error = missing(pallas_compat.FEATURES_BY_KEY["tpu_simulator"], "pltpu.InterpretParams")
    assert isinstance(error, AttributeError) and isinstance(error, pallas_compat.PallasCompatError)
    text = str(error)
    assert "pltpu.InterpretParams" in text and "first in JAX 0.6.2" in text
    assert "interpret=pltpu.InterpretParams" in text


def test_a_namespace_without_its_module() -> None:
    """Where the wrapped JAX module does not import (Mosaic GPU on some releases), a name is
    ``MissingFeatureError`` (the shim's contract, still an ``AttributeError``); dunders stay
    plain ``AttributeError`` (``copy``, ``pickle`` and ``hasattr`` probe those)."""
    from pallas_compat.shim._errors import MissingFeatureError

    space = Namespace("pallas_compat.none", None, {})
    with pytest.raises(MissingFeatureError, match="does not import on the installed JAX"):
        space.x  # noqa: B018
    assert not hasattr(space, "x") and "nothing on this JAX" in repr(space)
    with pytest.raises(AttributeError) as caught:
        space.__deepcopy__  # noqa: B018
    assert not isinstance(caught.value, MissingFeatureError)


def test_namespaces_are_built_once() -> None:
    assert pallas_compat.pltpu is pallas_compat.namespace("pltpu")


def test_plgpu_is_the_mosaic_gpu_namespace() -> None:
    assert pallas_compat.plgpu is pallas_compat.plmgpu


def test_a_name_this_jax_lacks_says_which_releases_have_it() -> None:
    """A newer kernel on an older JAX: a clear PallasCompatError, still an AttributeError."""
    import pytest

    from pallas_compat import pl
    from pallas_compat.shim._errors import MissingFeatureError

    assert not hasattr(pl, "no_such_name_anywhere")
    with pytest.raises(MissingFeatureError, match="no scanned JAX release has it"):
        pl.no_such_name_anywhere  # noqa: B018


def test_a_name_outside_pallas_claims_nothing_of_other_releases() -> None:
    """The scan never read ``jax._src.dtypes``: the error must not say no release has it."""
    import pytest

    from pallas_compat import dtypes
    from pallas_compat.shim._errors import MissingFeatureError

    with pytest.raises(MissingFeatureError, match="the release scan covers Pallas, not jax") as e:
        dtypes.no_such_name_anywhere  # noqa: B018
    assert "no scanned JAX release" not in str(e.value)


def test_estimate_cost_before_its_release() -> None:
    import importlib

    import pytest

    from pallas_compat import pl
    from pallas_compat.shim._errors import MissingFeatureError

    native = importlib.import_module("jax.experimental.pallas")
    if hasattr(native, "estimate_cost"):
        assert pl.estimate_cost is native.estimate_cost
    else:
        with pytest.raises(MissingFeatureError, match=r"JAX 0\.4\.36 on has it"):
            pl.estimate_cost  # noqa: B018


def test_a_function_with_renamed_keywords_this_jax_lacks_says_which_releases_have_it() -> None:
    """``pl.kernel`` (0.8.1 on) renamed a keyword: on a release before it, looking it up is the
    shim's MissingFeatureError naming the scanned releases, like any other missing name."""
    import pytest
    from packaging.version import Version

    from pallas_compat.facts._table import KEYWORD_RENAMES, NAMESPACE_OF, Location
    from pallas_compat.shim import _namespaces
    from pallas_compat.shim._errors import MissingFeatureError
    from tests.conftest import installed_jax

    functions = [(m, n) for m, n in KEYWORD_RENAMES if n[0].islower() and m in NAMESPACE_OF]
    assert functions
    for module, name in functions:
        spans = Location(module, name).releases
        here = any(Version(a) <= installed_jax() <= Version(b) for a, b in spans)
        space = _namespaces.namespace(NAMESPACE_OF[module])
        if here:
            assert callable(getattr(space, name))
            continue
        with pytest.raises(MissingFeatureError, match=f"JAX {spans[0][0]}"):
            getattr(space, name)
