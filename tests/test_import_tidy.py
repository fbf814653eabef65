"""The imports ``migrate`` reads and tidies: none added twice, none left unused by a rewrite."""

from __future__ import annotations

import sys
from pathlib import Path

import libcst as cst
import pytest

from pallas_compat.lint._import_tidy import module_bindings, name_uses, text_name_uses
from pallas_compat.lint._migrate import Migration, migrate_module

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


def test_the_migrations_text_drops_it_too() -> None:
    """``Migration.code`` answers with the text the tidy read, unless the tidy dropped an
    import: then the text of the tidied module."""
    migration = Migration(cst.parse_module(REPEAT))
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


#: Every place libcst keeps an identifier as a ``Name`` (``NameUses`` counts each) that
#: ``ast`` keeps as a string, or as a constant.
EVERY_NAME_FORM = """\
import jax.numpy as jnp
from jax.experimental import pallas as pl

@pl.when
def kernel(x_ref, *args, o_ref=None, **kwargs) -> None:
    global jnp
    lam = lambda pl, *a, **k: pl
    total = [jnp for jnp in x_ref if jnp is not None and (w := True) or False]
    message = f"{jnp.float32!r} {total=} {x_ref:{pl}}"
    try:
        kernel(x_ref, o_ref=jnp, **kwargs)
    except ValueError as pl:
        del pl

    def inner():
        nonlocal total

    class Box(jnp.ndarray, metaclass=pl.Meta):
        jnp: int = pl.x
    with open(message) as (jnp, pl):
        pass
    match x_ref:
        case pl.Block(jnp=[*rest, None], pl=True) | {"k": 1, **more}:
            pass
        case False | pl as jnp:
            pass
"""


def real_sources() -> list[Path]:
    return sorted((Path(__file__).parent / "fixtures" / "real").rglob("*.py"))


@pytest.mark.parametrize("source", [EVERY_NAME_FORM, *(p.read_text() for p in real_sources())])
def test_the_text_count_of_names_is_libcsts(source: str) -> None:
    """migrate counts the names a migrated module reads from its text with ``ast`` (a tenth
    of libcst's walk): it must count what ``NameUses`` counts, name by name."""
    assert text_name_uses(source) == name_uses(cst.parse_module(source))


@pytest.mark.skipif(sys.version_info < (3, 12), reason="type parameters are Python 3.12 syntax")
def test_type_parameters_count_as_names() -> None:
    source = "type Pair[T, *Ts, **P] = tuple[T, T]\ndef f[K](k: K) -> K: ...\n"
    assert text_name_uses(source) == name_uses(cst.parse_module(source))


def test_a_text_this_python_cannot_read_has_no_text_count() -> None:
    assert text_name_uses("x = 1\0") is None
