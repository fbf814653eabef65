"""A support window: what a library that supports JAX A to B may write, area by area.

For each area (BlockSpec, compiler params, memory spaces, ...) every spelling of it the
releases ever had, names that never changed included, with where it runs natively and where
``pallas_compat`` serves it; then the answer: the spellings that run natively on every
release of the window, or, where there is none, the ``pallas_compat`` spelling that does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.version import Version

from pallas_compat.facts import (
    CALL_FORMS,
    MOSAIC_GPU,
    PL,
    TPU,
    TRITON,
    CallForm,
    Location,
    call_form_releases,
    pallas_call_keyword_releases,
    release_ranges,
    shim_serves,
    works_in,
)
from pallas_compat.rules._use import runs
from report._surface import DEPRECATED, RUNS, Surface

#: (area, the modules it looks in, which of their names belong to it).
AREAS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        "BlockSpec and indexing",
        (PL,),
        r"BlockSpec|Blocked|Unblocked|Element|[Ss]queezed|BoundedSlice|GridSpec",
    ),
    ("TPU compiler params", (TPU,), r"CompilerParams"),
    ("Triton compiler params", (TRITON,), r"CompilerParams"),
    ("Mosaic GPU compiler params", (MOSAIC_GPU,), r"CompilerParams"),
    ("memory spaces", (PL, TPU), r"MemorySpace|^(VMEM|SMEM|ANY|HOST|HBM|SEMAPHORE|VMEM_SHARED)$"),
    ("interpret mode", (PL, TPU), r"[Ii]nterpret"),
    ("loads and stores", (PL, TPU, TRITON), r"^(load|store|swap)$"),
    ("semaphores and DMAs", (PL, TPU), r"[Ss]emaphore|async_(remote_)?copy|DeviceIdType"),
    ("pipelining", (PL, TPU), r"pipeline|Buffered|BufferType|PipelineStep"),
)
#: Spellings that are no name: call forms (scanned), keyword forms (the scan's keywords of
#: the callable: (callable, keywords)), and indexing, which every release takes.
FORMS: dict[str, tuple[str, ...]] = {
    "BlockSpec and indexing": (
        CallForm.BLOCK_SPEC_ORDER,
        CallForm.BLOCKED_MODE,
        "pl.BlockSpec(block_shape=..., index_map=...)",
    ),
    "TPU compiler params": (CallForm.DICT_PARAMS,),
    "interpret mode": ("pl.pallas_call(..., interpret=True)",),
    "loads and stores": ("x_ref[idx] / x_ref[idx] = v",),
}
KEYWORD_FORMS: dict[str, tuple[str, tuple[str, ...]]] = {
    "pl.BlockSpec(block_shape=..., index_map=...)": (
        f"{PL}:BlockSpec",
        ("block_shape", "index_map"),
    ),
    "pl.pallas_call(..., interpret=True)": (f"{PL}:pallas_call", ("interpret",)),
}


@dataclass(frozen=True)
class Row:
    spelling: str
    #: The releases of the window it runs on natively, and those where it warns.
    runs: list[str]
    warns: list[str]
    #: The releases of the window ``pallas_compat`` runs it on.
    served: list[str]
    link: str = ""
    #: Keywords of a callable that some release of the window it runs on does not take.
    keywords: tuple[tuple[str, list[str]], ...] = ()

    def native_everywhere(self, window: list[str]) -> bool:
        return len(self.runs) == len(window)

    def served_everywhere(self, window: list[str]) -> bool:
        return len(self.served) == len(window)


@dataclass(frozen=True)
class Area:
    title: str
    rows: list[Row]
    window: list[str]

    @property
    def native(self) -> list[Row]:
        return [r for r in self.rows if r.native_everywhere(self.window)]

    @property
    def plain(self) -> list[Row]:
        """Natively on every release and without a deprecation warning on any."""
        return [r for r in self.native if not r.warns]

    @property
    def through_shim(self) -> Row | None:
        """The newest spelling ``pallas_compat`` serves on every release of the window."""
        served = [r for r in self.rows if r.served_everywhere(self.window)]
        newest = [r for r in served if self.window[-1] in r.runs and not r.warns]
        return (newest or served or [None])[0]

    def answer(self) -> str:
        if self.plain:
            return "works natively on every release: " + ", ".join(r.spelling for r in self.plain)
        if self.native:
            return "works on every release, with a deprecation warning on some: " + ", ".join(
                r.spelling for r in self.native
            )
        shim = self.through_shim
        if shim is None:
            return "no spelling works on every release, natively or with pallas_compat"
        return (
            "no spelling works natively on every release; with pallas_compat: "
            f"{shim.spelling} (import it from pallas_compat, or call pallas_compat.patch())"
        )


@dataclass(frozen=True)
class Window:
    first: str
    last: str
    releases: list[str]
    areas: list[Area]


def name_row(module: str, name: str, window: list[str], surface: Surface) -> Row:
    states = {r: surface.state(r, module, name)[0] for r in window}
    spelling = Location(module, name).spelling
    runs = [r for r in window if states[r] in RUNS]
    changed = release_ranges().get("keywords", {}).get(f"{module}:{name}", {})
    keywords = tuple(
        (word, taken)
        for word, spans in sorted(changed.items())
        if not word.startswith("_") and (taken := [r for r in runs if works_in(spans, r)]) != runs
    )
    return Row(
        spelling,
        runs,
        [r for r in window if states[r] == DEPRECATED],
        # the namespaces pass JAX's own names through: where it runs natively, so does the shim
        [r for r in window if states[r] in RUNS or shim_serves(module, name, r)],
        f"#{surface.anchor(module, name)}",
        keywords,
    )


def keyword_form_runs(callable_key: str, words: tuple[str, ...], window: list[str]) -> list[str]:
    """The releases whose callable takes every one of ``words``: the scan lists a keyword
    that came or went while the callable lived; one it does not list lived with it."""
    module, _, name = callable_key.partition(":")
    lived = Location(module, name).releases or [[window[0], window[-1]]]
    changed = release_ranges().get("keywords", {}).get(callable_key, {})
    spans = [changed.get(w) or lived for w in words]
    if callable_key == f"{PL}:pallas_call":
        spans = [pallas_call_keyword_releases(w) or lived for w in words]
    return [r for r in window if all(works_in(s, r) for s in spans)]


def form_row(form: str, window: list[str]) -> Row:
    if form in CALL_FORMS:
        spans = call_form_releases(form)
        runs = [r for r in window if works_in(spans, r)]
        # the shim's facades take every form on every release (tests/test_shim_kernels.py)
        return Row(str(form), runs, [], list(window))
    if form in KEYWORD_FORMS:
        runs = keyword_form_runs(*KEYWORD_FORMS[form], window)
        return Row(form, runs, [], runs)
    return Row(form, list(window), [], list(window))  # indexing a ref: every release


def window(first: str, last: str, surface: Surface) -> Window:
    releases = [r for r in surface.releases if Version(first) <= Version(r) <= Version(last)]
    areas = []
    for title, modules, pattern in AREAS:
        rows = [
            name_row(module, name, releases, surface)
            for module, name in surface.names()
            if module in modules and re.search(pattern, name)
        ]
        rows = [r for r in rows if r.runs or r.served]  # names of other eras only
        rows += [form_row(form, releases) for form in FORMS.get(title, ())]
        rows.sort(key=lambda r: (not r.native_everywhere(releases), r.spelling))
        areas.append(Area(title, rows, releases))
    return Window(first, last, releases, areas)


def runs_text(found: list[str], window: list[str]) -> str:
    if len(found) == len(window):
        return "every release"
    return runs(found) if found else "no release"


def keywords_text(row: Row) -> str:
    return ", ".join(
        f"{word}= ({runs(taken) if taken else 'none'})" for word, taken in row.keywords
    )


def text(found: Window) -> str:
    lines = [
        f"Supporting JAX {found.first} to {found.last} ({len(found.releases)} releases): "
        "what runs on every one"
    ]
    for area in found.areas:
        lines += ["", f"{area.title}: {area.answer()}"]
        for row in area.rows:
            warns = f"; warns on {runs_text(row.warns, found.releases)}" if row.warns else ""
            lines.append(
                f"  {row.spelling}: natively on {runs_text(row.runs, found.releases)}{warns}; "
                f"with pallas_compat on {runs_text(row.served, found.releases)}"
            )
            if row.keywords:
                lines.append(f"      keywords not on every release: {keywords_text(row)}")
    return "\n".join(lines) + "\n"
