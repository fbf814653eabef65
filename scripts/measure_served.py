"""Regenerate ``pallas_compat/facts/served.json``: on which JAX releases each name the shim's
namespaces fill in (``pl.load`` on 0.9, ``pltpu.InterpretParams`` on 0.4.35, ...) is really
served, measured by calling the shim on every release the scan knows.

    python scripts/measure_served.py [--releases 0.6.2,0.7.1] [--venvs DIR]

Each release gets a uv environment with exactly ``jax==X jaxlib==X`` and this checkout on
``PYTHONPATH``; there ``python scripts/measure_served.py --one`` looks every fill up once
(warnings silenced) and prints what it got. doctor's "with pallas_compat" ranges and the
report's "pallas_compat serves it" read the file; ``tests/test_served.py`` measures the
installed release again and compares, so a shim change that the file does not know fails.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "pallas_compat" / "facts" / "served.json"
sys.path.insert(0, str(REPO))


def measure_installed() -> dict[str, list[str]]:
    """Namespace -> the names of its fills that the installed JAX lets the shim build."""
    # an environment where Pallas does not import would measure nothing: fail instead
    import jax.experimental.pallas  # noqa: F401

    from pallas_compat.facts import NAMESPACE_OF
    from pallas_compat.shim import _warnings
    from pallas_compat.shim._errors import PallasCompatError
    from pallas_compat.shim._fills import served_names
    from pallas_compat.shim._namespaces import namespace

    served: dict[str, list[str]] = {}
    for module, alias in NAMESPACE_OF.items():
        space = namespace(alias)
        found = set(served.get(alias, []))
        for name in sorted(served_names(module)):
            try:
                with _warnings.silenced():
                    getattr(space, name)
            except (PallasCompatError, AttributeError, ImportError):
                continue
            found.add(name)
        served[alias] = sorted(found)
    return served


def spans(flags: list[tuple[str, bool]]) -> list[list[str]]:
    """``[[first, last], ...]`` of the releases flagged True, in the scan's order."""
    found: list[list[str]] = []
    previous = False
    for release, flag in flags:
        if flag and previous:
            found[-1][1] = release
        elif flag:
            found.append([release, release])
        previous = flag
    return found


def run_release(release: str, venvs: Path, uv: str) -> dict[str, list[str]]:
    env = venvs / release
    if not (env / "bin" / "python").exists():
        subprocess.run([uv, "venv", "-q", "-p", "3.12", str(env)], check=True)
        # jax[cpu] picks the jaxlib the release was made with (0.4.37 shipped none of its
        # own); absl-py is what 0.5-0.10 import without declaring it (the probes' finding)
        python = str(env / "bin" / "python")
        install = [uv, "pip", "install", "-q", "-p", python, f"jax[cpu]=={release}", "absl-py"]
        install.append("packaging")
        if subprocess.run(install).returncode != 0:
            shutil.rmtree(env)
            raise SystemExit(f"measure_served: error: cannot install JAX {release} (see above)")
    done = subprocess.run(
        [str(env / "bin" / "python"), __file__, "--one"],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), "JAX_PLATFORMS": "cpu"},
    )
    return json.loads(done.stdout.splitlines()[-1])  # some releases print on import


def table(measured: dict[str, dict[str, list[str]]], releases: list[str]) -> dict[str, Any]:
    """The file: each fill's measured releases, less the renames whose releases the facts
    derive exactly (``rename_releases``); a rename some code serves further keeps its row."""
    from pallas_compat.facts import NAMESPACE_OF, rename_releases

    module_of = {alias: module for module, alias in reversed(NAMESPACE_OF.items())}
    aliases = sorted({alias for found in measured.values() for alias in found})
    rows: dict[str, dict[str, list[list[str]]]] = {}
    for alias in aliases:
        names = sorted({n for r in releases for n in measured[r].get(alias, [])})
        rows[alias] = {}
        for name in names:
            found = spans([(r, name in measured[r].get(alias, [])) for r in releases])
            if rename_releases(module_of[alias], name) != found:
                rows[alias][name] = found
    return {
        "source": "scripts/measure_served.py: each fill looked up on each release "
        "(renames served exactly where the facts derive are left out)",
        "releases": releases,
        "namespaces": rows,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", action="store_true", help="measure the installed JAX only")
    parser.add_argument("--releases", help="comma-separated (default: every scanned release)")
    parser.add_argument("--venvs", type=Path, default=Path(tempfile.gettempdir()) / "served-venvs")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_installed()))
        return 0
    from pallas_compat.facts import scanned_releases

    releases = args.releases.split(",") if args.releases else scanned_releases()
    uv = shutil.which("uv")
    if uv is None:
        print("measure_served: error: needs uv on PATH", file=sys.stderr)
        return 2
    measured = {}
    for release in releases:
        measured[release] = run_release(release, args.venvs, uv)
        print(f"{release}: {sum(map(len, measured[release].values()))} served", file=sys.stderr)
    from pallas_compat._file_writes import write_atomic

    write_atomic(OUT, json.dumps(table(measured, releases), indent=1) + "\n")
    print(f"wrote {OUT}: {len(releases)} releases")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
