from __future__ import annotations

import pallas_compat

#: The public facade; a change here is an API change and must be deliberate.
EXPECTED = {
    "FEATURES",
    "FEATURES_BY_KEY",
    "Feature",
    "InterpretMode",
    "Location",
    "MissingFeatureError",
    "PallasCompatDeprecationWarning",
    "PallasCompatError",
    "RefusedArgumentError",
    "Resolution",
    "Resolved",
    "UnsupportedFeatureError",
    "__version__",
    "deprecation_table",
    "enable_x64",
    "features",
    "find",
    "interpret",
    "lower",
    "patch",
    "pl",
    "plgpu",
    "plmgpu",
    "pltpu",
    "pltriton",
    "reset_interpret_state",
    "resolve",
    "tpu_info",
    "unpatch",
}


def test_exported_names() -> None:
    assert set(pallas_compat.__all__) == EXPECTED
    for name in EXPECTED:
        assert hasattr(pallas_compat, name), name


def test_errors_are_builtin_subclasses() -> None:
    pairs = {
        pallas_compat.MissingFeatureError: AttributeError,
        pallas_compat.UnsupportedFeatureError: NotImplementedError,
        pallas_compat.RefusedArgumentError: TypeError,
    }
    for error, builtin in pairs.items():
        assert issubclass(error, builtin)
        assert issubclass(error, pallas_compat.PallasCompatError)
    assert issubclass(pallas_compat.PallasCompatDeprecationWarning, DeprecationWarning)


def test_enable_x64_wherever_it_lives() -> None:
    import jax.numpy as jnp

    with pallas_compat.enable_x64():
        assert jnp.zeros(1).dtype == jnp.float64
    assert jnp.zeros(1).dtype == jnp.float32


def test_features_records_are_plain_data() -> None:
    record = pallas_compat.features()["pallas_call"]
    assert record == {
        "status": "current",
        "resolves_to": "pl.pallas_call",
        "modern": "pl.pallas_call",
    }


def test_import_stays_light() -> None:
    """``import pallas_compat`` imports neither JAX nor NumPy: the namespaces do, on first use."""
    import subprocess
    import sys

    code = "import sys, pallas_compat; print(sorted({'jax', 'numpy', 'libcst'} & set(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_namespaces_leave_the_lint_tools_to_doctor() -> None:
    """A kernel's ``from pallas_compat import pl`` and a name from it load JAX, never the
    drift rules or the lint tools (which only ``doctor`` and ``migrate`` need)."""
    import subprocess
    import sys

    code = (
        "import sys; from pallas_compat import pl, pltpu; pl.BlockSpec; pltpu.CompilerParams; "
        "print(sorted(m for m in sys.modules if m.startswith(('pallas_compat.lint', "
        "'pallas_compat.rules'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
