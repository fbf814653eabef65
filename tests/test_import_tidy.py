"""The imports ``migrate`` reads and tidies: none added twice, none left unused by a rewrite."""

from __future__ import annotations

import libcst as cst

from pallas_compat._import_tidy import module_bindings
from pallas_compat._migrate import migrate_module

REPEAT = """\
import jax.numpy as jnp
from jax.experimental.pallas import tpu as pltpu

def kernel(x_ref, o_ref):
    o_ref[...] = pltpu.repeat(x_ref[...], 2, 1)
"""


def migrated(source: str, target: str = "0.12.0.1") -> str:
    return migrate_module(cst.parse_module(source), target).code


def test_an_import_the_rewrite_made_unused_goes() -> None:
    out = migrated(REPEAT)
    assert "jnp.concatenate([x_ref[...]] * 2, axis=1)" in out
    assert "pltpu" not in out  # its only use was the repeat


def test_an_import_unused_before_stays() -> None:
    source = "import os\n" + REPEAT
    assert migrated(source).startswith("import os\n")


def test_an_import_still_used_stays() -> None:
    source = REPEAT + "space = pltpu.VMEM((8,), jnp.float32)\n"
    assert "from jax.experimental.pallas import tpu as pltpu\n" in migrated(source)


def test_a_use_before_the_import_gets_no_second_import() -> None:
    """``jnp`` is bound below the function that needs it: the rewrite uses that binding."""
    source = (
        "from jax.experimental.pallas import tpu as pltpu\n\n"
        "def kernel(x_ref, o_ref):\n"
        "    o_ref[...] = pltpu.repeat(x_ref[...], 2, 1)\n\n"
        "import jax.numpy as jnp\n"
    )
    out = migrated(source)
    assert out.count("jnp") == 2 and out.count("import") == 1, out


def test_bindings_of_every_import_form() -> None:
    module = cst.parse_module(
        "import jax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n"
        "from jax.experimental.pallas import tpu\nif True:\n    import numpy as np\n"
        "def f():\n    import scipy as sp\n"
    )
    assert module_bindings(module) == {
        "jax": "jax",
        "jax.numpy": "jnp",
        "jax.experimental.pallas": "pl",
        "jax.experimental.pallas.tpu": "tpu",
        "numpy": "np",
    }
