"""migrate on the in-kernel ``for_loop`` of real kernels: fjformer's norms import the function,
recurrentgemma's LRU scan imports the module; both get the local ``for_loop`` (that they then
run is tests/test_thirdparty.py's migrate route)."""

from __future__ import annotations

import ast

import pytest

from pallas_compat.lint._migrate import migrate_source
from pallas_compat.rules import for_loop
from tests.third_party import real_file

IMPORTS = "jax._src.lax.control_flow"
#: The for-loop rule alone.
FOR_LOOP = frozenset({for_loop.RULE.code})


@pytest.mark.any_release
@pytest.mark.parametrize(
    ("library", "file", "call"),
    [
        ("fjformer", "pallas_operations/gpu/rms_norm/rms_norm.py", "for_loop(pl.cdiv("),
        ("recurrentgemma", "jax/pallas.py", "for_loop(  # pytype"),
    ],
)
def test_a_real_kernel_gets_a_local_for_loop_and_loses_the_import(
    library: str, file: str, call: str
) -> None:
    source = real_file(library, file).read_text()
    migrated = migrate_source(source, "0.12.0.1")
    tree = ast.parse(migrated)
    imported = [
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(IMPORTS)
    ]
    assert not imported
    defined = [n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)]
    assert defined.count("for_loop") == 1 and defined.count("_RefBox") == 1
    assert call in migrated and "for_loop.for_loop(" not in migrated
    assert migrate_source(migrated, "0.12.0.1") == migrated  # once


def test_nothing_changes_where_the_target_still_has_for_loop() -> None:
    source = real_file("recurrentgemma", "jax/pallas.py").read_text()
    assert migrate_source(source, "0.6.2", FOR_LOOP) == source


def test_a_module_that_binds_for_loop_itself_is_left_for_a_person() -> None:
    source = (
        "from jax._src.lax.control_flow.for_loop import for_loop as old\n"
        "def for_loop(n, body, init):\n    return old(n, body, init)\n"
    )
    assert migrate_source(source, "0.12.0.1", FOR_LOOP) == source


def test_the_written_helper_takes_no_annotation_and_no_module_import() -> None:
    """A user's module need not import what the shim's copy is annotated with."""
    source = "from jax._src.lax.control_flow.for_loop import for_loop\nx = for_loop(1, f, 0)\n"
    migrated = migrate_source(source, "0.12.0.1", FOR_LOOP)
    tree = ast.parse(migrated)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            assert node.returns is None
            assert all(a.annotation is None for a in node.args.args + node.args.kwonlyargs)
    assert not [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    assert "reverse=False" in migrated and "unroll=1" in migrated
