"""Sessions of pallas-compat across JAX releases.

``nox`` (the main job) runs ``probe``, ``kernels``, ``corpus``, ``thirdparty`` and ``report``
over the default matrix of ``jax-matrix.json``: the oldest release plus the newest patch of
every minor series (the corpora also on the releases their kernels come from).
``PALLAS_COMPAT_MATRIX=every nox`` runs every release instead; ``nox -s refresh_matrix``
rewrites the file from the registry. ``nox -s tests`` is the test suite: all of it on the
oldest, one mid and the newest release, the release-dependent tests on every other release of
the default matrix.

A session whose inputs (its JAX, Python minor, requirements, the source its commands import,
what it fetches, the results it reads) are those recorded beside its committed result in
``reports/inputs/`` is skipped as up to date (``scripts/session_inputs.py``);
``nox -- --force`` or ``PALLAS_COMPAT_FORCE=1 nox`` recomputes. Sessions run two at a time
(``nox -j 1`` for one).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import nox
from packaging.version import Version

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
#: The exact versions of what the results depend on besides JAX (numpy, scipy, ...).
CONSTRAINTS = ROOT / "constraints.txt"

sys.path.insert(0, str(ROOT / "scripts"))

from session_inputs import (  # noqa: E402
    FORCE_ARG,
    Session,
    added_fetches,
    forced,
    merged_results,
    stamp_text,
    why_stale,
)

from common import MatrixError, load_matrix, write_atomic  # noqa: E402
from kernels.thirdparty._libraries import LIBRARIES  # noqa: E402

nox.needs_version = ">=2026.10.20"
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_venv = "yes"
#: Two at a time: the sessions are single-threaded Python around XLA, and a third adds
#: memory, not speed, on the 2-core machines CI gives (``nox -j N`` to choose).
nox.options.parallel = 2


def live_progress() -> None:
    """Under ``nox -j`` nox runs each session in a worker whose output it holds until the
    session ends; a long session would be silent for minutes. The worker names nox's own
    stderr (Linux: ``/proc/<nox>/fd/2``) in ``PALLAS_COMPAT_PROGRESS``, where the sessions'
    progress lines (``kernels._progress.live``) also go as they happen."""
    if "--parallel-worker" not in sys.argv or "PALLAS_COMPAT_PROGRESS" in os.environ:
        return
    where = Path(f"/proc/{os.getppid()}/fd/2")
    try:
        with where.open("a"):
            pass
    except OSError:
        return
    os.environ["PALLAS_COMPAT_PROGRESS"] = str(where)


live_progress()

try:
    MATRIX = load_matrix(ROOT / "jax-matrix.json")
except MatrixError as exc:
    sys.exit(f"nox: error: {exc}")

RELEASES = MATRIX.every if os.environ.get("PALLAS_COMPAT_MATRIX") == "every" else MATRIX.default
OLDEST, NEWEST = MATRIX.default[0], MATRIX.default[-1]
#: The whole suite runs on the three eras of the shim: dict-only, TPUCompilerParams-era, newest.
MID = "0.6.2"
TESTS = (OLDEST, MID, NEWEST)
#: The three long whole-suite sessions first, so that two workers end together.
WHOLE_SUITE_FIRST = tuple(sorted(MATRIX.default, key=lambda r: r not in TESTS))
#: Releases outside the default matrix at the ends of a deprecation window (the old
#: ``BlockSpec(index_map, block_shape)`` swapped back with a warning in 0.4.31-0.4.34): the
#: window test runs there natively, to hold the scanned window to what JAX does.
WINDOW_ENDS = ("0.4.31", "0.4.34")
WINDOW_TESTS = "tests/test_deprecation_windows.py"
SNAPSHOTS = ROOT / "reports" / "snapshots"
KERNELS = ROOT / "reports" / "kernels"
CORPUS = ROOT / "reports" / "corpus"
THIRDPARTY = ROOT / "reports" / "thirdparty"
#: When each run happened and how long it took: never committed, so that a re-run on an
#: unchanged release leaves ``git status`` clean and a diff under reports/ means drift.
TIMINGS = ROOT / ".nox" / "timings"
#: What JAX's own kernel files import that JAX does not declare: ``attention_mgpu.py`` imports
#: ``jax._src.test_util``, which imports absl (a finding: JAX ships kernels it cannot import).
OPS_NEED = ("absl-py",)
#: Releases whose own shipped kernels (jax/experimental/pallas/ops) make the real-kernel corpus:
#: each runs natively on itself and through patch / shim / migrate on every release after it.
#: A newer release joins as the newest; the releases already here stay, so that each corpus
#: session then runs only the new release's kernels (``corpus_of_added``). 0.4.36 is the first
#: that shipped a Mosaic GPU kernel (``attention_mgpu.py``, on ``GPUMesh`` and ``core_map``).
CORPUS_FROM = tuple(
    sorted({"0.4.30", "0.4.35", "0.4.36", "0.6.2", "0.9.2", "0.12.0.1", NEWEST}, key=Version)
)
#: The releases the third-party libraries were written for (each validates there), and what
#: their kernel files import besides JAX (installed with the release's JAX, in one resolve).
LIBRARIES_FROM = tuple(sorted({lib.written_for for lib in LIBRARIES}, key=Version))
LIBRARY_NEEDS = sorted({need for lib in LIBRARIES for need in lib.needs})


CORPUS_RELEASES = tuple(sorted({*RELEASES, *CORPUS_FROM}, key=Version))
THIRDPARTY_RELEASES = tuple(
    sorted(
        {*(r for r in RELEASES if Version(r) >= Version(LIBRARIES_FROM[0])), *LIBRARIES_FROM},
        key=Version,
    )
)
RESULT_FOLDERS = {
    "probe": SNAPSHOTS,
    "kernels": KERNELS,
    "corpus": CORPUS,
    "thirdparty": THIRDPARTY,
}
#: What each kind of session runs, for the digest of the source it depends on.
ENTRIES = {
    "probe": ("probes.__main__", "probes.imports", "!report"),  # report: `probes diff`
    "kernels": ("kernels.__main__",),
    "corpus": ("kernels.corpus.__main__", "fetch_ops"),
    "thirdparty": ("kernels.thirdparty.__main__", "fetch_libraries"),
    "report": ("report.__main__",),
}
#: How each kind runs, where that can change its result (JAX's compilation cache did, on one
#: release): an input too, so that changing it here reruns the sessions.
#: The kernels and the corpora compile without LLVM's optimizations (``FAST_COMPILE``), without
#: JAX's persistent cache, and each identical program once per process.
KERNELS_RUN = (
    "no persistent compilation cache, XLA backend optimization level 0, XLA CPU's "
    "elemental emitters where its flags choose them, one compile per identical program"
)
#: The chapter's kernels: the default modes, and the GPU variants lowered for CUDA.
KERNEL_MODES = ("interpret", "tpu_sim", "tpu_lower", "gpu_lower")
RUNS = {
    "probe": "python -m probes, with JAX's persistent compilation cache, XLA CPU's elemental "
    "emitters where its flags choose them",
    "kernels": f"python -m kernels --modes {','.join(KERNEL_MODES)}, {KERNELS_RUN}",
    "corpus": f"python -m kernels.corpus (interpreters, then lowered), {KERNELS_RUN}",
    "thirdparty": f"python -m kernels.thirdparty (interpreters, then lowered), {KERNELS_RUN}",
    "report": "python -m report",
}
#: The interpreter compiles hundreds of small XLA programs a session; without LLVM's
#: optimizations they compile faster, and every record is the same (the probes compile this
#: way too). The chapter's kernels do since ``exercise_axpy_scalar_inputs`` takes its exercise's
#: own atol: with rtol alone it failed at level 0. A level the user gives in ``XLA_FLAGS`` wins.
FAST_COMPILE = "--xla_backend_optimization_level=0"
#: XLA flags that compile faster where the release's XLA has them, every record the same. From
#: JAX 0.7 to 0.10, XLA CPU emits fusions through MLIR unless told to use its elemental
#: emitters, which compile the interpreter's programs in a third to a half of the time
#: (corpus, 0.9.2: 15 s of compile against 46; kernels, 0.7.2: 16 against 31). 0.5 and 0.6
#: have the flag with MLIR off, and 0.11 dropped it. XLA aborts on a flag it does not know,
#: so each is tried once per release (``known_xla_flag``).
FASTER_WHERE_KNOWN = ("--xla_cpu_use_fusion_emitters=false",)
#: Creates the CPU client, which reads ``XLA_FLAGS``: exit 0 if XLA knows every flag there.
XLA_FLAG_TRIAL = "import jax; jax.jit(lambda x: x + 1)(1).block_until_ready()"
#: What each release's XLA made of the flags tried, one file per release.
XLA_FLAGS_KNOWN = ROOT / ".nox" / "xla-flags"
#: What importing each release's Pallas needed that JAX does not declare, one file per release
#: (``imports_marker``).
IMPORTS_FOUND = ROOT / ".nox" / "imports"


def fast_compile_env(session: nox.Session, jax: str) -> dict[str, str]:
    """``XLA_FLAGS`` for a session that runs kernels: the user's, plus ``FAST_COMPILE`` and
    what of ``FASTER_WHERE_KNOWN`` this release's XLA knows. A level the user gives wins, and
    then nothing is added."""
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_backend_optimization_level" in flags:
        return {}
    faster = [
        flag
        for flag in FASTER_WHERE_KNOWN
        if flag.partition("=")[0] not in flags and known_xla_flag(session, jax, flag)
    ]
    return {"XLA_FLAGS": " ".join([flags, FAST_COMPILE, *faster]).strip()}


def known_xla_flag(session: nox.Session, jax: str, flag: str) -> bool:
    """Whether the XLA of ``jax`` (its jaxlib is pinned to the same version) takes ``flag``,
    tried once in the session's venv and kept in ``XLA_FLAGS_KNOWN`` for every session of the
    release. On the CPU alone: a TPU plugin would look for a TPU."""
    kept = XLA_FLAGS_KNOWN / f"jax-{jax}.json"
    known = json.loads(kept.read_text()) if kept.is_file() else {}
    if flag not in known:
        python = Path(session.bin) / "python"
        outer = {**os.environ, **session.env}  # the session's, so that it keeps its bytecode
        env = {k: v for k, v in outer.items() if v is not None}
        env |= {"XLA_FLAGS": flag, "JAX_PLATFORMS": "cpu"}
        trial = [str(python), "-c", XLA_FLAG_TRIAL]
        known[flag] = subprocess.run(trial, env=env, capture_output=True).returncode == 0
        kept.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(kept, json.dumps(known, indent=1, sort_keys=True) + "\n")
    return bool(known[flag])


def spec(kind: str, jax: str | None = None) -> Session:
    """The inputs and result of one session, as ``scripts/session_inputs.py`` digests them."""
    name = kind if jax is None else f"{kind}(jax='{jax}')"
    if jax is None:  # the report: every result it reads
        reads = tuple(
            p for folder in RESULT_FOLDERS.values() for p in sorted(folder.glob("*.json"))
        )
        results = (ROOT / "reports" / "api-diff.md", ROOT / "reports" / "api-diff.html")
        return Session(name, kind, ENTRIES[kind], results, reads=reads, extra={"runs": RUNS[kind]})
    fetched: tuple[str, ...] = ()
    if kind == "corpus":
        fetched = tuple(f"jax=={r}: jax/experimental/pallas/ops" for r in CORPUS_FROM)
    elif kind == "thirdparty":
        fetched = tuple(f"{lib.name}=={lib.version}" for lib in LIBRARIES)
        fetched += tuple(f"installed: {need}" for need in LIBRARY_NEEDS)
    results = (RESULT_FOLDERS[kind] / f"jax-{jax}.json",)
    python = MATRIX.python_for(jax)
    extra = {"runs": RUNS[kind]}
    return Session(name, kind, ENTRIES[kind], results, jax, python, fetched, extra=extra)


def all_sessions() -> list[Session]:
    """Every session of the main job, in the order nox runs them."""
    return [
        *(spec("probe", r) for r in RELEASES),
        *(spec("kernels", r) for r in RELEASES),
        *(spec("corpus", r) for r in CORPUS_RELEASES),
        *(spec("thirdparty", r) for r in THIRDPARTY_RELEASES),
        spec("report"),
    ]


def longest_first() -> list[str]:
    """The main job's sessions in the order that ends the two workers together: the longest
    kinds first (third-party and corpus, their newest release first, which runs the most
    cases, the two kinds taking turns so that the workers share no migrate work at the
    start), then the chapter's kernels and the probes; the report, which reads them all,
    last."""
    sessions = all_sessions()
    newest_first = {
        kind: [s.name for s in sessions if s.kind == kind][::-1]
        for kind in ("thirdparty", "corpus", "kernels", "probe")
    }
    longest = [
        name
        for pair in itertools.zip_longest(newest_first["thirdparty"], newest_first["corpus"])
        for name in pair
        if name is not None
    ]
    return [*longest, *newest_first["kernels"], *newest_first["probe"], "report"]


def skip_if_up_to_date(session: nox.Session, inputs: Session) -> list[str]:
    """Skip an up-to-date session (one line); else say why it runs. Returns the posargs for
    its command (without ``--force``)."""
    if not forced(session.posargs, dict(os.environ)):
        reason = why_stale(inputs)
        if reason is None:
            session.skip("up to date")
        session.log(f"{inputs.name}: runs, {reason}")
    return [a for a in session.posargs if a != FORCE_ARG]


def record_inputs(inputs: Session, ran: object) -> None:
    """After the result is written: what it was made of, beside it. ``ran`` is what the
    command's ``session.run`` returned: ``None`` when ``nox --install-only`` skipped it."""
    if ran is None:
        return
    inputs.stamp.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(inputs.stamp, stamp_text(inputs))


