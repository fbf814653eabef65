"""patch(): unmodified old-style code runs on any JAX; unpatch() gives JAX back exactly."""

from __future__ import annotations

import contextlib
import importlib
import json
import subprocess
import sys
import types
import warnings
from collections.abc import Callable
from pathlib import Path

import jax
import numpy as np
import pytest

import pallas_compat
from pallas_compat.facts import NAMESPACE_OF
from pallas_compat.shim import _patch, _resolve, _warnings
from pallas_compat.shim._errors import MissingFeatureError
from pallas_compat.shim._module_like import Namespace

#: Every module ``patch()`` may touch, written out here (not taken from the code under test):
#: the Pallas modules, Mosaic GPU, the modules outside Pallas old kernels import, their parents.
MODULES = (
    "jax",
    "jax._src",
    "jax._src.util",
    "jax._src.dtypes",
    "jax._src.prng",
    "jax._src.lax.control_flow",
    "jax._src.lax.control_flow.for_loop",
    "jax.util",
    "jax.experimental.pallas",
    "jax.experimental.pallas.tpu",
    "jax.experimental.pallas.triton",
    "jax.experimental.pallas.gpu",
    "jax.experimental.pallas.mosaic_gpu",
)
RNG = np.random.default_rng(1)


def state() -> dict[str, object]:
    """Every attribute (by identity, ``__getattr__`` included) of every module ``patch()`` may
    touch and of ``jax.stages.Compiled``, which of the modules are imported, and the import
    system's finders."""
    seen: dict[str, object] = {
        "sys.modules": {m: id(sys.modules[m]) for m in MODULES if m in sys.modules},
        "sys.meta_path": [id(finder) for finder in sys.meta_path],
        "Compiled": {k: id(v) for k, v in vars(jax.stages.Compiled).items()},
    }
    for name in MODULES:
        module = sys.modules.get(name)
        if isinstance(module, types.ModuleType):
            seen[name] = {k: id(v) for k, v in vars(module).items()}
    return seen


def fresh_old_style() -> types.ModuleType:
    sys.modules.pop("tests.fixtures.old_style", None)
    return importlib.import_module("tests.fixtures.old_style")


def import_every_module() -> None:
    """What this release has of ``MODULES``, imported (so that ``patch()`` fills each)."""
    import warnings

    for name in MODULES:
        # not on this release (or, Mosaic GPU, not in its jaxlib): nothing to import
        with warnings.catch_warnings(), contextlib.suppress(ImportError):
            warnings.simplefilter("ignore", DeprecationWarning)  # 0.4.33-0.6.0's pallas.gpu
            importlib.import_module(name)


@pytest.fixture
def patched():
    import_every_module()
    before = state()
    pallas_compat.patch()
    try:
        yield before
    finally:
        pallas_compat.unpatch()
        sys.modules.pop("tests.fixtures.old_style", None)


@pytest.mark.filterwarnings("ignore::pallas_compat.PallasCompatDeprecationWarning")
def test_old_style_module_runs_under_patch(patched: object) -> None:
    old = fresh_old_style()
    x = RNG.standard_normal(32).astype(np.float32)
    out = np.asarray(old.masked_scale(x, n=27), np.float64)
    np.testing.assert_allclose(out[:27], 3.0 * x[:27].astype(np.float64), rtol=1e-6)

    a = RNG.standard_normal((16, 24)).astype(np.float32)
    b = RNG.standard_normal((24, 16)).astype(np.float32)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(np.asarray(old.matmul(a, b), np.float64), want, rtol=1e-5, atol=1e-5)


def test_patch_is_idempotent_and_unpatch_restores_exactly(patched: dict[str, object]) -> None:
    pallas_compat.patch()
    pallas_compat.unpatch()
    assert state() == patched
    pallas_compat.unpatch()
    assert state() == patched


