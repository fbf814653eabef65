from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jax
import pytest
from packaging.version import Version

from kernels._progress import live

REPO = Path(__file__).resolve().parent.parent

#: Fixtures are other people's code, their tests included (the example project ``matrix`` runs).
collect_ignore = ["fixtures"]


def count_mutmut_s_frames_as_the_shim_s() -> None:
    """Under mutmut (it sets ``MUTANT_UNDER_TEST``) each mutated function is called through
    mutmut's trampoline, a frame in mutmut's folder between the shim's own, and the shim's
    warnings would name that frame, not the line of the test that used the old name. mutmut's
    folder counts as the shim's then, so the tests of where a warning points hold there too."""
    if "MUTANT_UNDER_TEST" not in os.environ:
        return
    import mutmut

    from pallas_compat.shim import _warnings

    _warnings.INSIDE = (
        *_warnings.INSIDE,
        os.path.dirname(os.path.abspath(mutmut.__file__)) + os.sep,
    )


count_mutmut_s_frames_as_the_shim_s()


@pytest.fixture(autouse=True)
def doctor_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """doctor's cache goes to a folder of the test run, not the folder pytest runs in; each
    test starts without one (a cached answer must not hide what a test asks of the finder)."""
    monkeypatch.setenv("PALLAS_COMPAT_CACHE_DIR", str(tmp_path_factory.mktemp("doctor-cache")))


#: The release the chapter was written against; its assertions are facts about this release.
CHAPTER_RELEASE = Version("0.12.0.1")


#: Modules whose outcome depends on the installed release: the shim and its fills, ``patch()``,
#: the corpus harness and the real kernels. ``nox -s tests`` runs them on every release of the
#: default matrix (``-m release``), the whole suite on three. A test in them that reads no
#: installed JAX (migrate's rewrite for a named target) says so with ``any_release``. This list
#: is the one place a module says so (a single test elsewhere says ``@pytest.mark.release``), and
#: a name here that is no test module stops the run.
RELEASE_DEPENDENT = frozenset(
    {
        "test_atomic_ops",
        "test_block_spec",
        "test_deprecation_windows",
        "test_block_spec_order",
        "test_corpus_mosaic_gpu",
        "test_mosaic_gpu_fills",
        "test_block_spec_subclass",
        "test_compiled",
        "test_compiler_params",
        "test_corpus",
        "test_cost_analysis",
        "test_fills",
        "test_for_loop",
        "test_for_loop_local",
        "test_idioms",
        "test_interpret",
        "test_jaxpr_identity",
        "test_load_store",
        "test_lowered",
        "test_lower",
        "test_masked",
        "test_namespace",
        "test_outside",
        "test_pallas_call",
        "test_patch",
        "test_real_kernels",
        "test_real_mosaic_gpu",
        "test_recorder",
        "test_resolve",
        "test_served",
        "test_shim_imports",
        "test_shim_kernels",
        "test_user_code",
        "test_warnings",
    }
)


def installed_jax() -> Version:
    return Version(jax.__version__)


def has_feature(key: str) -> bool:
    """Whether some location of the feature, public or private, is in the installed release,
    by the scanned ranges, not the code under test (the shim also serves the private
    ``TPUInterpretParams`` of 0.5.1-0.6.1, before ``since``)."""
    from pallas_compat import FEATURES_BY_KEY

    feature = FEATURES_BY_KEY[key]
    if feature.since is None:
        return True
    spans = [span for location in feature.locations for span in location.releases]
    return any(Version(first) <= installed_jax() <= Version(last) for first, last in spans)


def jax_object(module: str, attr: str) -> Any:
    """``module.attr`` as JAX itself answers (deprecated names included, their warning
    silenced), or None: an oracle that is not the shim's own resolver."""
    import importlib
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            found = importlib.import_module(module)
        except Exception:  # a backend that does not import on this release
            return None
        return getattr(found, attr, None)


