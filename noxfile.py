"""Sessions of pallas-compat: probe snapshots and tests across JAX releases, and lint.

``nox -s tests`` runs the test suite against the oldest and the newest JAX of the matrix.
``nox -s probe`` writes one snapshot per JAX release under ``reports/snapshots/``.
"""

from __future__ import annotations

import os
from pathlib import Path

import nox

nox.needs_version = ">=2024.4.15"
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["probe", "kernels"]

ROOT = Path(__file__).parent
#: Oldest supported release and the release the chapter was written against.
OLDEST, NEWEST = "0.4.30", "0.12.0.1"
#: Releases the probe session snapshots (issue 5 replaces this with the full matrix file).
PROBE_MATRIX = [OLDEST, "0.6.2", NEWEST]
#: The tests run on every release of the matrix (the shim's code paths differ per era).
TEST_MATRIX = PROBE_MATRIX
#: One Python covers every release from 0.4.30 to 0.12 (0.11+ needs >= 3.12).
PYTHON = "3.12"


def install_jax(session: nox.Session, jax: str) -> None:
    """The project editable (so a reused venv never runs a stale copy) plus one exact JAX."""
    session.install("-e", ".[test]", f"jax=={jax}", f"jaxlib=={jax}")


@nox.session(python=PYTHON, tags=["tests"])
@nox.parametrize("jax", TEST_MATRIX)
def tests(session: nox.Session, jax: str) -> None:
    """The pytest suite against one JAX release."""
    install_jax(session, jax)
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session(python=PYTHON, tags=["probe"])
@nox.parametrize("jax", PROBE_MATRIX)
def probe(session: nox.Session, jax: str) -> None:
    """One snapshot of the installed JAX's Pallas surface: reports/snapshots/jax-X.json."""
    install_jax(session, jax)
    out = ROOT / "reports" / "snapshots"
    out.mkdir(parents=True, exist_ok=True)
    session.run("python", "-m", "probes", "--out", str(out / f"jax-{jax}.json"), *session.posargs)


@nox.session(python=PYTHON, tags=["kernels"])
@nox.parametrize("jax", PROBE_MATRIX)
def kernels(session: nox.Session, jax: str) -> None:
    """The chapter's kernels under the default modes: reports/kernels/jax-X.json."""
    install_jax(session, jax)
    out = ROOT / "reports" / "kernels"
    out.mkdir(parents=True, exist_ok=True)
    session.run("python", "-m", "kernels", "--out", str(out / f"jax-{jax}.json"), *session.posargs)


@nox.session(python=PYTHON, tags=["tpu_compile"])
@nox.parametrize("jax", [NEWEST])
def tpu_compile(session: nox.Session, jax: str) -> None:
    """Opt-in: deviceless AOT compilation for TPU v4/v5e/v5p/v6e with libtpu (about 1 GB).

    Only releases whose libtpu is on PyPI install (0.4.x took libtpu-nightly from Google's
    bucket, which this session does not reach)."""
    session.install("-e", ".[test]", f"jax[tpu]=={jax}", f"jaxlib=={jax}")
    out = ROOT / "reports" / "kernels"
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"tpu-compile-jax-{jax}.json"
    session.run("python", "-m", "kernels", "--modes", "tpu_compile", "--out", str(target))


@nox.session(python=PYTHON, tags=["lint"])
def lint(session: nox.Session) -> None:
    session.install("ruff==0.17.6")  # pinned: a new rule in a new ruff must not turn CI red
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


if os.environ.get("CI"):
    nox.options.error_on_missing_interpreters = True