AFTER_UNPATCH = """
import importlib, json, sys, warnings
import pallas_compat
MODULES = {modules!r}
if {patch}:
    pallas_compat.patch(warn=False)
for name in MODULES:  # imported while patched: the hook fills each as it comes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            importlib.import_module(name)
        except ImportError:
            pass
pallas_compat.unpatch()
seen = {{}}
for name in MODULES:
    module = sys.modules.get(name)
    if module is not None:
        seen[name] = sorted(
            f"{{k}}: {{type(v).__module__.split('.')[0]}}" for k, v in vars(module).items()
        )
print(json.dumps(seen))
"""


def test_what_the_hook_filled_on_import_unpatch_takes_out() -> None:
    """Modules first imported while patched get their fills from the hook; after ``unpatch()``
    every module holds the names, and kinds of object, of a process that never patched."""

    def modules_after(patch: bool) -> dict[str, list[str]]:
        script = AFTER_UNPATCH.format(modules=MODULES, patch=patch)
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, stdin=subprocess.DEVNULL
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)  # type: ignore[no-any-return]

    assert modules_after(patch=True) == modules_after(patch=False)


def test_patch_warns_once_per_back_fill(patched: object) -> None:
    from pallas_compat.shim._warnings import forget_warnings

    forget_warnings()
    old = fresh_old_style()
    x = np.ones(16, np.float32)
    with pytest.warns(pallas_compat.PallasCompatDeprecationWarning):
        old.masked_scale(x, n=16)
    with _no_warning():  # once per back-fill: the second call says nothing
        old.masked_scale(x, n=16)


class _no_warning:
    """Asserts that a block emits no PallasCompatDeprecationWarning."""

    def __enter__(self) -> None:
        import warnings

        self._catch = warnings.catch_warnings(record=True)
        self._seen = self._catch.__enter__()
        warnings.simplefilter("always")

    def __exit__(self, *exc: object) -> None:
        self._catch.__exit__(*exc)
        ours = [
            w
            for w in self._seen
            if issubclass(w.category, pallas_compat.PallasCompatDeprecationWarning)
        ]
        assert not ours, [str(w.message) for w in ours]


def test_old_style_module_needs_the_patch_on_this_jax() -> None:
    """Every release in the matrix breaks some part of the old module (0.4.30 lacks
    TPUCompilerParams; later ones lack ``f=``, dict params, ``pl.load``): the patch is what
    makes the test above pass."""
    old = fresh_old_style()
    failures = []
    for call in (
        lambda: old.masked_scale(np.ones(16, np.float32), n=10),
        lambda: old.matmul(np.ones((8, 8), np.float32), np.ones((8, 8), np.float32)),
    ):
        try:
            call()
        except (AttributeError, TypeError, ValueError) as exc:
            failures.append(exc)
    sys.modules.pop("tests.fixtures.old_style", None)
    assert failures


@pytest.mark.filterwarnings("ignore::pallas_compat.PallasCompatDeprecationWarning")
def test_old_gpu_module_spelling_under_patch(patched: object) -> None:
    """``jax.experimental.pallas.gpu`` (Triton, until 0.6.0) imports and has the params class."""
    gpu = importlib.import_module("jax.experimental.pallas.gpu")
    triton = importlib.import_module("jax.experimental.pallas.triton")
    assert gpu.TritonCompilerParams(num_warps=4) == triton.CompilerParams(num_warps=4)


def test_cost_analysis_indexed_as_the_old_list() -> None:
    """JAX 0.4.35's TPU flash attention builds its cost estimate from
    ``compiled.cost_analysis()[0]["flops"]``; newer JAX returns the dict itself."""
    compiled = jax.jit(lambda x: jax.numpy.sin(x) @ x).lower(np.ones((8, 8), np.float32)).compile()
    before = compiled.cost_analysis()
    pallas_compat.patch()
    try:
        cost = compiled.cost_analysis()
        first = cost[0] if isinstance(cost, list) else cost
        assert first["flops"] == cost[0]["flops"] > 0
    finally:
        pallas_compat.unpatch()
    assert type(compiled.cost_analysis()) is type(before)


