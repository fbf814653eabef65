"""Each kind of drift JAX makes lands in one place.

A rename is one entry in the API-facts table (plus its scanned releases); a keyword that goes
is one line of the scan's result; a new kind of drift is one rule module. Fakes of each are
added there, and nothing else is edited: the shim's namespaces, ``patch()``, ``doctor``,
``migrate`` and the report must all pick them up. This is how the next real drift lands.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import types
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import pallas_compat
from pallas_compat import rules
from pallas_compat._cli import main as compat_main
from pallas_compat.facts import _registry, _table
from pallas_compat.facts._table import PL, TPU, Feature, Location
from pallas_compat.lint import _finder
from pallas_compat.lint._migrate import migrate_source
from pallas_compat.rules import _use
from pallas_compat.rules._context import FindContext, Finding
from pallas_compat.shim import _namespaces
from pallas_compat.shim._errors import PallasCompatError
from pallas_compat.shim._patch import patch, unpatch
from pallas_compat.shim._resolve import find
from report._guide import ChangeKind, call_forms, name_change
from report._load import load_snapshot
from report._surface import Surface

REPO = Path(__file__).resolve().parent.parent

OLD = Location(TPU, "FAKE_ANY")  # "pltpu.FAKE_ANY, renamed pl.ANY in 0.4.34"
NEW = Location(PL, "ANY")
FAKE = Feature("fake_any", "a fake rename", (OLD, NEW), "pl.ANY", renamed=True)
SOURCE = "from jax.experimental.pallas import tpu as pltpu\nspace = pltpu.FAKE_ANY\n"


def caches() -> None:
    _namespaces.namespace.cache_clear()
    for name in ("pl", "pltpu", "pltriton", "plmgpu", "plgpu"):  # the package caches them too
        vars(pallas_compat).pop(name, None)
    _registry.reset()


@pytest.fixture
def fake_rename(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(_table, "FEATURES", (*_table.FEATURES, FAKE))
    names = _table.release_ranges()["names"]  # what a rescan would add
    names[f"{OLD.module}:{OLD.attr}"] = {
        "releases": [["0.4.30", "0.4.33"]],
        "message": None,
        "moved_to": None,
    }
    caches()
    try:
        yield
    finally:
        del names[f"{OLD.module}:{OLD.attr}"]
        caches()


def native_any() -> object:
    state, obj = find(NEW)
    return obj if state == "present" else None


def test_the_shim_serves_it(fake_rename: None) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if native_any() is None:
            with pytest.raises(PallasCompatError, match="FAKE_ANY"):
                _namespaces.namespace("pltpu").FAKE_ANY  # noqa: B018
            return
        assert _namespaces.namespace("pltpu").FAKE_ANY is native_any()
    assert any(
        "pltpu.FAKE_ANY" in str(w.message) and "Write: pl.ANY" in str(w.message) for w in caught
    )


def test_patch_installs_it(fake_rename: None) -> None:
    import jax.experimental.pallas.tpu as tpu

    patch()
    try:
        assert getattr(tpu, "FAKE_ANY", None) is native_any()
    finally:
        unpatch()
    assert not hasattr(tpu, "FAKE_ANY")


def test_doctor_and_migrate_follow_it(fake_rename: None) -> None:
    (use,) = _finder.uses_in("fake.py", SOURCE)
    assert use.api == "pltpu.FAKE_ANY" and use.breaks_on("0.12.0.1") and not use.breaks_on("0.4.30")
    out = migrate_source(SOURCE, "0.12.0.1")
    assert "space = pl.ANY\n" in out and "from jax.experimental import pallas as pl" in out
    assert migrate_source(SOURCE, "0.4.30") == SOURCE


def surface(*releases: str) -> Surface:
    """The report's view of every release, over what the fixtures put in the table."""
    return Surface(tuple(load_snapshot(SNAPSHOTS / f"jax-{r}.json") for r in releases))


def test_the_upgrade_guide_says_what_to_write(fake_rename: None) -> None:
    found = surface("0.4.30", "0.12.0.1")  # 0.12.0.1 has pl.ANY
    change = name_change(OLD.module, OLD.attr, "0.4.30", "0.12.0.1", found, None)
    assert change.kind is ChangeKind.RENAMED and change.instead == "pl.ANY"
    assert change.shim is True and change.migrate is True


# -- a rename of a class the table already has: pltpu.CompilerParams -> pltpu.MosaicParams

