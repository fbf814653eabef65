"""The report's real-kernel sections: JAX's own kernels of release X on release Y, and
published libraries' kernels on the releases after theirs, per route.

Read from ``reports/corpus/jax-Y.json`` (``python -m kernels.corpus``) and
``reports/thirdparty/jax-Y.json`` (``python -m kernels.thirdparty``), which have one record
shape. A case counts only where it works natively on its own release X; one that does not is
listed as dropped, with the reason. Rows are source x kernel, columns Y; a cell gives each
route's verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from packaging.version import Version

from common import CorpusStatus, DoctorVerdict, LoweringStatus
from report._model import Cell, Fold, Section, Table

ROUTE_LETTER = {"native": "native", "patch": "P", "shim": "S", "migrate": "M"}
MARK = {
    CorpusStatus.WORKS: "✓",
    CorpusStatus.WRONG: "✗",
    CorpusStatus.ERROR: "!",
    CorpusStatus.DEPENDENCY: "dep",
    CorpusStatus.LOWERED_ONLY: "·",
}
#: What ran: in an interpreter, or (where none of the release can run the kernel) lowered.
RAN = frozenset({CorpusStatus.WORKS, CorpusStatus.LOWERED_ONLY})
LOWERED_MARK = {LoweringStatus.LOWERS: "✓", LoweringStatus.FAILS: "✗"}
LEGEND = (
    "Cells: P = `pallas_compat.patch()` on the unmodified file, S = only its imports of what "
    "the shim serves (the Pallas modules, and `for_loop`, `jax.util`, `jax._src.dtypes` and "
    "`jax._src.prng`) changed to `pallas_compat`'s, M = `pallas-compat migrate` then plain "
    "JAX. Two marks per route, interpreter then compiled: ✓ works (NumPy float64 reference, "
    "float32 matmuls), ✗ wrong, ! error, · no interpreter of the release runs it (Mosaic GPU "
    "before 0.11.1, or a feature its interpreter lacks); then ✓ where the call, `interpret` off, "
    "lowers for the kernel's GPU (Triton; Mosaic GPU for an H100, or a B200) or TPU (Mosaic), "
    "✗ where not. A route works only when both hold (a · case: when it lowers). dep = the kernel needs something outside Pallas that the release or the "
    "environment lacks: its own dependency, not counted against the shim."
)


def lowers(record: dict[str, Any]) -> bool:
    lowered = record.get("lowered")
    return not isinstance(lowered, dict) or lowered.get("status") == LoweringStatus.LOWERS


def works(record: dict[str, Any], native: dict[str, Any] | None) -> bool:
    """Runs in the interpreter and compiles; where the kernel does not compile on its own
    release either (``native``), compiling is not asked of the routes. Where no interpreter
    of the release runs it, it works when it compiles."""
    if record["status"] == CorpusStatus.LOWERED_ONLY:
        return lowers(record)
    home_lowers = native is None or lowers(native)
    return record["status"] == CorpusStatus.WORKS and (lowers(record) or not home_lowers)


def validated(native: dict[str, Any] | None) -> bool:
    """Did the case work on its own release: in the interpreter, or lowered where no
    interpreter of that release runs it?"""
    if native is None:
        return False
    if native["status"] == CorpusStatus.LOWERED_ONLY:
        return lowers(native)
    return bool(native["status"] == CorpusStatus.WORKS)


def marks(record: dict[str, Any]) -> str:
    """``✓/✓``: the interpreter's mark, then the compiled one (none for a dependency)."""
    lowered = record.get("lowered")
    if not isinstance(lowered, dict):
        return MARK[record["status"]]
    return f"{MARK[record['status']]}/{LOWERED_MARK[lowered['status']]}"


@dataclass(frozen=True)
class Corpus:
    """One corpus as the report shows it: JAX's own ops, or published libraries' kernels."""

    title: str
    anchor: str
    intro: str
    #: The row group a record belongs to: ``0.4.30`` (its release) or ``fjformer 0.0.70``.
    source: Callable[[dict[str, Any]], str]
    #: The column heading of that group, and what one is called in captions.
    source_heading: str
    noun: str
    #: Counts are given per group of these (one group for JAX's ops, a library each for the
    #: third-party corpus).
    count_by: Callable[[dict[str, Any]], str] | None = None


def ops_source(record: dict[str, Any]) -> str:
    return str(record["from"])


def library_source(record: dict[str, Any]) -> str:
    return f"{record['library']} {record['version']} (JAX {record['from']})"