OUTSIDE = ("jax.util", "jax._src.lax.control_flow.for_loop", "jax._src.prng")


def importable(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


@pytest.mark.parametrize("name", OUTSIDE)
def test_a_module_outside_pallas_is_there_under_patch_and_as_before_after(name: str) -> None:
    """Old kernel files import these; a release that lacks one gets the shim's namespace in
    ``sys.modules``, and ``unpatch()`` takes it out again."""
    before = importable(name)
    pallas_compat.patch(warn=False)
    try:
        assert importable(name)
    finally:
        pallas_compat.unpatch()
    if not before:
        sys.modules.pop(name, None)  # what the failed import attempt may have left
    assert importable(name) is before


SOFTMAX = Path(__file__).parent / "fixtures" / "real" / "jax_0_4_30" / "softmax.py"
RUN_SOFTMAX = f"""
import importlib.util, sys, warnings
import numpy as np
import pallas_compat
{{filters}}
pallas_compat.patch({{warn}})
spec = importlib.util.spec_from_file_location("real_softmax", {str(SOFTMAX)!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
x = np.linspace(-3, 3, 300, dtype=np.float32).reshape(3, 100)
out = np.asarray(module.softmax(x, interpret=True), np.float64)
e = np.exp(x - x.max(axis=1, keepdims=True))
assert np.abs(out - e / e.sum(axis=1, keepdims=True)).max() < 1e-6
"""


def run_softmax(warn: str = "", filters: str = "") -> subprocess.CompletedProcess[str]:
    """The script under ``-W error``, as a suite run that way starts."""
    script = RUN_SOFTMAX.replace("{warn}", warn).replace("{filters}", filters)
    return subprocess.run(
        [sys.executable, "-W", "error", "-c", script],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )


def test_warnings_as_errors_with_patch_warn_false() -> None:
    """A suite run with ``-W error``: JAX 0.4.30's softmax (``pl.load`` with a mask, a dict of
    Triton params) runs under ``patch(warn=False)``, and under ``patch()`` once the shim's own
    category is filtered; unfiltered, the old spelling is the error, naming the category."""
    quiet = run_softmax(warn="warn=False")
    assert quiet.returncode == 0, quiet.stderr
    # what pytest's -W "ignore::pallas_compat.PallasCompatDeprecationWarning" installs
    ours = (
        "warnings.filterwarnings('ignore', category=pallas_compat.PallasCompatDeprecationWarning)"
    )
    filtered = run_softmax(filters=ours)
    assert filtered.returncode == 0, filtered.stderr
    loud = run_softmax()
    if loud.returncode != 0:  # this release lacks an old spelling the file uses
        assert "PallasCompatDeprecationWarning" in loud.stderr


def test_concurrent_patch_and_unpatch_install_once_and_restore_exactly() -> None:
    """Threads of a test runner may call ``patch()`` together: with the interpreter switching
    threads every microsecond, each round installs the one set of fills a lone call does, and
    concurrent ``unpatch()`` calls put every attribute back."""
    import threading

    import jax.experimental.pallas.tpu  # noqa: F401  (imported before the baseline)

    from pallas_compat.shim import _patch

    pallas_compat.namespace("pltriton")
    pallas_compat.patch(warn=False)
    alone = len(_patch._installed)
    pallas_compat.unpatch()
    before = state()

    def together(call: object) -> None:
        barrier = threading.Barrier(8)
        failures: list[BaseException] = []

        def run() -> None:
            barrier.wait()
            try:
                call()  # type: ignore[operator]
            except BaseException as exc:  # reported by the assert below
                failures.append(exc)

        threads = [threading.Thread(target=run) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(13):
            together(lambda: pallas_compat.patch(warn=False))
            assert len(_patch._installed) == alone
            together(pallas_compat.unpatch)
            assert state() == before
    finally:
        sys.setswitchinterval(interval)
        pallas_compat.unpatch()


def test_an_old_class_name_warns_where_it_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ``patch()`` an old spelling of a class (here a fake rename of ``pltpu.VMEM``,
    which every release has) warns once, at the user's line, not at ``patch()``'s."""
    import warnings

    import jax.experimental.pallas.tpu as tpu

    from pallas_compat.facts import _table
    from pallas_compat.facts._table import TPU, Feature, Location
    from pallas_compat.shim._warnings import forget_warnings
    from tests.test_one_table_entry import caches

    old, new = Location(TPU, "FAKE_VMEM"), Location(TPU, "VMEM")
    fake = Feature("fake_vmem", "a fake rename", (old, new), "{new}(shape, dtype)", renamed=True)
    monkeypatch.setattr(_table, "FEATURES", (*_table.FEATURES, fake))
    caches()
    forget_warnings()
    try:
        with warnings.catch_warnings(record=True) as at_install:
            warnings.simplefilter("always")
            pallas_compat.patch()
        assert not [w for w in at_install if "FAKE_VMEM" in str(w.message)]
        with pytest.warns(
            pallas_compat.PallasCompatDeprecationWarning, match="Write: pltpu.VMEM"
        ) as seen:
            served = tpu.FAKE_VMEM  # the use
        (warning,) = [w for w in seen if "FAKE_VMEM" in str(w.message)]
        assert warning.filename == __file__ and served is tpu.VMEM
        with _no_warning():
            assert tpu.FAKE_VMEM is tpu.VMEM  # once per name
    finally:
        pallas_compat.unpatch()
        caches()
    assert not hasattr(tpu, "FAKE_VMEM")


def test_patch_fills_mosaic_gpu_too() -> None:
    """``plgpu.GPUCompilerParams`` (the old name of ``plgpu.CompilerParams``) under ``patch()``
    wherever the Mosaic GPU module imports; where it does not, there is nowhere to put it."""
    import importlib
    import warnings

    from pallas_compat.shim._module_like import wrapped
    from pallas_compat.shim._namespaces import namespace

    space = namespace("plmgpu")
    target = wrapped(space)
    if target is None:
        with pytest.raises(Exception):  # noqa: B017 - any import error: the module is not there
            importlib.import_module("jax.experimental.pallas.mosaic_gpu")
        return
    pallas_compat.patch()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pallas_compat.PallasCompatDeprecationWarning)
            assert target.GPUCompilerParams is space.CompilerParams
    finally:
        pallas_compat.unpatch()


def test_a_second_patch_installs_the_same_and_its_old_names_still_warn() -> None:
    """Whether a name is old is asked of its fill each time, not of a warning the first
    ``patch()`` happened to capture: ``patch(); unpatch(); patch()`` is the first patch again."""
    import warnings

    import jax.experimental.pallas as native

    from pallas_compat.shim import _patch, _warnings

    def installed() -> tuple[list[tuple[str, str]], dict[str, list[str]]]:
        names = sorted((module.__name__, name) for module, name, _ in _patch._installed)
        old = {
            m: sorted(n for n, look_up in t.items() if hasattr(look_up, "old_spelling"))
            for m, t in _patch._on_lookup.items()
        }
        return names, old  # the old spellings (a module JAX dropped is served silently)

    try:
        pallas_compat.patch()
        first = installed()
        pallas_compat.unpatch()
        pallas_compat.patch()
        assert installed() == first
        for module, names in first[1].items():  # old spellings served on lookup (none on
            for name in names:  # releases that still have every old name: 0.4.30)
                _warnings.forget_warnings()
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    getattr(sys.modules[module], name)
                kinds = [type(w.message) for w in caught]
                assert pallas_compat.PallasCompatDeprecationWarning in kinds, (module, name)
    finally:
        pallas_compat.unpatch()
    assert native is sys.modules["jax.experimental.pallas"]


UNDER_W_ERROR = """
import importlib.util, json, sys
import pallas_compat
import jax.experimental.pallas
jax_has_it = importlib.util.find_spec("jax.experimental.pallas.gpu") is not None
before = set(sys.modules)
if {patch}:
    pallas_compat.patch()
imported = sorted(m for m in set(sys.modules) - before if m.partition(".")[0] in ("jax", "jaxlib"))
try:
    import jax.experimental.pallas.gpu as gpu
    outcome = type(gpu).__module__.split(".")[0] + " " + gpu.__name__
except Exception as exc:
    outcome = type(exc).__name__
print(json.dumps({{"jax_has_it": jax_has_it, "imported": imported, "outcome": outcome}}))
"""


def test_patch_imports_nothing_and_leaves_jax_own_warnings_to_jax() -> None:
    """Under ``-W error`` (JAX's own test configuration) ``patch()`` imports no JAX module, and
    importing ``pallas.gpu`` afterwards does what it does unpatched (0.4.33-0.6.0: JAX's own
    ``DeprecationWarning``, raised) wherever JAX has the module; where JAX lacks it, the shim's
    namespace serves it. (Before the hook, ``patch()`` imported it, read JAX's warning as
    "absent", and put the shim's namespace in its place.)"""

    def run(patch: bool) -> dict[str, object]:
        done = subprocess.run(
            [sys.executable, "-W", "error", "-c", UNDER_W_ERROR.format(patch=patch)],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)  # type: ignore[no-any-return]

    patched, native = run(patch=True), run(patch=False)
    assert patched["imported"] == []
    if native["jax_has_it"]:
        assert patched["outcome"] == native["outcome"]
    else:
        assert native["outcome"] == "ModuleNotFoundError"
        assert patched["outcome"] == "pallas_compat pallas_compat.pltriton"


@pytest.mark.parametrize("name", OUTSIDE)
def test_a_module_outside_pallas_is_an_attribute_of_its_parent_under_patch(name: str) -> None:
    """Old code also reaches these as attributes (``jax.util.safe_zip`` after ``import jax``),
    with no import of its own: where the release lacks one, ``patch()`` serves it there too."""
    parent_name, _, attr = name.rpartition(".")
    parent = importlib.import_module(parent_name)
    before = importable(name)
    if not before:
        sys.modules.pop(name, None)  # what the failed import attempt left
    pallas_compat.patch(warn=False)
    try:
        module = getattr(parent, attr)  # no import statement: the parent's attribute
        assert module.__name__ in (name, f"pallas_compat.{NAMESPACE_OF[name]}")
        with pytest.raises(AttributeError, match=f"has no attribute 'no_such_{attr}'"):
            getattr(parent, f"no_such_{attr}")
    finally:
        pallas_compat.unpatch()
    if not before:
        sys.modules.pop(name, None)
        assert attr not in vars(parent)  # unpatch takes the served module off its parent
    assert importable(name) is before


def test_warn_false_quiets_the_old_spellings_until_unpatch() -> None:
    """``patch(warn=False)`` silences the back-fills' warnings; ``unpatch()`` gives them back."""
    pallas_compat.patch(warn=False)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _warnings.warn_once("test-quiet-under-patch", "an old spelling")
        assert caught == []
    finally:
        pallas_compat.unpatch()
    with pytest.warns(pallas_compat.PallasCompatDeprecationWarning, match="an old spelling"):
        _warnings.warn_once("test-quiet-after-unpatch", "an old spelling")


def test_the_hook_runs_before_every_other_finder_and_leaves_with_unpatch() -> None:
    """JAX's modules must be filled as they are imported, whoever else finds modules."""
    pallas_compat.patch(warn=False)
    try:
        hook = sys.meta_path[0]
        assert type(hook).__name__ == "PatchFinder" and _patch.patched()
    finally:
        pallas_compat.unpatch()
    assert hook not in sys.meta_path and not _patch.patched()


def test_patch_before_jax_is_imported_installs_one_hook() -> None:
    """A ``sitecustomize`` calls ``patch()`` before the program imports any Pallas module:
    nothing is filled yet, and a second ``patch()`` must still see the first."""
    script = (
        "import sys, pallas_compat\n"
        "pallas_compat.patch(); pallas_compat.patch()\n"
        "hooks = [f for f in sys.meta_path if type(f).__name__ == 'PatchFinder']\n"
        "assert 'jax.experimental.pallas' not in sys.modules and len(hooks) == 1, hooks\n"
        "from jax.experimental.pallas import tpu\n"
        "assert tpu.CompilerParams and tpu.TPUCompilerParams\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, done.stderr


def test_a_fill_whose_building_would_import_is_installed_by_what_jax_has() -> None:
    """A fill whose building imports a module the program has not imported: an adapter of a
    name JAX has replaces JAX's object when ``patch()`` runs (a module's ``__getattr__`` never
    sees a name the module has); a name JAX lacks is built at its first lookup, and one that
    cannot be built there is JAX's own ``AttributeError``. No release of the matrix has such
    an adapter (each backend imported alone, on all ten), so stand-ins play JAX and the fills:
    the branch is for the next one."""
    target = types.ModuleType("stand_in_for_pallas")
    jax_own = target.BlockSpec = object()
    adapter, new = object(), object()
    built: list[str] = []

    def fill(name: str, value: object) -> Callable[[], object]:
        def build() -> object:
            built.append(name)
            # a module nobody imported: WouldImport while patch() holds imports, else None
            if _resolve.import_optional("stand_in_backend_never_imported") is None and not value:
                raise MissingFeatureError(f"{name}: not on this JAX")
            return value

        return build

    assert "BlockSpec" in _patch.adapters()
    space = Namespace(
        "stand_in_namespace",
        target,
        {"BlockSpec": fill("BlockSpec", adapter), "new": fill("new", new), "gone": fill("gone", 0)},
    )
    try:
        _patch.install_fills(space, target)
        assert vars(target)["BlockSpec"] is adapter
        assert "new" not in vars(target) and "gone" not in vars(target)
        assert built.count("new") == 1  # tried once while imports were held, not built
        assert target.new is new
        assert built.count("new") > 1
        with pytest.raises(AttributeError, match="has no attribute 'gone'"):
            _ = target.gone
    finally:
        _patch.unpatch()
    assert target.BlockSpec is jax_own
    assert "__getattr__" not in vars(target)


def test_old_spellings_warn_where_used_a_class_when_looked_up_a_function_when_called() -> None:
    """Under ``patch()`` each old spelling of a class warns once, at the line that looks it up,
    and of a function where it is called, whether its fill is built when ``patch()`` runs or,
    where building would import, at its first lookup (as above); a name JAX has is left to JAX,
    one this JAX cannot have stays absent, and the fills after either still go in. Stand-ins
    play JAX and the fills."""
    from pallas_compat.shim._fills import backfilled

    class OldClass:
        pass

    class OlderClass:
        pass

    class LateClass:
        pass

    def old_class(cls: type) -> Callable[[], object]:
        def build() -> object:
            _warnings.warn_once(f"stand-in.{cls.__name__}", f"{cls.__name__} is old")
            return cls

        return build

    def importing(build: Callable[[], object]) -> Callable[[], object]:
        def build_importing() -> object:
            _resolve.import_optional("stand_in_backend_never_imported")  # held: WouldImport
            return build()

        return build_importing

    target = types.ModuleType("stand_in_for_pallas")
    target.native = "JAX's own"

    def unavailable() -> object:
        raise MissingFeatureError("unavailable: not on this JAX")

    fills = {
        "native": lambda: "the shim's",
        "unavailable": unavailable,
        "OldClass": old_class(OldClass),
        "OlderClass": old_class(OlderClass),
        "old_function": lambda: backfilled("old_function", len, "len"),
        "LateClass": importing(old_class(LateClass)),
        "late_function": importing(lambda: backfilled("late_function", abs, "abs")),
    }
    space = Namespace("stand_in_namespace", target, fills)
    _warnings.forget_warnings()
    try:
        _patch.install_fills(space, target)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            line = sys._getframe().f_lineno + 1
            assert target.OldClass is OldClass
            assert target.OlderClass is OlderClass
            assert target.OldClass is OldClass  # once
            old_function = target.old_function
            assert old_function("abc") == 3
            assert target.LateClass is LateClass
            late_function = target.late_function
            assert late_function(-2) == 2
        assert target.native == "JAX's own" and not hasattr(target, "unavailable")
    finally:
        _patch.unpatch()
    said = "{} is not in the installed JAX; pallas-compat serves it. Write: {}"
    assert [(str(w.message), w.filename, w.lineno - line) for w in caught] == [
        ("OldClass is old", __file__, 0),
        ("OlderClass is old", __file__, 1),
        (said.format("old_function", "len"), __file__, 4),
        ("LateClass is old", __file__, 5),
        (said.format("late_function", "abs"), __file__, 7),
    ]


def test_a_name_served_on_lookup_leaves_every_other_name_to_the_module_s_own_getattr() -> None:
    """``patch()`` serves a name through the module's ``__getattr__``; JAX's own (where it has
    its deprecation table there) still answers every other name, and a served name this JAX
    cannot have; a module without one raises Python's own error. ``unpatch()`` restores."""

    def jax_own(attr: str) -> object:
        if attr == "deprecated":
            return "JAX's deprecated object"
        raise AttributeError(f"JAX's own error for {attr}")

    def absent() -> object:
        raise _patch.Absent("gone")

    with_table, plain = types.ModuleType("stand_in_with_table"), types.ModuleType("stand_in_plain")
    with_table.__getattr__ = jax_own  # type: ignore[method-assign]
    try:
        for module in (with_table, plain):
            _patch.serve_on_lookup(module, "served", lambda: "the fill")
            _patch.serve_on_lookup(module, "gone", absent)
        assert with_table.served == plain.served == "the fill"
        assert with_table.deprecated == "JAX's deprecated object"
        with pytest.raises(AttributeError, match=r"^JAX's own error for gone$"):
            _ = with_table.gone
        with pytest.raises(
            AttributeError, match=r"^module 'stand_in_plain' has no attribute 'gone'$"
        ):
            _ = plain.gone
    finally:
        _patch.unpatch()
    assert vars(with_table)["__getattr__"] is jax_own and "__getattr__" not in vars(plain)


def test_a_child_module_jax_lacks_is_served_when_read_off_its_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where JAX lacks a child module (``jax.util`` after 0.7.2), reading it off the parent
    imports it (which the hook serves); a child the import system finds on disk, one already
    imported and one the parent has as an attribute are left alone. A stand-in package."""
    parent = types.ModuleType("stand_in_parent")
    parent.__path__ = [str(tmp_path)]
    (tmp_path / "on_disk.py").write_text("")
    parent.held = "the parent's own"
    monkeypatch.setitem(sys.modules, "stand_in_parent.imported", types.ModuleType("imported"))
    served = types.ModuleType("stand_in_parent.lacking")
    plain, served_too = types.ModuleType("stand_in_plain"), types.ModuleType("stand_in_plain.kid")
    pallas_compat.patch(warn=False)
    try:
        for child in ("on_disk", "imported", "held", "lacking"):
            _patch.serve_if_absent(parent, f"stand_in_parent.{child}")
        _patch.serve_if_absent(plain, "stand_in_plain.kid")  # no package: nothing on disk
        monkeypatch.setitem(sys.modules, "stand_in_parent.lacking", served)  # what the hook makes
        monkeypatch.setitem(sys.modules, "stand_in_plain.kid", served_too)
        assert parent.lacking is served and plain.kid is served_too
        for child in ("on_disk", "imported"):
            with pytest.raises(AttributeError, match=f"has no attribute '{child}'"):
                getattr(parent, child)
        assert parent.held == "the parent's own"
    finally:
        pallas_compat.unpatch()
    assert "__getattr__" not in vars(parent)