PARAMS = _table.FEATURES_BY_KEY["tpu_compiler_params"]
MOSAIC = Location(TPU, "MosaicParams")
RENAMED_PARAMS = dataclasses.replace(PARAMS, locations=(*PARAMS.locations, MOSAIC))
SNAPSHOTS = REPO / "reports" / "snapshots"


@pytest.fixture
def params_renamed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The table entry, and what a rescan would record: ``CompilerParams`` up to 0.12.0,
    ``MosaicParams`` in 0.12.0.1."""
    features = tuple(RENAMED_PARAMS if f.key == PARAMS.key else f for f in _table.FEATURES)
    monkeypatch.setattr(_table, "FEATURES", features)
    monkeypatch.setitem(_table.FEATURES_BY_KEY, PARAMS.key, RENAMED_PARAMS)
    locations = _table.release_ranges()["locations"]
    saved = copy.deepcopy(locations)
    locations[f"{TPU}:CompilerParams"] = [["0.6.2", "0.12.0"]]
    locations[f"{TPU}:MosaicParams"] = [["0.12.0.1", "0.12.0.1"]]
    caches()
    try:
        yield
    finally:
        locations.clear()
        locations.update(saved)
        caches()


def test_doctor_advises_the_new_name(params_renamed: None) -> None:
    source = (
        "from jax.experimental import pallas as pl\n"
        "from jax.experimental.pallas import tpu as pltpu\n"
        "a = pltpu.TPUCompilerParams(dimension_semantics=('parallel',))\n"
        "b = pltpu.CompilerParams(vmem_limit_bytes=1)\n"
        "c = pl.pallas_call(k, out_shape=s, compiler_params={'mosaic': {'vmem_limit_bytes': 1}})\n"
    )
    uses = _finder.uses_in("k.py", source)
    old, current, mapping = (u for u in uses if u.code in ("PAL101", "PAL204"))
    assert old.hint.startswith("pltpu.MosaicParams(dimension_semantics=")
    assert current.api == "pltpu.CompilerParams" and current.breaks_on("0.12.0.1")
    assert current.hint == old.hint and not current.breaks_on("0.12.0")
    assert mapping.hint.startswith("compiler_params=pltpu.MosaicParams(...)")


def test_migrate_writes_the_new_name(params_renamed: None) -> None:
    source = "from jax.experimental.pallas import tpu as pltpu\nb = pltpu.CompilerParams(x=1)\n"
    out = migrate_source(source, "0.12.0.1")
    assert "b = pltpu.MosaicParams(x=1)" in out
    assert migrate_source(source, "0.12.0") == source


def test_the_shim_and_patch_serve_the_new_name(params_renamed: None) -> None:
    """The new name makes what the old one makes, on every release (0.4.30's is the shim's
    stand-in for the dict form)."""
    import jax.experimental.pallas.tpu as tpu

    shim = _namespaces.namespace("pltpu")
    made = type(shim.CompilerParams(vmem_limit_bytes=1))
    assert type(shim.MosaicParams(vmem_limit_bytes=1)) is made
    patch()
    try:
        assert type(tpu.MosaicParams(vmem_limit_bytes=1)) is made
    finally:
        unpatch()
    assert not hasattr(tpu, "MosaicParams")


def test_the_guide_says_to_write_the_new_name(params_renamed: None) -> None:
    found = surface("0.6.2", "0.12.0.1")  # the fixture's rescan: MosaicParams in 0.12.0.1
    change = name_change(TPU, "CompilerParams", "0.6.2", "0.12.0.1", found, None)
    assert change.kind is ChangeKind.RENAMED and change.instead == "pltpu.MosaicParams"
    assert change.migrate is True


# -- a keyword that goes: pallas_call(fake_flag=...), taken up to 0.9.0


@pytest.fixture
def keyword_removed() -> Iterator[None]:
    ranges = _table.release_ranges()
    spans = [["0.4.30", "0.9.0"]]
    ranges["keywords"][f"{PL}:pallas_call"]["fake_flag"] = spans
    try:
        yield
    finally:
        del ranges["keywords"][f"{PL}:pallas_call"]["fake_flag"]


KEYWORD_SOURCE = (
    "from jax.experimental import pallas as pl\n"
    "f = pl.pallas_call(kernel, out_shape=shape, fake_flag=True)\n"
)


def test_doctor_and_migrate_follow_a_keyword_that_went(keyword_removed: None) -> None:
    (use,) = _finder.uses_in("k.py", KEYWORD_SOURCE)
    assert use.code == "PAL207" and use.api == "pallas_call(fake_flag=...)"
    assert use.breaks_on("0.12.0.1") and not use.breaks_on("0.9.0")
    assert "exists in JAX 0.4.30-0.9.0" in use.hint
    out = migrate_source(KEYWORD_SOURCE, "0.12.0.1")
    assert "# pallas-compat: pl.pallas_call(fake_flag=...) is not taken by JAX 0.12.0.1" in out


def test_the_guide_lists_a_keyword_that_went(keyword_removed: None) -> None:
    found = surface("0.8.3", "0.9.2", "0.12.0.1")
    gone = call_forms("0.9.2", "0.12.0.1", found, None)
    assert not [c for c in gone if "fake_flag" in c.subject]  # gone before 0.9.2
    (change,) = [
        c for c in call_forms("0.8.3", "0.12.0.1", found, None) if "fake_flag" in c.subject
    ]
    assert change.subject == "pallas_call(fake_flag=...)" and change.migrate is False


def test_the_shim_refuses_a_keyword_the_release_lacks(keyword_removed: None) -> None:
    """Dropping an unknown keyword could change results: the shim says so, naming it."""
    import jax
    import jax.numpy as jnp

    from pallas_compat.shim._errors import RefusedArgumentError

    shape = jax.ShapeDtypeStruct((8,), jnp.float32)
    with pytest.raises(RefusedArgumentError, match="fake_flag"):
        pallas_compat.pl.pallas_call(lambda x, o: None, out_shape=shape, fake_flag=True)


# -- a new kind of drift: one rule module


def fake_rule_module() -> types.ModuleType:
    """``pl.fake_op(x)``, which a fake release renamed ``pl.new_op(x)``: found and rewritten."""
    module = types.ModuleType("pallas_compat.rules.fake_op")
    module.__doc__ = "PAL399 fake-op: pl.fake_op, renamed pl.new_op."
    example = rules.Example(
        "from jax.experimental import pallas as pl\ny = pl.fake_op(x)\n",
        "from jax.experimental import pallas as pl\ny = pl.new_op(x)\n",
    )
    module.RULE = rules.Rule(
        "PAL399", "fake-op", "pl.fake_op, renamed pl.new_op", rules.Fix.REWRITES, example
    )

    def find_call(f: FindContext, node: ast.Call) -> Any:
        if f"{PL}.fake_op" not in f.qualified(node.func):
            return None
        use = _use.use_at(f, node, "pl.fake_op", [["0.4.30", "0.9.0"]], "pl.new_op(x)")
        return Finding(use, node.func, lambda m: m.replace(node.func, f"{m.alias_for(PL)}.new_op"))

    module.find_call = find_call
    return module


@pytest.fixture
def new_rule(monkeypatch: pytest.MonkeyPatch) -> Iterator[rules.Rule]:
    module = fake_rule_module()
    monkeypatch.setattr(rules, "MODULES", (*rules.MODULES, module))
    monkeypatch.setattr(rules, "RULES", (*rules.RULES, module.RULE))
    monkeypatch.setitem(rules.RULES_BY_CODE, module.RULE.code, module.RULE)
    monkeypatch.setitem(rules.RULES_BY_NAME, module.RULE.name, module.RULE)
    yield module.RULE


def test_a_new_rule_reaches_doctor_migrate_and_the_rules_list(
    new_rule: rules.Rule, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "k.py"
    path.write_text("from jax.experimental import pallas as pl\ny = pl.fake_op(x)\n")
    assert compat_main(["doctor", str(path), "--target", "0.12.0.1"]) == 1
    out = capsys.readouterr().out
    assert "k.py:2:5: PAL399 pl.fake_op (works in JAX 0.4.30-0.9.0; breaks on 0.12.0.1)" in out
    assert compat_main(["doctor", str(path), "--target", "0.12.0.1", "--ignore", "fake-op"]) == 0
    capsys.readouterr()
    assert compat_main(["migrate", str(path), "--target", "0.12.0.1", "--write"]) == 0
    assert path.read_text().endswith("y = pl.new_op(x)\n")
    assert compat_main(["rules"]) == 0
    assert "PAL399  fake-op" in capsys.readouterr().out