def per_release(releases: tuple[str, ...]) -> list[nox.param]:
    """``(python, jax)`` params with short ids: ``probe(jax='0.6.2')``."""
    return [nox.param(MATRIX.python_for(r), r, id=f"jax='{r}'") for r in releases]


def imports_marker(session: nox.Session, jax: str, *, shared: bool = True) -> Path:
    """What importing Pallas did in a fresh venv of this release. Kept in the venv: a reused
    venv already has the missing packages, and the finding must not get lost. Kept for the
    release too (``IMPORTS_FOUND``): every session of a release starts from the same project
    and JAX, so the first to look finds it for all (each look is a process that imports JAX,
    then a second install); a venv without a finding of its own has had nothing added."""
    marker = Path(session.virtualenv.location) / "pallas-compat-clean-imports.json"
    found = IMPORTS_FOUND / f"jax-{jax}.json"
    if shared and not marker.exists() and found.is_file():
        write_atomic(marker, found.read_text())
    return marker


def share_imports(marker: Path, jax: str) -> None:
    """A finding just made in this session's fresh venv, kept for the release's others."""
    if marker.is_file():
        IMPORTS_FOUND.mkdir(parents=True, exist_ok=True)
        write_atomic(IMPORTS_FOUND / f"jax-{jax}.json", marker.read_text())


