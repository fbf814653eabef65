"""scripts/scan_releases.py: what it reads from a release's sources, on small source trees
written here in the shapes JAX's own files have (a ``_deprecations`` table inside ``if
TYPE_CHECKING: ... else:``, a recorder annotation, ``dataclasses.replace`` of a spec)."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import scan_releases as scan  # noqa: E402


def tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return tmp_path


INIT_0_7_1 = """\
from typing import TYPE_CHECKING
from jax._src.pallas.core import BlockSpec as BlockSpec
from jax._src.pallas.primitives import load as _deprecated_load

if TYPE_CHECKING:
  load = _deprecated_load
else:
  from jax._src.deprecations import deprecation_getattr as _deprecation_getattr
  _deprecations = {
      "load": ("pl.load is deprecated, use ref[idx].", _deprecated_load),
      "dot": ("pl.dot was removed.", None),
  }
  __getattr__ = _deprecation_getattr(__name__, _deprecations)
"""


def test_a_deprecation_table_in_an_else_branch_says_deprecated_and_removed(
    tmp_path: Path,
) -> None:
    root = tree(tmp_path, {"jax/experimental/pallas/__init__.py": INIT_0_7_1})
    names = scan.top_level_names(root, "jax.experimental.pallas")
    assert names["BlockSpec"] == scan.PRESENT
    assert names["load"] == scan.DEPRECATED  # the table's verdict stands over the if branch
    assert names["dot"] == scan.REMOVED
    assert "_deprecation_getattr" not in names  # the else branch's helpers are not names
    assert scan.works(names["load"]) and not scan.works(names["dot"])


#: JAX 0.12's shape: the table at top level first, the type checkers' bindings after it.
INIT_0_12 = """\
import typing
from jax._src.pallas.primitives import DeviceIdType as _deprecated_DeviceIdType

_deprecations = {
    "DeviceIdType": ("pl.DeviceIdType is deprecated.", _deprecated_DeviceIdType),
    "dot": ("pl.dot was removed in JAX v0.12.0.", None),
}

if typing.TYPE_CHECKING:
  DeviceIdType = _deprecated_DeviceIdType
else:
  from jax._src.deprecations import deprecation_getattr as _deprecation_getattr
  __getattr__ = _deprecation_getattr(__name__, _deprecations)
"""


def test_a_name_bound_for_type_checkers_after_the_table_is_still_deprecated(
    tmp_path: Path,
) -> None:
    root = tree(tmp_path, {"jax/experimental/pallas/__init__.py": INIT_0_12})
    names = scan.top_level_names(root, "jax.experimental.pallas")
    assert names["DeviceIdType"] == scan.DEPRECATED
    assert names["dot"] == scan.REMOVED


def test_statements_descend_into_top_level_if_and_try() -> None:
    source = "try:\n  import a\nexcept ImportError:\n  a = None\nif x:\n  b = 1\nelse:\n  c = 2\n"
    found = [ast.unparse(s) for s in scan.statements(ast.parse(source))]
    assert found == ["import a", "b = 1"]


def test_deprecated_ranges_span_the_releases_that_warn() -> None:
    per_release = {
        v: {m: {} for m in (*scan.PUBLIC_MODULES, *scan.OTHER_MODULES)}
        for v in ("0.7.0", "0.7.1", "0.8.3", "0.9.0")
    }
    pl = "jax.experimental.pallas"
    per_release["0.7.0"][pl] = {"load": scan.PRESENT}
    per_release["0.7.1"][pl] = {"load": scan.DEPRECATED}
    per_release["0.8.3"][pl] = {"load": scan.DEPRECATED}
    per_release["0.9.0"][pl] = {"load": scan.REMOVED}
    table = scan.deprecated_ranges(list(per_release), per_release)
    assert table == {f"{pl}:load": [["0.7.1", "0.8.3"]]}


def test_ranges_close_at_a_gap() -> None:
    flags = [("a", True), ("b", True), ("c", False), ("d", True)]
    assert scan.ranges(flags) == [["a", "b"], ["d", "d"]]


RECORDER = """\
import dataclasses
from typing import Callable
import numpy as np

@dataclasses.dataclass(frozen=True)
class InterpretParams:
  grid_point_recorder: (
      Callable[[tuple[np.int32, ...], np.int32], None] | None
  ) = None
"""


def test_the_recorder_protocol_is_read_from_its_annotation(tmp_path: Path) -> None:
    modern = scan.FEATURES_BY_KEY["tpu_simulator"].modern
    file = modern.module.replace(".", "/") + ".py"
    root = tree(tmp_path, {file: RECORDER})
    assert scan.recorder_arguments(root) == 2
    with_token = RECORDER.replace("[[tuple", "[[object, tuple").replace("], None]", "], object]")
    assert scan.recorder_arguments(tree(tmp_path, {file: with_token})) == 3


@pytest.mark.parametrize(
    ("call", "rebuilds"),
    [
        ("dataclasses.replace(spec, memory_space=ms)", True),
        ("spec.replace(memory_space=ms)", True),
        ("BlockSpec(memory_space=ms)", False),
        ("dataclasses.replace(spec, block_shape=s)", False),
    ],
)
def test_a_spec_rebuilt_by_keyword_is_found(call: str, rebuilds: bool) -> None:
    assert scan.rebuilds_specs(ast.parse(f"def f(spec, ms, s):\n  return {call}\n")) is rebuilds


BLOCKED = """\
import dataclasses