def validation(
    results: dict[str, dict[str, Any]], kind: Corpus
) -> dict[tuple[str, str], dict[str, Any]]:
    """(source, kernel) -> the native record of its own release's run, where it ran."""
    found = {}
    for release, document in results.items():
        for record in document["results"]:
            if record["route"] == "native" and record["from"] == release:
                found[(kind.source(record), record["kernel"])] = record
    return found


ROUTE_ROWS = (
    ("patch", "patch() on older kernels", False),
    ("shim", "shim imports on older kernels", False),
    ("migrate", "migrate, then plain JAX, on older kernels", False),
    ("shim", "shim imports on newer kernels", True),
)


def counts(
    results: dict[str, dict[str, Any]],
    releases: list[str],
    native: dict[tuple[str, str], dict[str, Any]],
    kind: Corpus,
) -> list[list[Cell]]:
    """Per route (and group): on each release, how many validated older (or, for the shim,
    newer) kernels work; the kernel's own dependencies are not counted."""
    groups = sorted(
        {kind.count_by(r) for d in results.values() for r in d["results"]}
        if kind.count_by
        else {""}
    )
    rows = []
    for group in groups:
        for route, label, newer in ROUTE_ROWS:
            row = [Cell(f"{group}: {label}" if group else label)]
            cells = []
            for release in releases:
                found = [
                    r
                    for r in results[release]["results"]
                    if r["route"] == route
                    and (not kind.count_by or kind.count_by(r) == group)
                    and (Version(r["from"]) > Version(release)) == newer
                    and r["status"] != CorpusStatus.DEPENDENCY
                    and validated(native.get((kind.source(r), r["kernel"])))
                ]
                ok = sum(works(r, native[(kind.source(r), r["kernel"])]) for r in found)
                text = f"{ok}/{len(found)}" if found else "—"
                cells.append(
                    Cell(text, "info" if not found else ("good" if ok == len(found) else "warn"))
                )
            if kind.count_by and all(c.text == "—" for c in cells):
                continue  # a library has no newer kernels: no row of dashes
            rows.append(row + cells)
    return rows