def undeclared(marker: Path) -> list[str]:
    """The packages to install for what JAX imports without declaring it (none if unchecked)."""
    return json.loads(marker.read_text())["install"] if marker.exists() else []


def keep_bytecode(session: nox.Session) -> None:
    """Let the session's processes keep the bytecode of what they import, in its venv.

    A session starts several Python processes that import JAX (the imports check, XLA's flag
    trial, its command; the tests' commands hundreds), and uv installs packages without
    bytecode. Where ``PYTHONDONTWRITEBYTECODE`` is set, as many
    container images set it, every one of them compiled JAX's source again: 3.9 s of CPU for
    ``import jax`` and Pallas on 0.9.2, against 1.3 s from the kept bytecode
    (``benchmarks/bytecode.py``). The venv is nox's, so the bytecode goes there, in one
    folder (``PYTHONPYCACHEPREFIX``), never beside the project's or the packages' source; a
    prefix the user set wins."""
    session.env["PYTHONDONTWRITEBYTECODE"] = None  # None: nox leaves it out of the commands' env
    if not os.environ.get("PYTHONPYCACHEPREFIX"):
        session.env["PYTHONPYCACHEPREFIX"] = str(Path(session.virtualenv.location) / "pycache")


def install_jax(
    session: nox.Session, jax: str, extra: str = "", also: list[str] | None = None
) -> None:
    """The project editable (so a reused venv never runs a stale copy) plus one exact JAX,
    and the venv's processes keep their bytecode (``keep_bytecode``).

    uv rebuilds an editable project on every call (a second per session); a reused venv
    skips the install while the requirements and pyproject.toml are those it was made with."""
    keep_bytecode(session)
    # editables: the runtime of hatch's exact editable mode, which uv does not install itself
    requirements = ["-e", ".[test]", "editables", f"jax{extra}=={jax}", f"jaxlib=={jax}"]
    requirements += also or []
    stamp = Path(session.virtualenv.location) / "pallas-compat-install.sha256"
    pyproject = (ROOT / "pyproject.toml").read_bytes() + CONSTRAINTS.read_bytes()
    wanted = hashlib.sha256(json.dumps(requirements).encode() + pyproject).hexdigest()
    if stamp.is_file() and stamp.read_text() == wanted:
        session.log(f"jax=={jax} and the project are installed (pyproject.toml unchanged)")
        return
    stamp.unlink(missing_ok=True)
    session.install("-c", str(CONSTRAINTS), *requirements, silent=False)  # uv's lines
    # run_install, like install, is skipped by `nox --no-install`: no stamp without an install.
    write = "import pathlib, sys; pathlib.Path(sys.argv[1]).write_text(sys.argv[2])"
    session.run_install("python", "-c", write, str(stamp), wanted, silent=True)


