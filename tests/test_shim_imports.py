"""kernels.corpus._shim_imports: the shim route changes the imports of what the shim serves,
in every spelling old code uses, and nothing else; the result imports on the installed JAX."""

from __future__ import annotations

import pytest

from kernels.corpus._shim_imports import shim_imports


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "from jax.experimental import pallas as pl\n",
            "from pallas_compat import pl as pl\n",
        ),
        (
            "import jax.experimental.pallas.tpu as pltpu\n",
            "from pallas_compat import pltpu as pltpu\n",
        ),
        (
            "from jax.experimental.pallas import tpu as pltpu  # TPU\n",
            "from pallas_compat import pltpu as pltpu  # TPU\n",
        ),
        (
            "from jax.experimental.pallas import BlockSpec, tpu\n",
            "from pallas_compat import pltpu as tpu\nfrom pallas_compat.pl import BlockSpec\n",
        ),
        ("from jax.experimental.pallas import *\n", "from pallas_compat.pl import *\n"),
        ("from jax import util as jax_util\n", "from pallas_compat import jax_util as jax_util\n"),
        (
            "from jax._src.lax.control_flow.for_loop import for_loop\n",
            "from pallas_compat.for_loop import for_loop\n",
        ),
        (
            "from jax._src import dtypes, prng\n",
            "from pallas_compat import dtypes as dtypes, prng as prng\n",
        ),
    ],
)
def test_each_spelling_becomes_the_shims(old: str, new: str) -> None:
    assert shim_imports(old) == new


@pytest.mark.parametrize(
    "kept",
    [
        "import jax.experimental.pallas\n",  # binds jax, whose attribute chain stays JAX's
        "from jax.experimental.pallas.ops.tpu import flash_attention\n",
        "from jax import numpy as jnp, lax\n",
        "from . import pallas\n",
    ],
)
def test_what_the_shim_does_not_serve_stays(kept: str) -> None:
    assert shim_imports(kept) == kept


def test_every_rewritten_import_runs_on_the_installed_jax() -> None:
    source = "".join(
        [
            "from jax.experimental.pallas import BlockSpec, tpu\n",
            "from jax.experimental.pallas import *\n",
            "from jax import util as jax_util\n",
            "from jax._src.lax.control_flow.for_loop import for_loop\n",
            "from jax._src import dtypes, prng\n",
        ]
    )
    namespace: dict[str, object] = {}
    exec(shim_imports(source), namespace)
    assert {"BlockSpec", "tpu", "pallas_call", "jax_util", "for_loop", "dtypes", "prng"} <= set(
        namespace
    )
