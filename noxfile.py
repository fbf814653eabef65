"""Sessions of pallas-compat across JAX releases.

``nox`` (the main job) runs ``probe``, ``kernels`` and ``report`` over the default matrix of
``jax-matrix.json``: the oldest release plus the newest patch of every minor series.
``PALLAS_COMPAT_MATRIX=every nox`` runs every release instead; ``nox -s refresh_matrix``
rewrites the file from the registry. ``nox -s tests`` is the test suite (oldest, one mid
release, newest). Probe and kernel sessions may run in parallel: ``nox -j 2``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import nox

ROOT = Path(__file__).parent
sys.path.insert(0, str(ROOT))

from probes._matrix import MatrixError, load_matrix  # noqa: E402

nox.needs_version = ">=2026.10.20"
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["probe", "kernels", "report"]

try:
    MATRIX = load_matrix(ROOT / "jax-matrix.json")
except MatrixError as exc:
    sys.exit(f"nox: error: {exc}")

RELEASES = MATRIX.every if os.environ.get("PALLAS_COMPAT_MATRIX") == "every" else MATRIX.default
OLDEST, NEWEST = MATRIX.default[0], MATRIX.default[-1]
#: The tests cover the three eras of the shim: dict-only, TPUCompilerParams-era, newest.
TESTS = (OLDEST, "0.6.2", NEWEST)
SNAPSHOTS = ROOT / "reports" / "snapshots"
KERNELS = ROOT / "reports" / "kernels"


def per_release(releases: tuple[str, ...]) -> list[nox.param]:
    """``(python, jax)`` params with short ids: ``probe(jax='0.6.2')``."""
    return [nox.param(MATRIX.python_for(r), r, id=f"jax='{r}'") for r in releases]


def clean_imports(session: nox.Session) -> dict:
    """``python -m probes.imports`` as it was in this venv when it was fresh (kept in the venv:
    a reused venv already has the missing packages, and the finding must not get lost)."""
    marker = Path(session.virtualenv.location) / "pallas-compat-clean-imports.json"
    if marker.exists():
        return json.loads(marker.read_text())
    output = session.run("python", "-m", "probes.imports", silent=True)
    report = json.loads(output.strip().splitlines()[-1])
    if report["undeclared"]:
        session.log(f"this JAX imports {', '.join(report['undeclared'])} without declaring it")
        session.install(*report["install"])
    marker.write_text(json.dumps(report))
    return report


def install_jax(session: nox.Session, jax: str, extra: str = "") -> None:
    """The project editable (so a reused venv never runs a stale copy) plus one exact JAX."""
    session.install("-e", ".[test]", f"jax{extra}=={jax}", f"jaxlib=={jax}")


@nox.session(tags=["tests"])
@nox.parametrize("python,jax", per_release(TESTS))
def tests(session: nox.Session, jax: str) -> None:
    """The pytest suite against one JAX release."""
    install_jax(session, jax)
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session(tags=["probe"], allow_parallel=True)
@nox.parametrize("python,jax", per_release(RELEASES))
def probe(session: nox.Session, jax: str) -> None:
    """One snapshot of the installed JAX's Pallas surface: reports/snapshots/jax-X.json.

    First the Pallas modules are imported in the fresh environment: a module that needs
    something JAX does not declare is a finding, recorded in the snapshot; the missing
    packages are then installed so that the probes can run."""
    install_jax(session, jax)
    report = clean_imports(session)
    extra = []
    if report["undeclared"]:
        note = session.create_tmp() + "/clean-imports.json"
        Path(note).write_text(json.dumps(report))
        extra = ["--clean-imports", note]
    SNAPSHOTS.mkdir(parents=True, exist_ok=True)
    out = SNAPSHOTS / f"jax-{jax}.json"
    session.run("python", "-m", "probes", "--out", str(out), *extra, *session.posargs)


@nox.session(tags=["kernels"], allow_parallel=True)
@nox.parametrize("python,jax", per_release(RELEASES))
def kernels(session: nox.Session, jax: str) -> None:
    """The chapter's kernels under the default modes: reports/kernels/jax-X.json."""
    install_jax(session, jax)
    clean_imports(session)
    KERNELS.mkdir(parents=True, exist_ok=True)
    session.run(
        "python", "-m", "kernels", "--out", str(KERNELS / f"jax-{jax}.json"), *session.posargs
    )


@nox.session(python="3.12", tags=["report"])
def report(session: nox.Session) -> None:
    """reports/api-diff.md and .html from the snapshots and kernel results (no JAX needed)."""
    session.install("--no-deps", "-e", ".")
    session.install("packaging", "numpy")
    session.run("python", "-m", "probes", "report", str(SNAPSHOTS), "--out", str(ROOT / "reports"))


@nox.session(python="3.12", tags=["tpu_compile"])
def tpu_compile(session: nox.Session) -> None:
    """Opt-in: deviceless AOT compilation for TPU v4/v5e/v5p/v6e with libtpu (about 1 GB).

    Only releases whose libtpu is on PyPI install (0.4.x took libtpu-nightly from Google's
    bucket, which this session does not reach), so it runs the newest release."""
    install_jax(session, NEWEST, extra="[tpu]")
    KERNELS.mkdir(parents=True, exist_ok=True)
    target = KERNELS / f"tpu-compile-jax-{NEWEST}.json"
    session.run("python", "-m", "kernels", "--modes", "tpu_compile", "--out", str(target))


@nox.session(python="3.12", tags=["matrix"])
def refresh_matrix(session: nox.Session) -> None:
    """Rewrite jax-matrix.json from the package registry."""
    session.install("packaging")
    session.run("python", "scripts/refresh_matrix.py", *session.posargs)


@nox.session(python="3.12", tags=["lint"])
def lint(session: nox.Session) -> None:
    session.install("ruff==0.17.6")  # pinned: a new rule in a new ruff must not turn CI red
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


if os.environ.get("CI"):
    nox.options.error_on_missing_interpreters = True