def install_jax_with_undeclared(session: nox.Session, jax: str, also: Sequence[str] = ()) -> None:
    """``install_jax`` plus what this JAX imports without declaring it (found while fresh),
    and ``also``. A finding made with ``also`` installed is this venv's alone: on a new machine
    the corpus session (absl for JAX's own kernels) found 0.5.3 clean, and the kernels session
    that took its word could not import Pallas."""
    marker = imports_marker(session, jax, shared=not also)
    install_jax(session, jax, also=[*undeclared(marker), *also])
    if not marker.exists():
        found = session.run("python", "-m", "probes.imports", silent=True)
        if found is None:  # `nox --install-only`: nothing ran, so nothing was found yet
            return
        write_atomic(marker, found.strip().splitlines()[-1])
        if not also:
            share_imports(marker, jax)
        install_jax(session, jax, also=[*undeclared(marker), *also])


def compilation_cache(session: nox.Session) -> Path:
    """JAX's persistent compilation cache of the probes, one per venv. Only the probes use one
    (a test compares their facts with and without it): the sessions that run kernels do not,
    because on JAX 0.5.3, with the cache on, JAX's own GPU attention kernel computed wrong
    values in interpret mode by the routes that traced it after the first (shim and migrate
    after patch: max abs error 3.5, against 1e-5 with the cache off)."""
    return Path(session.virtualenv.location) / "jax-compilation-cache"