#: Errors of validated old kernels that a shim cannot (or must not) fix, by what they say.
UNFIXED = (
    (
        "is out of bounds for axis 0 with size",  # the same read, caught by 0.5-0.6's simulator
        "the old kernel reads past an SMEM buffer (the next sequence's length); the TPU "
        "simulator checks every read, the interpreter it was validated under did not: a bug in "
        "the old code, not to be hidden",
    ),
    (
        "Out-of-bounds read of",
        "the old kernel reads past an SMEM buffer; the TPU simulator checks every read, the "
        "interpreter it was validated under did not: a bug in the old code, not to be hidden",
    ),
    (
        "Out of bound slice",
        "JAX refuses the static slice inside ref.at[...] before any shim code runs; migrate "
        "rewrites it to an index array",
    ),
    (
        "KeyError: 0",
        "the kernel indexes Compiled.cost_analysis() as the old list: patch() and migrate "
        "handle it, imports alone cannot",
    ),
    (
        "has no attribute 'indices'",
        "the TPU simulator cannot run ref.reshape (a JAX limitation on CPU)",
    ),
    (
        "is not in the installed JAX",
        "the newer kernel uses an API this release does not have, and there is nothing in it "
        "to serve that API from",
    ),
    (
        "Multiple indexers not supported",
        "JAX 0.4.30's HLO interpreter cannot run this kernel's ref indexing (no TPU simulator "
        "before 0.5.1): a JAX limitation of the release",
    ),
    (
        "Batching rule for 'optimization_barrier' not implemented",
        "this release cannot vmap optimization_barrier, which the newer kernel calls: a JAX "
        "limitation of the release",
    ),
    (
        "KeyError: <MemorySpace.ANY",
        "this release's TPU interpreter knows only pltpu.ANY, not the generic pl.ANY the newer "
        "kernel writes: a JAX limitation of the release",
    ),
    (
        "Passing an array as a dtype argument is no longer supported",
        "a jax.numpy change (JAX 0.8): astype() takes a dtype, no longer an array; the "
        "kernel's own code outside Pallas (x.astype(y) for x.astype(y.dtype)), which no "
        "Pallas tool rewrites",
    ),
    (
        "Failed to import the Mosaic GPU bindings",
        "JAX 0.4.30's jaxlib has no Mosaic GPU bindings: no Mosaic GPU kernel runs or lowers "
        "there, and nothing can serve them",
    ),
    (
        "safe_zip() argument 2 is shorter than argument 1",  # 0.6-0.8's wording
        "the TPU simulator cannot run a vmapped pallas_call whose compiler params give "
        "dimension_semantics (vmap adds a grid dimension, the simulator zips the grid with "
        "the semantics given): a JAX limitation from 0.6.2, the kernel lowers for TPU",
    ),
    (
        "safe_zip() argument 1 has length",  # 0.9 on
        "the TPU simulator cannot run a vmapped pallas_call whose compiler params give "
        "dimension_semantics (vmap adds a grid dimension, the simulator zips the grid with "
        "the semantics given): a JAX limitation from 0.6.2, the kernel lowers for TPU",
    ),
    (
        "Only thread-collective allocations are supported in multithreaded kernels",
        "a Mosaic GPU change of meaning (JAX 0.6.1): a pl.run_scoped allocation in a kernel of "
        "several threads (warpgroups) is no longer shared by them unless it says so "
        "(collective_axes=<the thread axis>); the old kernel never had to, and which "
        "allocations the threads share is the kernel's to say: JAX's own newer kernel says it",
    ),
    (
        "has no attribute 'TransposeTransform'",
        "a Mosaic GPU change of meaning: plgpu.TransposeTransform, an SMEM layout transform up "
        "to 0.8.3, became a ref transform in JAX 0.9.0 and went in 0.10.1; JAX's own newer "
        "kernel leaves it out of the SMEM transforms and transposes at the use "
        "(ref.transpose(...)), a layout no tool can choose for the kernel",
    ),
    (
        "plgpu.TransposeTransform is not in the installed JAX",
        "the same change of meaning: plgpu.TransposeTransform, an SMEM layout transform to "
        "0.8.3, went in JAX 0.10.1 (a ref transform from 0.9.0), and the shim will not guess "
        "the layout the kernel wants",
    ),
    (
        "Expected the same number of in_tmem_layouts",
        "a Mosaic GPU semantic change (JAX 0.7.0): reading tensor memory with acc_tmem[...] "
        "became plgpu.async_load_tmem(acc_tmem) then plgpu.wait_load_tmem(); a TMEM ref is "
        "not told from any other ref in the source, so no rule can find it",
    ),
    (
        "Loads from TMEM are asynchronous",
        "the same Mosaic GPU semantic change, as JAX 0.7-0.9 word it: write "
        "plgpu.async_load_tmem(ref) and plgpu.wait_load_tmem()",
    ),
    (
        "You need to prove the divisibility",
        "a Mosaic GPU compiler change (JAX 0.11.0): its layout inference now needs the offset of a "
        "dynamic slice proven a multiple of the block (pl.multiple_of(start, block)), which "
        "the old kernel never had to say; JAX's own newer kernel adds it",
    ),
    (
        "Effects not supported in `custom_vjp`",
        "this release's HLO interpreter runs the kernel through callbacks, which its custom_vjp "
        "(splash attention's backward) refuses: a JAX limitation of the release",
    ),
)


def doctor_rows(
    results: dict[str, dict[str, Any]],
    releases: list[str],
    native: dict[tuple[str, str], dict[str, Any]],
    kind: Corpus,
) -> tuple[list[list[Cell]], list[list[Cell]]]:
    """Per group and release, of the validated cases' plain runs, how many doctor's verdict
    matched; and each one that did not."""
    group_of = kind.count_by or (lambda record: "")
    groups = sorted({group_of(r) for d in results.values() for r in d["results"]})
    rows, wrong = [], []
    for group in groups:
        cells = []
        for release in releases:
            checked = [
                r
                for r in results[release]["results"]
                if r["route"] == "native"
                and "doctor" in r
                and r["doctor"] != DoctorVerdict.NOT_PALLAS
                and group_of(r) == group
                and validated(native.get((kind.source(r), r["kernel"])))
            ]
            agree = sum(r["doctor"] == DoctorVerdict.AGREES for r in checked)
            text = f"{agree}/{len(checked)}" if checked else "—"
            good = agree == len(checked)
            cells.append(Cell(text, "info" if not checked else ("good" if good else "bad")))
            wrong += [
                [
                    Cell(kind.source(r)),
                    Cell(r["kernel"]),
                    Cell(release),
                    Cell(str(r["doctor"]), "bad"),
                    Cell(f"{r['status']}: {r.get('detail', '')}".rstrip(": ")),
                    Cell(", ".join(r["flagged"]) or "nothing"),
                ]
                for r in checked
                if r["doctor"] != DoctorVerdict.AGREES
            ]
        if any(c.text != "—" for c in cells):
            rows.append([Cell(group or "all"), *cells])
    return rows, wrong


