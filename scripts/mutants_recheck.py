"""Run the mutants mutmut left alive again, each in a fresh process, against test modules named
here: the check mutmut's own test choice cannot make for code that runs at import.

    python scripts/mutants_recheck.py pallas_compat/shim/_fills.py tests/test_fills.py ... [--jobs N]

mutmut picks each mutant's tests by which tests called its function while the suite ran. The
shim builds its namespaces' fills while ``pallas_compat`` is imported, before any test starts,
so no test is recorded as calling those builders, and their mutants run against unrelated tests
(or none) and survive whatever the suite checks. Here every survivor of the module runs, with
mutmut's own switch (``MUTANT_UNDER_TEST``), in a process that imports the mutated copy under
``mutants/`` afresh, against the given test modules; a failing test kills it. ``nox -s mutants``
leaves the verdicts in ``mutants/`` as mutmut wrote them: this prints its own table.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
#: mutmut's exit code for a mutant its tests did not catch (``mutmut/stats.py``).
SURVIVED = 0


def survivors(module: str) -> list[str]:
    meta = MUTANTS / f"{module}.meta"
    if not meta.is_file():
        sys.exit(f"mutants_recheck: {meta}: no mutmut verdicts (run nox -s mutants first)")
    codes: dict[str, int | None] = json.loads(meta.read_text())["exit_code_by_key"]
    return sorted(name for name, code in codes.items() if code == SURVIVED)


def killed(mutant: str, tests: list[str]) -> bool:
    """Does a test fail with ``mutant`` switched on in a fresh process?"""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
        cwd=MUTANTS,
        env={**os.environ, "MUTANT_UNDER_TEST": mutant},
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
    )
    return done.returncode != 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module", help="a mutated module, as [tool.mutmut] names it")
    parser.add_argument("tests", nargs="+", help="test modules, relative to the checkout")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    # the checkout's tests as they are now (mutmut copied them when it last ran)
    shutil.copytree(ROOT / "tests", MUTANTS / "tests", dirs_exist_ok=True)
    if killed("", args.tests):
        sys.exit("mutants_recheck: the tests fail with no mutant switched on")
    names = survivors(args.module)
    with ThreadPoolExecutor(args.jobs) as pool:
        verdicts = dict(zip(names, pool.map(lambda n: killed(n, args.tests), names), strict=True))
    alive = [name for name, dead in verdicts.items() if not dead]
    for name in alive:
        print(f"survived: {name}")
    print(
        f"{args.module}: {len(names)} mutmut survivors rerun, {len(names) - len(alive)} killed "
        f"by {' '.join(args.tests)}, {len(alive)} survived"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