@nox.session(tags=["tests"], allow_parallel=True)
@nox.parametrize("python,jax", per_release(WHOLE_SUITE_FIRST + WINDOW_ENDS))
def tests(session: nox.Session, jax: str) -> None:
    """The pytest suite against one JAX release (and the third-party libraries it reads): the
    whole suite on TESTS, the release-dependent tests (``-m release``) on the other releases
    of the default matrix, the deprecation windows' test on WINDOW_ENDS."""
    if jax in WINDOW_ENDS:
        install_jax(session, jax)
        session.run("python", "-m", "pytest", WINDOW_TESTS, *session.posargs)
        return
    install_jax(session, jax, also=LIBRARY_NEEDS)
    session.run(sys.executable, "scripts/fetch_libraries.py", external=True)  # nox's pip
    # the round trip, and the live check of the committed records, read JAX's own kernels
    fetch = ["scripts/fetch_ops.py", "--releases", ",".join(CORPUS_FROM)]
    session.run(sys.executable, *fetch, external=True)
    subset = [] if jax in TESTS else ["-m", "release"]
    session.run("python", "-m", "pytest", *subset, *session.posargs)


@nox.session(tags=["probe"], allow_parallel=True)
@nox.parametrize("python,jax", per_release(RELEASES))
def probe(session: nox.Session, jax: str) -> None:
    """One snapshot of the installed JAX's Pallas surface: reports/snapshots/jax-X.json.

    In a fresh venv the probes first import the Pallas modules: a module that needs something
    JAX does not declare is a finding, recorded in the snapshot; the probes stop (exit 3), the
    missing packages are installed, and the probes run again. Where another session of the
    release found it already (``imports_marker``), they are installed first."""
    inputs = spec("probe", jax)
    posargs = skip_if_up_to_date(session, inputs)
    marker = imports_marker(session, jax)
    fresh = not marker.exists()
    install_jax(session, jax, also=undeclared(marker))
    SNAPSHOTS.mkdir(parents=True, exist_ok=True)
    TIMINGS.mkdir(parents=True, exist_ok=True)
    run = ["python", "-m", "probes", "--out", str(SNAPSHOTS / f"jax-{jax}.json")]
    run += ["--timings", str(TIMINGS / f"probe-jax-{jax}.json")]
    run += ["--compilation-cache", str(compilation_cache(session)), *posargs]
    env = fast_compile_env(session, jax)
    if fresh:
        ran = session.run(*run, "--check-imports", str(marker), success_codes=[0, 3], env=env)
        share_imports(marker, jax)
        if not undeclared(marker):
            record_inputs(inputs, ran)
            return
        install_jax(session, jax, also=undeclared(marker))
    clean = ["--clean-imports", str(marker)] if undeclared(marker) else []
    ran = session.run(*run, *clean, env=env)
    record_inputs(inputs, ran)


@nox.session(tags=["kernels"], allow_parallel=True)
@nox.parametrize("python,jax", per_release(RELEASES))
def kernels(session: nox.Session, jax: str) -> None:
    """The chapter's kernels under the default modes, and the GPU variants lowered for CUDA
    (``gpu_lower``): reports/kernels/jax-X.json."""
    inputs = spec("kernels", jax)
    posargs = skip_if_up_to_date(session, inputs)
    install_jax_with_undeclared(session, jax)
    KERNELS.mkdir(parents=True, exist_ok=True)
    TIMINGS.mkdir(parents=True, exist_ok=True)
    out = ["--out", str(KERNELS / f"jax-{jax}.json")]
    out += ["--timings", str(TIMINGS / f"kernels-jax-{jax}.json")]
    modes = ["--modes", ",".join(KERNEL_MODES)]
    ran = session.run(
        "python", "-m", "kernels", *modes, *out, *posargs, env=fast_compile_env(session, jax)
    )
    record_inputs(inputs, ran)


