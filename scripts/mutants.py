"""How many deliberate bugs the tests catch: mutmut over the modules ``[tool.mutmut]`` names,
then every mutant it left alive or never ran again, each in a fresh process against the test
modules ``TESTS`` names, then the kill rate of each module and the mutants that survived both.

    python scripts/mutants.py [--jobs N] [--rerun] [--recheck-only]

``nox -s mutants`` runs it on the newest JAX, ``nox -s mutants_older`` (``--recheck-only``) on
the oldest and the mid release, whose tests take the branches only older releases take.
Opt-in, not CI: about two hours on two cores. Two passes because mutmut's choice of tests misses code here: it gives each mutant the
tests that called its function while the suite ran, and the shim builds its namespaces while
``pallas_compat`` is imported, before any test starts (those mutants ran against unrelated
tests, or none); for the rules its choice includes the corpus test, 80 s a mutant. The second
pass switches each mutant on with mutmut's own ``MUTANT_UNDER_TEST`` in a process that imports
the mutated copy afresh, and keeps each kill, with the JAX release that made it, in
``mutants/rechecked.json`` (a kill stands while its function's mutmut hash is unchanged).

mutmut copies the project into ``mutants/`` and keeps its verdicts there, so a second run tests
only what changed; ``--rerun`` starts afresh. The rate is killed over all the module's mutants.
Exit status 0; 1 where a module's rate is below ``TARGET``; 2, with one line, where nothing can be
measured (no copy, a broken record, tests that fail unmutated, mutmut failing).
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from importlib.metadata import version
from pathlib import Path
from typing import NoReturn

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
RECORD = MUTANTS / "rechecked.json"
#: The least share of mutants each module's tests must kill.
TARGET = 0.85
#: mutmut's exit codes of a mutant's test run that mean a test caught it (``mutmut/stats.py``:
#: failed, internal error, timeouts).
KILLED = {1, 3, 36, 24, -24, 152, 255}

_SHIM = (
    "tests/test_fills.py",
    "tests/test_namespace.py",
    "tests/test_resolve.py",
    "tests/test_shim_imports.py",
    "tests/test_served.py",
    "tests/test_facade.py",
    "tests/test_one_table_entry.py",
    "tests/test_mosaic_gpu_fills.py",
    "tests/test_tpu_info.py",
    "tests/test_compiler_params.py",
    "tests/test_block_spec.py",
    "tests/test_block_spec_subclass.py",
    "tests/test_warnings.py",
    "tests/test_load_store.py",
    "tests/test_pallas_call.py",
    "tests/test_interpret.py",
    "tests/test_atomic_ops.py",
    "tests/test_for_loop_local.py",
    "tests/test_masked.py",
    "tests/test_shim_kernels.py",
)
_RULES = ("tests/test_rules.py", "tests/test_finder.py", "tests/test_migrate.py")
#: Each mutated module's tests for the second pass, the quickest first (a kill stops the run).
TESTS: dict[str, tuple[str, ...]] = {
    "pallas_compat/shim/_patch.py": (
        "tests/test_pytest_plugin.py",
        "tests/test_patch.py",
        "tests/test_fills.py",
    ),
    "pallas_compat/shim/_fills.py": _SHIM,
    "pallas_compat/facts/_served.py": ("tests/test_served.py", "tests/test_docs_hooks.py", *_SHIM),
    "pallas_compat/facts/_registry.py": ("tests/test_registry.py", "tests/test_facts.py", *_SHIM),
    "pallas_compat/lint/_runs_on.py": ("tests/test_runs_on.py", *_RULES),
    "pallas_compat/rules/block_spec_order.py": ("tests/test_block_spec_order.py", *_RULES),
    "pallas_compat/rules/dict_params.py": ("tests/test_dict_params.py", *_RULES),
    "pallas_compat/rules/masked_access.py": (
        "tests/test_masked_access.py",
        "tests/test_deprecation_windows.py",
        *_RULES,
    ),
}


def run_mutmut(jobs: int) -> bool:
    # The copy is a project of its own: without a repository root there, doctor's walk would
    # read this checkout's .gitignore, which ignores mutants/, and find nothing to test.
    (MUTANTS / ".git").mkdir(parents=True, exist_ok=True)
    run = [sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs)]
    return subprocess.run(run, cwd=ROOT).returncode == 0


def stop(message: str) -> NoReturn:
    """Bad input or a copy that cannot be measured: one line, exit status 2."""
    print(f"mutants: {message}", file=sys.stderr)
    raise SystemExit(2)


def mutmut_verdicts(module: str) -> tuple[dict[str, int | None], dict[str, str]]:
    """The module's mutants with mutmut's exit code (None: never run), and its functions'
    hashes."""
    path = MUTANTS / f"{module}.meta"
    if not path.is_file():
        stop(f"{path}: no mutmut verdicts (run nox -s mutants first)")
    meta = json.loads(path.read_text())
    return meta["exit_code_by_key"], meta["hash_by_function_name"]


def function_of(mutant: str) -> str:
    """``pallas_compat.shim._fills.x_native_or__mutmut_3`` -> ``x_native_or``."""
    return mutant.rsplit(".", 1)[1].rsplit("__mutmut_", 1)[0]


def load_record() -> dict[str, dict[str, str]]:
    try:
        return json.loads(RECORD.read_text()) if RECORD.is_file() else {}
    except json.JSONDecodeError:
        stop(f"{RECORD}: not JSON (delete it and its kills are found again)")


def record_kill(name: str, kill: dict[str, str]) -> None:
    """Add one kill to the record, whole or not at all, while no other pass writes it (the
    passes on two releases may run side by side)."""
    with open(RECORD.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        record = {**load_record(), name: kill}
        partial = RECORD.with_suffix(".partial")
        partial.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
        partial.replace(RECORD)


def rechecked_kills(module: str) -> dict[str, str]:
    """Mutant -> the JAX release whose tests killed it, for kills whose function is unchanged."""
    codes, hashes = mutmut_verdicts(module)
    return {
        name: kill["jax"]
        for name, kill in load_record().items()
        if name in codes and hashes.get(function_of(name)) == kill["hash"]
    }


def alive(module: str) -> list[str]:
    """The module's mutants no test has killed yet."""
    codes, _ = mutmut_verdicts(module)
    kills = rechecked_kills(module)
    return sorted(n for n, code in codes.items() if code not in KILLED and n not in kills)