def why_unfixed(first_line: str, route: str) -> str:
    for needle, reason in UNFIXED:
        if needle in first_line:
            return reason
    return "not known yet: a gap to close" if route != "migrate" else "a gap in migrate"


def tone(records: list[dict[str, Any]], native: dict[str, Any] | None) -> str:
    statuses = {r["status"] for r in records}
    if statuses & {CorpusStatus.ERROR, CorpusStatus.WRONG} or not all(
        works(r, native) for r in records if r["status"] in RAN
    ):
        return "bad"
    if statuses <= RAN:
        return "good"
    return "info"


Cases = dict[tuple[str, str], dict[str, list[dict[str, Any]]]]
Problems = dict[tuple[str, str, str, str, str], list[str]]


def cases(results: dict[str, dict[str, Any]], kind: Corpus) -> tuple[Cases, dict[str, str]]:
    """(source, kernel) -> release -> its non-native records; and each source's own release."""
    found: Cases = {}
    home: dict[str, str] = {}
    for release in sorted(results, key=Version):
        for record in results[release]["results"]:
            home[kind.source(record)] = record["from"]
            if record["route"] != "native":
                found.setdefault((kind.source(record), record["kernel"]), {}).setdefault(
                    release, []
                ).append(record)
    return found, home


def case_row(
    source: str,
    kernel: str,
    by_release: dict[str, list[dict[str, Any]]],
    check: dict[str, Any] | None,
    home: str,
    releases: list[str],
    problems: Problems,
) -> list[Cell]:
    """One case's row of the matrix; its validated failures go into ``problems``."""
    label = kernel if check is not None else f"{kernel} (not validated: JAX {home} did not run)"
    row = [Cell(source), Cell(label)]
    for release in releases:
        records = by_release.get(release)
        if release == home:
            text = f"native {marks(check)}" if check else "—"
            row.append(Cell(text, ("good" if lowers(check) else "warn") if check else "info"))
            continue
        if not records:
            row.append(Cell("—", "info"))
            continue
        text = " ".join(f"{ROUTE_LETTER[r['route']]}{marks(r)}" for r in records)
        row.append(Cell(text, tone(records, check)))
        for r in records if check is not None else ():  # validated cases only
            if r["status"] in (CorpusStatus.ERROR, CorpusStatus.WRONG):
                what = r.get("detail") or f"max abs error beyond {r.get('tolerance')}"
                key = (source, kernel, r["route"], r.get("whose", "—"), what)
                problems.setdefault(key, []).append(release)
            elif r["status"] in RAN and not works(r, check):
                lowered = r["lowered"]
                what = f"compiling for {lowered['for']}: {lowered.get('detail', '')}"
                key = (source, kernel, r["route"], lowered.get("whose", "—"), what)
                problems.setdefault(key, []).append(release)
    return row


def problem_table(problems: Problems, heading: str) -> Table:
    rows = [
        [
            Cell(source),
            Cell(kernel),
            Cell(route),
            Cell(who),
            Cell(", ".join(on)),
            Cell(what, "bad"),
            Cell(why_unfixed(what, route)),
        ]
        for (source, kernel, route, who, what), on in problems.items()
    ]
    columns = [heading, "kernel", "route", "whose", "on JAX", "first line", "why no shim fixes it"]
    return Table(columns, rows, caption="what went wrong")


def doctor_tables(
    results: dict[str, dict[str, Any]],
    releases: list[str],
    native: dict[tuple[str, str], dict[str, Any]],
    kind: Corpus,
) -> list[Table]:
    checked, disagreed = doctor_rows(results, releases, native, kind)
    tables = []
    if checked:
        tables.append(
            Table(
                [kind.noun, *releases],
                checked,
                "doctor vs a plain run: validated cases where what doctor says breaks on the "
                "release is what ran when the plain run failed, and nothing that ran when it "
                "worked (runs that failed for a change outside Pallas, a jax.numpy one, are "
                "not counted)",
            )
        )
    if disagreed:
        columns = [kind.source_heading, "kernel", "on JAX", "doctor", "plain run"]
        tables.append(
            Table(
                [*columns, "uses doctor flags that ran"],
                disagreed,
                caption="where doctor and the plain run disagree",
            )
        )
    return tables