@nox.session(tags=["corpus"], allow_parallel=True)
@nox.parametrize("python,jax", per_release(CORPUS_RELEASES))
def corpus(session: nox.Session, jax: str) -> None:
    """JAX's own kernels of CORPUS_FROM on this release: reports/corpus/jax-X.json."""
    inputs = spec("corpus", jax)
    skip_if_up_to_date(session, inputs)
    added = None if forced(session.posargs, dict(os.environ)) else added_fetches(inputs)
    install_jax_with_undeclared(session, jax, also=OPS_NEED)
    fetch = [sys.executable, "scripts/fetch_ops.py", "--releases", ",".join(CORPUS_FROM)]
    session.run(*fetch, external=True)  # nox's own Python has pip; the venv may not
    CORPUS.mkdir(parents=True, exist_ok=True)
    TIMINGS.mkdir(parents=True, exist_ok=True)
    result, timings = CORPUS / f"jax-{jax}.json", TIMINGS / f"corpus-jax-{jax}.json"
    if added:  # a release's ops joined CORPUS_FROM and nothing else changed: run only those
        ran = corpus_of_added(session, jax, [fetched_release(f) for f in added], result)
    else:
        run = ["--out", str(result), "--timings", str(timings), *also_migrate_to(CORPUS_RELEASES)]
        ran = session.run(
            "python", "-m", "kernels.corpus", *run, env=fast_compile_env(session, jax)
        )
    record_inputs(inputs, ran)


def also_migrate_to(releases: Sequence[str]) -> list[str]:
    """The sessions of one kind migrate the same old files, each to its own release: the
    first to migrate a file does it for all of them at once, with one scope analysis, and
    keeps the answers in the cache for the others (``benchmarks/migrate_targets.py``: each
    release still gets a walk of its own)."""
    return ["--also-migrate-to", ",".join(releases)]


def fetched_release(fetched: str) -> str:
    """``jax==0.12.0.1: jax/experimental/pallas/ops`` (as ``spec`` names it) -> ``0.12.0.1``."""
    return fetched.partition("==")[2].partition(":")[0]


def corpus_of_added(session: nox.Session, jax: str, releases: list[str], result: Path) -> object:
    """The corpus of the added releases' ops alone, its records joined to ``result`` in the
    order a run over every release writes them (the other records stand: same inputs)."""
    from fetch_ops import default_cache

    session.log(f"only the ops of {', '.join(releases)} run; the other records stand")
    with tempfile.TemporaryDirectory() as tmp:
        ops = Path(tmp) / "ops"
        ops.mkdir()
        for release in releases:
            (ops / release).symlink_to(default_cache() / "ops" / release)
        part = Path(tmp) / "added.json"
        run = ["--ops", str(ops), "--out", str(part), *also_migrate_to(CORPUS_RELEASES)]
        ran = session.run(
            "python", "-m", "kernels.corpus", *run, env=fast_compile_env(session, jax)
        )
        if ran is None:
            return None
        old, new = json.loads(result.read_text()), json.loads(part.read_text())
        joined = merged_results(old, new, key=lambda record: Version(record["from"]))
        write_atomic(result, json.dumps(joined, indent=1, sort_keys=True) + "\n")
    return ran


@nox.session(tags=["thirdparty"], allow_parallel=True)
@nox.parametrize("python,jax", per_release(THIRDPARTY_RELEASES))
def thirdparty(session: nox.Session, jax: str) -> None:
    """Published libraries' kernels on this release: reports/thirdparty/jax-X.json.

    Those written for this release run natively (their validation), older ones natively
    (to check doctor against) and through patch, the shim's imports and migrate."""
    inputs = spec("thirdparty", jax)
    skip_if_up_to_date(session, inputs)
    marker = imports_marker(session, jax)
    install_jax(session, jax, also=[*undeclared(marker), *LIBRARY_NEEDS])
    session.run(sys.executable, "scripts/fetch_libraries.py", external=True)  # nox's pip
    THIRDPARTY.mkdir(parents=True, exist_ok=True)
    TIMINGS.mkdir(parents=True, exist_ok=True)
    out = ["--out", str(THIRDPARTY / f"jax-{jax}.json")]
    out += ["--timings", str(TIMINGS / f"thirdparty-jax-{jax}.json")]
    out += also_migrate_to(THIRDPARTY_RELEASES)
    ran = session.run(
        "python", "-m", "kernels.thirdparty", *out, env=fast_compile_env(session, jax)
    )
    record_inputs(inputs, ran)