def tests_fail(mutant: str, tests: tuple[str, ...], limit: float) -> bool:
    """Does a test fail (or hang past ``limit`` seconds) with ``mutant`` switched on? The
    interpreters the tests start import the mutated copy too (``PYTHONPATH``), not the
    checkout a venv may hold editable."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
            cwd=MUTANTS,
            env={**os.environ, "MUTANT_UNDER_TEST": mutant, "PYTHONPATH": str(MUTANTS)},
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=limit,
        )
    except subprocess.TimeoutExpired:
        return True
    return done.returncode != 0


def recheck(module: str, jobs: int) -> int:
    """Run the module's live mutants against its tests; record and count the kills."""
    tests = TESTS[module]
    names = alive(module)
    if not names:
        return 0
    start = time.monotonic()
    if tests_fail("", tests, limit=1800):
        stop(f"{module}: its tests fail with no mutant switched on")
    limit = 10 * (time.monotonic() - start) + 60
    _, hashes = mutmut_verdicts(module)
    jax = version("jax")
    kills = 0
    with ThreadPoolExecutor(jobs) as pool:
        runs = {pool.submit(tests_fail, name, tests, limit): name for name in names}
        for run in as_completed(runs):
            if run.result():  # kept as it comes: an interrupted pass loses nothing it found
                name = runs[run]
                record_kill(name, {"jax": jax, "hash": hashes[function_of(name)]})
                kills += 1
    print(f"{module}: {len(names)} alive, {kills} killed on JAX {jax}", flush=True)
    return kills


def table() -> list[str]:
    """Print each module's rate and its survivors; return the modules below the target."""
    short = []
    print(f"\n{'module':42} {'mutants':>7} {'mutmut':>7} {'rechecked':>9} {'alive':>6} {'rate':>6}")
    for module in TESTS:
        codes, _ = mutmut_verdicts(module)
        by_mutmut = sum(code in KILLED for code in codes.values())
        by_recheck = len(rechecked_kills(module))
        rate = (by_mutmut + by_recheck) / len(codes)
        left = len(codes) - by_mutmut - by_recheck
        print(f"{module:42} {len(codes):7} {by_mutmut:7} {by_recheck:9} {left:6} {rate:6.1%}")
        if rate < TARGET:
            short.append(module)
    print("\nalive (`mutmut show NAME` prints the change):")
    for module in TESTS:
        for name in alive(module):
            print(f"  {name}")
    return short


def main() -> int:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rerun", action="store_true", help="forget every earlier verdict")
    parser.add_argument("--recheck-only", action="store_true", help="the second pass only")
    parser.add_argument(
        "--module", action="append", choices=TESTS, metavar="PATH", help="only this module"
    )
    args = parser.parse_args()
    if args.rerun:
        shutil.rmtree(MUTANTS, ignore_errors=True)
    if args.recheck_only and not RECORD.parent.is_dir():
        stop("no mutants/ to recheck (run nox -s mutants first)")
    if not args.recheck_only and not run_mutmut(args.jobs):
        stop("mutmut run failed (its output is above)")
    # the checkout's tests as they are now (mutmut copies them only when it runs)
    shutil.copytree(ROOT / "tests", MUTANTS / "tests", dirs_exist_ok=True)
    for module in args.module or TESTS:
        recheck(module, args.jobs)
    short = table()
    if short:
        print(f"\nbelow {TARGET:.0%}: {', '.join(short)}", file=sys.stderr)
    return 1 if short else 0


if __name__ == "__main__":
    sys.exit(main())