class Blocked:
  pass

@dataclasses.dataclass(frozen=True)
class Sized:
  block_size: int
"""


@pytest.mark.parametrize(("cls", "is_mode"), [("Blocked", True), ("Sized", False)])
def test_blocked_is_a_mode_only_when_it_takes_no_argument(
    tmp_path: Path, cls: str, is_mode: bool
) -> None:
    root = tree(
        tmp_path,
        {
            "jax/_src/pallas/core.py": BLOCKED,
            "jax/experimental/pallas/__init__.py": (
                f"from jax._src.pallas.core import {cls} as Blocked\n"
            ),
        },
    )
    assert scan.blocked_is_a_mode(root) is is_mode


SIGNATURES = """\
import dataclasses

@dataclasses.dataclass
class Base:
  a: int
  LIMIT: int = 3

@dataclasses.dataclass
class Child(Base):
  b: int

def emit_pipeline(body, *, grid, should_accumulate_out=False):
  pass
"""


def test_parameters_follow_imports_and_inherited_fields(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "jax/_src/pallas/mosaic/pipeline.py": SIGNATURES,
            "jax/experimental/pallas/tpu.py": (
                "from jax._src.pallas.mosaic.pipeline import emit_pipeline as emit_pipeline\n"
                "from jax._src.pallas.mosaic.pipeline import Child as Child\n"
            ),
        },
    )
    tpu = "jax.experimental.pallas.tpu"
    emit = scan.definition(root, tpu, "emit_pipeline")
    child = scan.definition(root, tpu, "Child")
    assert emit is not None and child is not None
    assert scan.parameters(root, *emit) == {"body", "grid", "should_accumulate_out"}
    assert scan.parameters(root, *child) == {"a", "b"}  # constants are not fields


def test_a_keyword_that_went_while_its_callable_lived_is_listed() -> None:
    key = "jax.experimental.pallas.tpu:emit_pipeline"
    signatures = {
        "0.9.2": {key: {"body", "should_accumulate_out"}},
        "0.10.0": {key: {"body"}},
    }
    table = scan.keyword_ranges(list(signatures), signatures)
    assert table == {key: {"should_accumulate_out": [["0.9.2", "0.9.2"]]}}


def test_an_older_python_is_refused_in_one_line() -> None:
    if sys.version_info >= scan.NEEDS_PYTHON:
        code = "import sys; sys.version_info = (3, 11, 7); import runpy; runpy.run_path(sys.argv[1], run_name='__main__')"
    else:
        code = "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')"
    done = subprocess.run(
        [sys.executable, "-c", code, str(REPO / "scripts" / "scan_releases.py")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "needs Python 3.12+" in done.stderr


PARAMS_SOURCE = """
import dataclasses

@dataclasses.dataclass(frozen=True)
class MosaicParams:
    dimension_semantics: tuple = ()
    vmem_limit_bytes: int | None = None

@dataclasses.dataclass(frozen=True)
class UnrelatedCompilerParams:
    unrelated: int = 0
"""


def test_a_params_class_is_found_by_what_it_is_not_by_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fake release renames ``pltpu.CompilerParams`` to ``pltpu.MosaicParams``: with the
    table's new entry the scan follows the public name to its class and reads its fields; a
    class merely named ``...CompilerParams`` is never read."""
    import dataclasses

    from pallas_compat.facts import Location

    tpu = next(b for b in scan.BACKENDS if b.default)
    core = tmp_path / tpu.params_source
    core.parent.mkdir(parents=True)
    core.write_text(PARAMS_SOURCE)
    public = tmp_path / "jax/experimental/pallas/tpu.py"
    public.parent.mkdir(parents=True)
    module = tpu.params_source.removesuffix(".py").replace("/", ".")
    public.write_text(f"from {module} import MosaicParams\n")
    assert scan.param_fields(tmp_path) == {}  # the table knows no MosaicParams yet
    feature = scan.FEATURES_BY_KEY[tpu.feature]
    mosaic = Location("jax.experimental.pallas.tpu", "MosaicParams")
    renamed = dataclasses.replace(feature, locations=(*feature.locations, mosaic))
    monkeypatch.setitem(scan.FEATURES_BY_KEY, tpu.feature, renamed)
    assert scan.param_fields(tmp_path) == {tpu.key: {"dimension_semantics", "vmem_limit_bytes"}}