@nox.session(tags=["report"])
def report(session: nox.Session) -> None:
    """reports/api-diff.md and .html from the snapshots and kernel results (no JAX needed)."""
    inputs = spec("report")
    skip_if_up_to_date(session, inputs)
    session.install("--no-deps", "-e", ".", "editables")  # editables: hatch's editable finder
    session.install("-c", str(CONSTRAINTS), "packaging", "numpy")
    ran = session.run("python", "-m", "report", str(SNAPSHOTS), "--out", str(ROOT / "reports"))
    record_inputs(inputs, ran)


@nox.session(python=MATRIX.python_for(NEWEST), tags=["tpu_compile"])
def tpu_compile(session: nox.Session) -> None:
    """Opt-in: deviceless AOT compilation for TPU v4/v5e/v5p/v6e with libtpu (about 1 GB): the
    chapter's kernels, and every TPU-style case of both corpora by every route
    (``--mode tpu_compile``): reports/{kernels,corpus,thirdparty}/tpu-compile-jax-X.json.

    Only releases whose libtpu is on PyPI install (0.4.x took libtpu-nightly from Google's
    bucket, which this session does not reach), so it runs the newest release."""
    install_jax(session, NEWEST, extra="[tpu]", also=LIBRARY_NEEDS)
    KERNELS.mkdir(parents=True, exist_ok=True)
    target = KERNELS / f"tpu-compile-jax-{NEWEST}.json"
    session.run("python", "-m", "kernels", "--modes", "tpu_compile", "--out", str(target))
    session.run(sys.executable, "scripts/fetch_ops.py", "--releases", ",".join(CORPUS_FROM),
                external=True)  # fmt: skip
    session.run(sys.executable, "scripts/fetch_libraries.py", external=True)
    for corpus, folder in (("kernels.corpus", CORPUS), ("kernels.thirdparty", THIRDPARTY)):
        out = folder / f"tpu-compile-jax-{NEWEST}.json"
        session.run("python", "-m", corpus, "--mode", "tpu_compile", "--out", str(out))


@nox.session(venv_backend="none", tags=["gpu"])
def gpu(session: nox.Session) -> None:
    """Opt-in, not in the default run: the kernel set's GPU variants and both corpora's GPU
    cases compiled and run on this machine's GPU, every route, float32 matmul precision, with
    the installed JAX (a GPU machine's, CUDA plugin and all: this session makes no
    environment): reports/gpu/<device>/jax-X/. Without a GPU it says so and succeeds."""
    session.run("python", "scripts/gpu_run.py", *session.posargs, external=True)


@nox.session(tags=["matrix"])
def refresh_matrix(session: nox.Session) -> None:
    """Rewrite jax-matrix.json from the package registry."""
    session.install("packaging", "pip")  # pip: to ask which index it is configured with
    session.run("python", "scripts/refresh_matrix.py", *session.posargs)


#: The mutated copy imports its switch from mutmut: one version, so the copy and the runner agree.
MUTMUT = "mutmut==3.8.1"


@nox.session(python=MATRIX.python_for(NEWEST), tags=["mutants"])
def mutants(session: nox.Session) -> None:
    """Opt-in, not CI: mutmut over the modules ``[tool.mutmut]`` names on the newest release,
    then its survivors again in fresh processes; the kill rate of each module and what is
    left alive (``scripts/mutants.py``; ``nox -s mutants -- --rerun`` starts afresh)."""
    install_jax(session, NEWEST, also=[MUTMUT, *OPS_NEED, *LIBRARY_NEEDS])
    session.run("python", "scripts/mutants.py", *session.posargs)


@nox.session(tags=["mutants"])
@nox.parametrize("python,jax", per_release((OLDEST, MID)))
def mutants_older(session: nox.Session, jax: str) -> None:
    """Opt-in, after ``mutants``: what is still alive, against the tests on the oldest and the
    mid release, which take the branches only older releases take."""
    install_jax(session, jax, also=[MUTMUT, *OPS_NEED, *LIBRARY_NEEDS])
    session.run("python", "scripts/mutants.py", "--recheck-only", *session.posargs)


#: The docs site's generator and checkers, pinned: a new release of one must not turn a strict
#: build red. The site needs no JAX: its pages read the package's facts and rules only.
DOCS_NEED = (
    "mkdocs==1.6.1",
    "mkdocs-material==9.8.2",
    "mkdocstrings==1.0.8",
    "mkdocstrings-python==2.0.11",
    "linkchecker==10.6.0",
    "playwright==1.65.3",
)


