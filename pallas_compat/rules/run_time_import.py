"""PAL105 run-time-import: a Pallas module imported by name at run time
(``importlib.import_module("jax.experimental.pallas")``), whose uses no reading of the source
can follow: doctor says so per file rather than stay silent."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from pallas_compat.rules._context import FindContext
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import Use

RULE = Rule(
    "PAL105",
    "run-time-import",
    "a Pallas module imported by name at run time: its uses cannot be checked",
    Fix.NONE,
    Example(
        before="""\
import importlib

pltpu = importlib.import_module("jax.experimental.pallas.tpu")
""",
    ),
)
API = "importlib.import_module({!r})"
HINT = (
    "doctor and migrate cannot follow a module imported by name at run time: import it by "
    "name (from jax.experimental import pallas as pl) so that its uses are checked"
)


def find_module(f: FindContext, node: ast.Module) -> Iterator[Use]:
    if f.expansions is None:  # the dispatcher reads them first, on visit_Module
        return
    for line, column, module in f.expansions.opaque:
        yield Use(f.path, line, column, API.format(module), (), HINT, False)