def load_prepared(path: Path, route: str, tmp_path: Path, written_for: str | None = None) -> Any:
    """A real kernel file as ``route`` prepares it (the corpus's own preparation), imported
    from ``tmp_path``; migrate must have left nothing to note."""
    import importlib.util

    from kernels.corpus._package import prepared_source
    from pallas_compat.lint._migrate import MARKER

    source = prepared_source(path, route, jax.__version__, written_for)
    if route == "migrate":
        assert MARKER not in source, "migrate left something it could not rewrite"
    module_path = tmp_path / f"real_{path.stem}_{route}.py"
    module_path.write_text(source)
    spec = importlib.util.spec_from_file_location(module_path.stem, module_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_path.stem] = module
    spec.loader.exec_module(module)
    return module


def is_chapter_release() -> bool:
    """0.12.0 and 0.12.0.1 share one Pallas; the chapter's facts are asserted for this series."""
    return installed_jax().release[:3] == CHAPTER_RELEASE.release[:3]


def take_snapshot(out: Path, *extra: str) -> dict[str, Any]:
    subprocess.run(
        [sys.executable, "-m", "probes", "--quiet", "--out", str(out), *extra],
        cwd=REPO,
        check=True,
        timeout=600,
    )
    return json.loads(out.read_text())


@pytest.fixture(scope="session")
def compilation_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """JAX's persistent compilation cache of the session snapshot (filled by that run)."""
    return tmp_path_factory.mktemp("jax-compilation-cache")


@pytest.fixture(scope="session")
def snapshot_path(tmp_path_factory: pytest.TempPathFactory, compilation_cache: Path) -> Path:
    path = tmp_path_factory.mktemp("snapshot") / "snapshot.json"
    take_snapshot(path, "--compilation-cache", str(compilation_cache))
    return path


@pytest.fixture(scope="session")
def snapshot(snapshot_path: Path) -> dict[str, Any]:
    return json.loads(snapshot_path.read_text())


@pytest.fixture(scope="session")
def built_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder where ``python -m report`` wrote api-diff.md and .html, once per run, from a
    copy of the committed results (the committed report is never touched)."""
    import shutil

    from report._cli import main

    repo = Path(__file__).resolve().parent.parent
    out = tmp_path_factory.mktemp("report")
    tree = out / "reports"
    shutil.copytree(repo / "reports", tree, ignore=shutil.ignore_patterns("*.md", "*.html"))
    assert main([str(tree / "snapshots"), "--out", str(out)]) == 0
    return out


def pytest_report_header(config: pytest.Config) -> str:
    if is_chapter_release():
        return f"jax {jax.__version__}: the chapter's facts are checked"
    return (
        f"jax {jax.__version__}: the chapter's facts (asserted for {CHAPTER_RELEASE}) are deselected; "
        "tests/test_snapshot_any_release.py checks this release"
    )


def unknown_modules(names: frozenset[str], folder: Path) -> list[str]:
    """The names that are no test module in ``folder``: a misspelt entry would leave its module
    running on three releases while the list says every release."""
    return sorted(name for name in names if not (folder / f"{name}.py").is_file())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The chapter's facts describe one release; on another they would only measure drift, which is
    the report's job. They are deselected there (and counted as such), not skipped."""
    unknown = unknown_modules(RELEASE_DEPENDENT, Path(__file__).parent)
    if unknown:
        raise pytest.UsageError(f"RELEASE_DEPENDENT names no test module: {', '.join(unknown)}")
    for item in items:
        if item.path.stem in RELEASE_DEPENDENT and not item.get_closest_marker("any_release"):
            item.add_marker(pytest.mark.release)
    if is_chapter_release():
        return
    chapter = [item for item in items if item.get_closest_marker("chapter")]
    if chapter:
        config.hook.pytest_deselected(items=chapter)
        items[:] = [item for item in items if not item.get_closest_marker("chapter")]


class LiveProgress:
    """Under ``nox -j`` (``PALLAS_COMPAT_PROGRESS`` set by the noxfile), a line at each tenth
    of the run to nox's own stderr: nox holds the session's output until it ends."""

    def __init__(self) -> None:
        self.total, self.done, self.mark = 0, 0, 1

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.total = len(session.items)

    def pytest_runtest_logfinish(self) -> None:
        self.done += 1
        if self.total and self.done * 10 >= self.mark * self.total:
            self.mark = self.done * 10 // self.total + 1
            live(f"tests on JAX {jax.__version__}: {self.done}/{self.total}")


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("PALLAS_COMPAT_PROGRESS"):
        config.pluginmanager.register(LiveProgress(), "pallas-compat-live-progress")