@nox.session(python=MATRIX.python_for(NEWEST), tags=["docs"])
def docs(session: nox.Session) -> None:
    """The documentation site: built strict into ``site/`` (a warning fails the build), its
    links checked (local files only), then opened in Chromium (``scripts/check_site.py``)."""
    session.install(*DOCS_NEED, "packaging", "pathspec>=0.12", "editables")
    session.install("--no-deps", "-e", ".")
    # Material's notice about MkDocs 2 is advice to its users, not a warning of this build.
    session.run("mkdocs", "build", "--strict", "--clean", env={"NO_MKDOCS_2_WARNING": "1"})
    # linkchecker follows every link of the site's files; it checks no address outside them.
    session.run("python", "scripts/check_links.py", "site")
    session.run("python", "scripts/check_site.py", "site")


#: The releases the lint session's benchmarks name: their targets, and the releases whose own
#: kernels ``gpu_routes.py`` runs.
BENCHMARK_TARGETS = ("0.6.2", "0.12.0.1")
GPU_ROUTES_OPS = ("0.4.30", "0.6.2")


def unlisted_releases() -> list[str]:
    """The releases this file names itself that ``jax-matrix.json`` no longer lists (after
    ``nox -s refresh_matrix`` drops one, a session there would silently stop running): the
    whole suite's mid release must be in the default matrix, the others among every release."""
    problems = [f"TESTS' {MID} (not in the default matrix)"] if MID not in MATRIX.default else []
    for name, releases in (
        ("WINDOW_ENDS", WINDOW_ENDS),
        ("CORPUS_FROM", CORPUS_FROM),
        ("LIBRARIES_FROM", LIBRARIES_FROM),
        ("BENCHMARK_TARGETS", BENCHMARK_TARGETS),
        ("GPU_ROUTES_OPS", GPU_ROUTES_OPS),
    ):
        problems += [f"{name}' {r}" for r in releases if r not in MATRIX.every]
    return problems


#: Every benchmark with a tiny setting: CI's lint session runs each once, so that a broken one
#: is caught (their numbers are not read there; see each script for its full run).
TINY_BENCHMARKS = (
    ("benchmarks/bytecode.py", "--repeat", "1"),
    ("benchmarks/doctor_speed.py", "--against", "HEAD", "--lines", "300", "--tree-lines", "2000"),
    ("benchmarks/doctor_tree.py", "tests/fixtures/migrate", "--against", "HEAD"),
    ("benchmarks/kernels_suite.py", "--only", "add", "double"),
    (
        "benchmarks/migrate_targets.py",
        "tests/fixtures/real/jax_0_4_30/softmax.py",
        "--targets",
        ",".join(BENCHMARK_TARGETS),
    ),
    ("benchmarks/migrate_speed.py", "--against", "HEAD", "--tree-lines", "2000"),
    ("benchmarks/probe_snapshot.py", "--repeat", "1", "--only-default"),
    ("benchmarks/shim_import.py", "--repeat", "1"),
    ("benchmarks/patch_cost.py", "--against", "HEAD", "--runs", "1"),
    ("benchmarks/shared_programs.py", "--suite", "kernels", "--only", "add"),
    ("benchmarks/xla_emitters.py", "--suite", "kernels", "--only", "add"),
    ("benchmarks/matrix_phases.py", "--skip-warm", "--release", NEWEST),
    ("benchmarks/main_job.py", "--kinds", "report", "--phases", "report,up-to-date"),
    ("benchmarks/gpu_routes.py", "--check"),  # no GPU in CI: lowers each contender for CUDA
)


@nox.session(python=MATRIX.python_for(NEWEST), tags=["lint"])
def lint(session: nox.Session) -> None:
    """ruff, mypy (strict, on the package), then every benchmark once with a tiny setting
    (``TINY_BENCHMARKS``)."""
    session.install("ruff==0.17.6")  # pinned: a new rule in a new ruff must not turn CI red
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    # nox and uv: the main job's benchmarks; mypy pinned like ruff
    install_jax(session, NEWEST, also=["nox", "uv", "mypy==2.4.1", *OPS_NEED])
    session.run("mypy")  # strict, on pallas_compat/ ([tool.mypy] in pyproject.toml)
    fetch = [sys.executable, "scripts/fetch_ops.py", "--releases", ",".join(GPU_ROUTES_OPS)]
    session.run(*fetch, external=True)  # gpu_routes.py runs 0.4.30's and 0.6.2's own kernels
    for benchmark in TINY_BENCHMARKS:
        session.run("python", *benchmark)


if unlisted_releases():
    sys.exit(
        f"nox: error: noxfile.py names releases {MATRIX.path.name} does not list: "
        + ", ".join(unlisted_releases())
        + " (add them back, or change the noxfile)"
    )

nox.options.sessions = longest_first()

#: A release whose Python is not found fails its session instead of passing as "skipped": the
#: main job must not succeed having done nothing. ``nox --no-error-on-missing-interpreters``
#: skips those releases instead, when that is what the user asks for.
nox.options.error_on_missing_interpreters = True