def corpus(results: dict[str, dict[str, Any]], kind: Corpus | None = None) -> Section:
    kind = kind or OPS
    releases = sorted(results, key=Version)
    native = validation(results, kind)
    found, release_of = cases(results, kind)
    rows: list[list[Cell]] = []
    dropped: list[list[Cell]] = []
    own: list[list[Cell]] = []
    problems: Problems = {}
    for (source, kernel), by_release in sorted(
        found.items(), key=lambda kv: (Version(release_of[kv[0][0]]), kv[0][0], kv[0][1])
    ):
        check = native.get((source, kernel))
        home = release_of[source]
        if check is not None and not validated(check):
            reason = check.get("detail") or f"max abs error beyond {check.get('tolerance')}"
            if check["status"] == CorpusStatus.LOWERED_ONLY:  # and it did not lower either
                reason = f"{reason}; lowering: {check['lowered'].get('detail', '')}"
            info = Cell(f"{check['status']} on JAX {home}: {reason}", "info")
            dropped.append([Cell(source), Cell(kernel), info])
            continue
        if check is not None and not lowers(check):
            lowered = check["lowered"]
            reason = f"does not compile for {lowered['for']}: {lowered.get('detail', '')}"
            own.append([Cell(source), Cell(kernel), Cell(reason, "info")])
        rows.append(case_row(source, kernel, by_release, check, home, releases, problems))
    matrix = Table(
        [kind.source_heading, "kernel", *releases],
        rows,
        caption=f"kernel of {kind.noun} X, run on release Y",
        keys=2,
    )
    tables = [
        Table(
            ["route", *releases],
            counts(results, releases, native, kind),
            "validated cases that work (in the interpreter, and compiled for their GPU or TPU), per "
            "release they ran on",
        ),
        *doctor_tables(results, releases, native, kind),
    ]
    if own:
        tables.append(
            Table(
                [kind.source_heading, "kernel", "on its own release"],
                own,
                caption="right in the interpreter on their own release, but not compiled there "
                "either: the kernel's own, so the routes are counted on the interpreter alone",
            )
        )
    if dropped:
        tables.append(
            Table(
                [kind.source_heading, "kernel", "why dropped"],
                dropped,
                caption="not counted: wrong on their own release",
            )
        )
    folds = [
        Fold(
            f"Every kernel of every {kind.noun}, by route ({len(rows)} rows)",
            f"{kind.anchor}-matrix",
            tables=[matrix],
        )
    ]
    if problems:  # long where a kernel fails on many releases: folded, like the matrix
        folds.append(
            Fold(
                f"What went wrong for validated kernels, whose it is and why no shim fixes it "
                f"({len(problems)} rows)",
                f"{kind.anchor}-problems",
                tables=[problem_table(problems, kind.source_heading)],
            )
        )
    return Section(kind.title, kind.anchor, f"{kind.intro} {LEGEND}", tables, folds=folds)


OPS = Corpus(
    "Real kernels: JAX's own ops on other releases",
    "corpus",
    "JAX's own kernels (`jax/experimental/pallas/ops`) of each release X, run on release Y "
    "under interpret mode on a CPU (GPU kernels with `interpret=True`; TPU kernels with "
    "their own `interpret=` or inside `pltpu.force_tpu_interpret_mode()`, which "
    "pallas-compat back-fills before JAX 0.7.0: the TPU simulator where the release has "
    "one, else the HLO interpreter), and lowered with `interpret` off for the hardware of "
    "their folder (`gpu/`: CUDA, `tpu/`: TPU): `python -m kernels.corpus`, `nox -s corpus`.",
    ops_source,
    "from JAX",
    "release",
)
THIRDPARTY = Corpus(
    "Real kernels: published libraries' kernels on newer releases",
    "thirdparty",
    "Pallas kernels of libraries on the package registry, each at a version written for JAX "
    "0.4.30-0.6.x (the newest matrix release out when it was uploaded that its requirement "
    "admits), validated there natively and run on every newer release by each route, against "
    "NumPy float64 or exact integers (`kernels/thirdparty/_cases.py`): `python -m "
    "kernels.thirdparty`, `nox -s thirdparty`. GPU-style kernels run with `interpret=True`, "
    "TPU-style ones in the TPU interpreter, as for JAX's ops, and each is lowered for the "
    "hardware its authors wrote it for with `interpret` off. Each case also runs unchanged "
    "on every newer release, to check `pallas-compat doctor` against it: what doctor says "
    "breaks there must have run when the plain run failed, and nothing it flags may have run "
    "when the plain run worked.",
    library_source,
    "library (written for)",
    "library",
    count_by=lambda record: str(record["library"]),
)
