"""How many deliberate bugs the tests catch: mutmut over the modules ``[tool.mutmut]`` names in
pyproject.toml, then the kill rate of each module and every mutant that survived.

    python scripts/mutants.py [--jobs N] [--rerun]

``nox -s mutants`` runs it (opt-in, not CI: minutes per module). mutmut copies the project into
``mutants/`` and keeps its verdicts there, so a second run tests only what changed (``--rerun``
starts afresh). A mutant counts as killed when a test failed or timed out on it; the rate is
killed over all mutants that had a test to run (``no tests`` is reported on its own). Exit
status 0, or 1 where a module's rate is below ``TARGET``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
#: The least share of mutants each module's tests must kill.
TARGET = 0.85
#: mutmut's exit codes of a mutant's test run, as it reads them (``mutmut/stats.py``).
KILLED = {1, 3, 36, 24, -24, 152, 255}  # failed, internal error, timeouts
SURVIVED = {0}
NO_TESTS = {5, 33}


def verdicts() -> dict[str, Counter[str]]:
    """module -> how many mutants were killed, survived, had no test, or are otherwise."""
    found: dict[str, Counter[str]] = {}
    for meta in sorted(MUTANTS.rglob("*.py.meta")):
        module = meta.relative_to(MUTANTS).as_posix().removesuffix(".meta")
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        counts: Counter[str] = Counter()
        for code in codes.values():
            if code in KILLED:
                counts["killed"] += 1
            elif code in SURVIVED:
                counts["survived"] += 1
            elif code in NO_TESTS:
                counts["no tests"] += 1
            else:
                counts["other"] += 1
        found[module] = counts
    return found


def survivors() -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "mutmut", "results"], cwd=ROOT, capture_output=True, text=True
    )
    return [line.strip() for line in done.stdout.splitlines() if ": survived" in line]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rerun", action="store_true", help="forget mutmut's earlier verdicts")
    args = parser.parse_args()
    if args.rerun:
        shutil.rmtree(MUTANTS, ignore_errors=True)
    # The copy is a project of its own: without a repository root there, doctor's walk would
    # read this checkout's .gitignore, which ignores mutants/, and find nothing to test.
    (MUTANTS / ".git").mkdir(parents=True, exist_ok=True)
    run = [sys.executable, "-m", "mutmut", "run", "--max-children", str(args.jobs)]
    if subprocess.run(run, cwd=ROOT).returncode != 0:
        print("mutants: mutmut run failed (its output is above)", file=sys.stderr)
        return 2
    table = verdicts()
    short = []
    print(f"{'module':45} {'killed':>7} {'survived':>9} {'no tests':>9} {'other':>6} {'rate':>7}")
    for module, counts in table.items():
        tested = counts["killed"] + counts["survived"] + counts["other"]
        rate = counts["killed"] / tested if tested else 0.0
        print(
            f"{module:45} {counts['killed']:7} {counts['survived']:9} {counts['no tests']:9} "
            f"{counts['other']:6} {rate:7.1%}"
        )
        if rate < TARGET:
            short.append(module)
    print("\nsurvivors (`mutmut show NAME` prints the change):")
    for line in survivors():
        print(f"  {line}")
    if short:
        print(f"\nbelow {TARGET:.0%}: {', '.join(short)}", file=sys.stderr)
    return 1 if short else 0


if __name__ == "__main__":
    sys.exit(main())
