"""The imports ``migrate`` reads and tidies: none added twice, none left unused by a rewrite."""

from __future__ import annotations

import ast
import sys

import pytest

from pallas_compat.lint._imports import module_bindings, name_reads
from pallas_compat.lint._migrate import Migration, migrate_source

REPEAT = """\
import jax.numpy as jnp
from jax.experimental.pallas import tpu as pltpu

def kernel(x_ref, o_ref):
    o_ref[...] = pltpu.repeat(x_ref[...], 2, 1)
"""


def migrated(source: str, target: str = "0.12.0.1") -> str:
    return migrate_source(source, target)


def test_an_import_the_rewrite_made_unused_goes() -> None:
    out = migrated(REPEAT)
    assert "jnp.concatenate([x_ref[...]] * 2, axis=1)" in out
    assert "pltpu" not in out  # its only use was the repeat


def test_the_migrations_text_drops_it_too() -> None:
    """``Migration.code`` answers with the text the tidy read, unless the tidy dropped an
    import: then the text of the tidied module."""
    migration = Migration(REPEAT)
    assert migration.code("0.12.0.1") == migrated(REPEAT)
    assert "pltpu" not in migration.code("0.12.0.1")


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
    module = ast.parse(
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


#: One use of ``pltpu`` in each way Python writes a name: with the repeat rewritten away, the
#: import stays for it.
NAME_FORMS = [
    "@pltpu.when\ndef f():\n    pass\n",
    "def f(a=pltpu):\n    pass\n",
    "def f(a: pltpu.T):\n    pass\n",
    "g = lambda: pltpu\n",
    "g = [pltpu for _ in range(2)]\n",
    'g = f"{pltpu!r}"\n',
    'g = f"{x:{pltpu}}"\n',
    "f(o=pltpu)\n",
    "class Box(pltpu.Base):\n    pass\n",
    "x: pltpu.T = 1\n",
    "if (w := pltpu):\n    pass\n",
    "match v:\n    case pltpu.Block():\n        pass\n",
    "def f():\n    global pltpu\n",
    "def f(pltpu):\n    pass\n",  # a parameter of the name: conservatively kept
]


@pytest.mark.parametrize("form", NAME_FORMS)
def test_a_name_written_in_any_form_keeps_its_import(form: str) -> None:
    out = migrated(REPEAT + form)
    assert "from jax.experimental.pallas import tpu as pltpu\n" in out, out


def test_an_attribute_of_that_name_is_no_use_of_it() -> None:
    out = migrated(REPEAT + "g = x.pltpu\n")
    assert "import tpu as pltpu" not in out


def test_every_name_form_is_counted() -> None:
    source = (
        "@d\ndef f(a, *b, c=None, **e) -> None:\n    global g\n"
        "match v:\n    case C(k=[*r, True]) | {'x': 1, **m} | (z as w):\n        pass\n"
    )
    counted = name_reads(ast.parse(source))
    for name in ("d", "f", "a", "b", "c", "e", "g", "v", "C", "k", "r", "m", "z", "w"):
        assert counted[name] >= 1, name
    assert counted["None"] == 2 and counted["True"] == 1


@pytest.mark.skipif(sys.version_info < (3, 12), reason="type parameters are Python 3.12 syntax")
def test_type_parameters_count_as_names() -> None:
    source = "type Pair[T, *Ts, **P] = tuple[T, T]\ndef f[K](k: K) -> K: ...\n"
    counted = name_reads(ast.parse(source))
    assert counted["Ts"] == 1 and counted["P"] == 1 and counted["K"] == 3 and counted["T"] == 3
