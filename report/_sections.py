"""The API-diff report's content: sections built from snapshots and results (``_model``),
breaking changes first; ``_render`` turns them into Markdown and a self-contained page."""

from __future__ import annotations

import itertools
from typing import Any

from packaging.version import Version

from common import KernelStatus
from pallas_compat.facts import (
    CALL_FORMS,
    CALL_KEYWORDS,
    COST_ANALYSIS_HINT,
    COST_ANALYSIS_INDEX,
    FEATURES,
    FEATURES_BY_KEY,
    HEADLINE_FEATURES,
    INTERPRET_FORMS,
    PALLAS_CALL,
    CallForm,
    call_form_releases,
    call_form_warned_releases,
    cost_analysis_index_releases,
    describe,
    form_anchor,
    name_anchor,
    pallas_call_keyword_releases,
    release_ranges,
    scanned_releases,
    works_in,
)
from report import _changes, _guide, _support
from report._load import Snapshot
from report._model import Answer, Bar, Cell, Chart, Fold, Section, Table, tone_of
from report._surface import PRESENT, RUNS, Surface

#: Presence strip marks: one cell per release.
MARKS = {"present": ("●", "good"), "deprecated": ("◐", "warn")}
ABSENT = ("·", "info")
#: A call form a release refuses: red, as the legend says of refused.
REFUSED = ("·", "bad")


def feature_cell(snap: Snapshot, key: str) -> Cell:
    record = snap.data["features"].get(key, {})
    status = record.get("status", "unavailable")
    why = ""
    if status == "unavailable":
        tried = record.get("candidates", {})
        why = "; ".join(f"{spelling}: {state}" for spelling, state in tried.items())
        why = f"JAX {snap.release} has none of its spellings ({why})" if why else ""
    return Cell(f"{record.get('resolves_to') or '—'} ({status})", tone_of(status), why=why)


def absent_module(record: dict[str, Any], module: str) -> bool:
    """A module the release does not ship (not one that ships and fails to import)."""
    message = record.get("error", {}).get("message", "")
    return record.get("imports") is False and message == f"No module named '{module}'"


def interpret_cell(snap: Snapshot) -> Cell:
    """What ``interpret=`` took on this release, named as the release spells it."""
    accepted = []
    for key, feature in INTERPRET_FORMS:
        if snap.data["behaviours"].get(key, {}).get("outcome") != "returned":
            continue
        record = snap.data["features"].get(feature, {}) if feature else {}
        spelling = record.get("resolves_to") or "True"
        status = record.get("status")
        accepted.append(f"{spelling} ({status})" if status in ("private", "legacy") else spelling)
    return Cell(", ".join(accepted) or "—", "good")


def ad_cell(snap: Snapshot) -> Cell:
    """The AD rules ``pallas_call_p`` has, less placeholders that only raise (0.8.3-0.10.2
    register a transpose rule that cannot transpose), plus batching (vmap)."""
    autodiff = snap.data.get("autodiff", {})
    rules = autodiff.get("rules", {})
    placeholders = autodiff.get("grad_check", {}).get("placeholder_rules", [])
    found = [
        label
        for key, label, table in (
            ("has_jvp", "jvp", "ad.primitive_jvps"),
            ("has_partial_eval", "partial eval", "pe.custom_partial_eval_rules"),
            ("has_transpose", "transpose", "ad.primitive_transposes"),
            ("has_batching", "batching (vmap)", ""),
        )
        if rules.get(key) and table not in placeholders
    ]
    why = f"placeholder, raises: {', '.join(placeholders)}" if placeholders else ""
    return Cell(", ".join(found) or "none", "info", why=why)


def summary(snapshots: list[Snapshot]) -> Section:
    rows = []
    for snap in snapshots:
        spec = FEATURES_BY_KEY["block_spec"].modern
        names = snap.data["modules"].get(spec.module, {}).get("names", {})
        block_spec = names.get(spec.attr, {})
        params = block_spec.get("fields") or block_spec.get("signature") or [{}]
        first = params[0].get("name", "?")
        modules = snap.data["modules"]
        failed = [m for m, r in modules.items() if r.get("imports") is False]
        absent = [m for m in failed if absent_module(modules[m], m)]
        broken = [m for m in failed if m not in absent]
        rows.append(
            [
                Cell(snap.release, anchor=f"release-{snap.release}"),
                *(feature_cell(snap, key) for key in HEADLINE_FEATURES),
                Cell(f"BlockSpec({first}, ...)", "good" if first == "block_shape" else "warn"),
                interpret_cell(snap),
                ad_cell(snap),
                Cell(
                    str(len(broken)),
                    "warn" if broken else "good",
                    why="; ".join(broken)
                    + (
                        " | not shipped: "
                        if broken and absent
                        else "not shipped: "
                        if absent
                        else ""
                    )
                    + ", ".join(m.rpartition(".")[2] for m in absent),
                ),
            ]
        )
    headers = [
        "JAX",
        *HEADLINE_FEATURES.values(),
        "BlockSpec order",
        "interpret= accepts",
        "pallas_call AD rules",
        "modules failing to import",
    ]
    return Section(
        "Summary",
        "summary",
        "Where the headline features live in each release, as the probes found them. A module "
        "a release does not ship (the 0.6.2 wheel has no pallas/fuser.py) is not a failure.",
        [Table(headers, rows)],
    )


# -- upgrade guides


def guide_tables(found: _guide.Guide) -> list[Table]:
    tables = []
    for kind, changes in found.by_kind():
        rows = [
            [
                Cell(c.subject, link=f"#{c.anchor}" if c.anchor else ""),
                Cell(f"{c.what} {c.detail}".strip()),
                Cell(c.instead),
                Cell(_guide.yes_no(c.shim), tone_of(_guide.yes_no(c.shim))),
                Cell(_guide.yes_no(c.migrate), tone_of(_guide.yes_no(c.migrate))),
            ]
            for c in changes
        ]
        headers = ["what", "change", "write instead", "pallas_compat", "migrate"]
        tables.append(Table(headers, rows, caption=f"{kind.value} ({len(changes)})"))
    return tables


def guide_pairs(releases: list[str]) -> list[tuple[str, str]]:
    """Every probed pair, oldest first, each "from" release's targets newest first."""
    return [(a, b) for i, a in enumerate(releases) for b in reversed(releases[i + 1 :])]


def guides(
    surface: Surface,
    kernel_results: dict[str, dict[str, Any]],
    corpus_results: dict[str, dict[str, Any]],
    thirdparty_results: dict[str, dict[str, Any]] | None = None,
) -> Section:
    folds = []
    probed = [s.release for s in surface.snapshots]
    in_markdown = {(probed[0], probed[-1]), *itertools.pairwise(probed)}
    for old, new in guide_pairs(probed):
        found = _guide.guide(old, new, surface, kernel_results, corpus_results, thirdparty_results)
        counts = ", ".join(f"{len(c)} {k.value}" for k, c in found.by_kind())
        folds.append(
            Fold(
                f"JAX {old} → {new}: {counts or 'nothing breaks'}",
                found.anchor,
                f"python -m report guide --from {old} --to {new}",
                guide_tables(found),
                html_only=(old, new) not in in_markdown,
            )
        )
    others = [f for f in folds if f.html_only]
    folds = [f for f in folds if not f.html_only]
    if others:
        folds.append(
            Fold(
                f"Every other pair of probed releases ({len(others)})",
                "upgrade-other-pairs",
                html_only=True,
                folds=others,
            )
        )
    return Section(
        "Upgrade guides: what breaks from A to B",
        "upgrade",
        "Only what breaks or changes behaviour, grouped; each with what to write instead, whether "
        "pallas_compat keeps the old code working (measured on each release) and whether "
        "`pallas-compat migrate` rewrites it. Here the probed releases; any two of the "
        f"{len(surface.releases)} releases the scan knows in a terminal: "
        "`python -m report guide --from A --to B`.",
        folds=folds,
        md_elsewhere="Here the oldest to the newest and each probed release to the next; every "
        "other probed pair is in the HTML page (api-diff.html), and any pair in a terminal.",
    )


# -- names: breaking first


def marks(surface: Surface, module: str, name: str) -> list[tuple[str, str, str]]:
    """(mark, tone, state word) per release: an absence after the name existed is a removal
    (red), one before it came is only "not yet" (grey)."""
    found, ever = [], False
    for release in surface.releases:
        state, _ = surface.state(release, module, name)
        ever = ever or state in RUNS
        if state in RUNS:
            found.append((*MARKS[state], state))
        elif ever:
            found.append((*REFUSED, "removed"))
        else:
            found.append((*ABSENT, "not yet added"))
    return found


def strip(surface: Surface, module: str, name: str) -> list[Cell]:
    cells = []
    for release, (mark, tone, word) in zip(
        surface.releases, marks(surface, module, name), strict=True
    ):
        message = surface.state(release, module, name)[1] if word != PRESENT else None
        # the sticky header row labels every column: a tooltip only where JAX said something
        why = f"JAX {release}: {word} ({message})" if message else ""
        cells.append(Cell(mark, tone, why=why))
    return cells


def name_rows(
    surface: Surface, names: list[tuple[str, str]], timeline: list[_changes.NameEvent]
) -> list[list[Cell]]:
    newest = surface.releases[-1]
    events: dict[tuple[str, str], list[str]] = {}
    for event in timeline:
        events.setdefault((event.module, event.name), []).append(f"{event.change} {event.release}")
    rows = []
    for module, name in names:
        spelling = _changes.Location(module, name).spelling
        after, message = surface.state(newest, module, name)
        last_message = message or surface.message(newest, module, name)
        instead, advice = "", ""
        if after != PRESENT:
            lived = [r for r in surface.releases if surface.state(r, module, name)[0] in RUNS]
            change = _guide.name_change(module, name, lived[0], newest, surface, last_message)
            instead, advice = change.instead, change.advice
        dating = _guide.wrong_release(last_message, _guide.measured_changes(surface, module, name))
        when = "; ".join(events.get((module, name), [])) or "in every release"
        rows.append(
            [
                Cell(spelling, anchor=surface.anchor(module, name)),
                *strip(surface, module, name),
                Cell(f"{when} ({dating})" if dating else when),
                Cell(f"{instead}; {advice}" if advice else instead),
            ]
        )
    return rows


def breaking_names(timeline: list[_changes.NameEvent]) -> list[tuple[str, str]]:
    """Names deprecated, removed or moved in some release."""
    found = {(e.module, e.name) for e in timeline if e.change not in ("added", "re-added")}
    return sorted(found, key=lambda mn: _changes.Location(*mn).spelling)


def forms() -> list[tuple[str, list[list[str]], str]]:
    """(form, releases that accept it, what to write instead): the call forms of the table,
    every ``pallas_call`` keyword some release lacks, and ``cost_analysis()[0]``."""
    found = [(form, call_form_releases(form), instead) for form, instead in CALL_FORMS.items()]
    for name in sorted(release_ranges()["keywords"].get(PALLAS_CALL, {})):
        form = f"pallas_call({name}=...)"
        spans = pallas_call_keyword_releases(name)
        if form not in CALL_FORMS and spans != [[scanned_releases()[0], scanned_releases()[-1]]]:
            instead = CALL_KEYWORDS.get(name, f"pallas_call({name}=...) where the release has it")
            found.append((form, spans, instead))
    old = cost_analysis_index_releases(scanned_releases())
    found.append((COST_ANALYSIS_INDEX, [list(span) for span in old], COST_ANALYSIS_HINT))
    return found


def form_rows(releases: list[str]) -> list[list[Cell]]:
    rows = []
    for form, spans, instead in forms():
        cells = []
        warned = call_form_warned_releases(form) if form in CALL_FORMS else []
        for release in releases:
            works = works_in(spans, release)
            warns = works and works_in(warned, release)
            mark, tone = MARKS["deprecated" if warns else "present"] if works else REFUSED
            said = "accepted with a deprecation warning" if warns else "accepted"
            why = f"JAX {release}: {said if works else 'refused'}"
            cells.append(Cell(mark, tone, why=why))
        accepted = [r for r in releases if works_in(spans, r)]
        refused = [r for r in releases if not works_in(spans, r)]
        if not refused:
            when = "accepted by every release"
        elif not accepted:
            when = "refused by every release"
        elif Version(refused[0]) > Version(accepted[-1]):
            when = f"accepted {accepted[0]}-{accepted[-1]}; refused from {refused[0]}"
        elif Version(accepted[0]) > Version(refused[-1]):
            when = f"refused {refused[0]}-{refused[-1]}; accepted from {accepted[0]}"
        else:
            when = f"accepted in {', '.join(accepted)}"
        rows.append([Cell(form, anchor=form_anchor(form)), *cells, Cell(when), Cell(instead)])
    return rows


def timeline_chart(surface: Surface, names: list[tuple[str, str]]) -> Chart:
    bars = []
    for module, name in names:
        spelling = _changes.Location(module, name).spelling
        states = tuple(tone for _, tone, _ in marks(surface, module, name))
        bars.append(Bar(spelling, states, f"#{surface.anchor(module, name)}"))
    return Chart(
        list(surface.releases),
        bars,
        "When each breaking name came and went: green present, amber deprecated, red absent "
        "after it existed, grey before.",
    )


def name_timeline(surface: Surface) -> Section:
    releases = surface.releases
    events = _changes.timeline(surface)  # once: every row and the chart read it
    breaking = breaking_names(events)
    changed = {(e.module, e.name) for e in events}
    added = sorted(changed - set(breaking), key=lambda mn: _changes.Location(*mn).spelling)
    steady = sorted(set(surface.names()) - changed, key=lambda mn: _changes.Location(*mn).spelling)
    headers = ["name", *releases, "changes", "write instead (newest release)"]
    form_headers = ["call form", *releases, "when", "write instead"]
    probed = ", ".join(s.release for s in surface.snapshots)
    return Section(
        "Names and call forms: when each came and went",
        "timeline",
        f"Every JAX release from {releases[0]} ({len(releases)}), read from each release's "
        f"sources by the release scan; the probed releases ({probed}) agree with it name for "
        "name. Deprecated, removed and moved names first, one row each with its presence in "
        "every release (● present, ◐ deprecated, · absent). Names only added, and names every "
        "release has, are folded below.",
        [
            Table(
                headers,
                name_rows(surface, breaking, events),
                "deprecated, removed or moved",
                searchable=True,
                strip=(1, len(releases)),
            ),
            Table(
                form_headers,
                form_rows(releases),
                "call forms",
                searchable=True,
                strip=(1, len(releases)),
            ),
        ],
        folds=[
            Fold(
                f"{title} ({len(names)})",
                anchor,
                tables=[
                    Table(
                        headers,
                        name_rows(surface, names, events),
                        searchable=True,
                        strip=(1, len(releases)),
                    )
                ],
            )
            for title, anchor, names in (
                ("Names only added", "added", added),
                ("Names every release has", "steady", steady),
            )
        ],
        charts=[timeline_chart(surface, breaking)],
    )


# -- signatures, meaning, behaviours


def shapes(snapshots: list[Snapshot]) -> Section:
    """Per adjacent pair, folded: what old calls lose first, additions with defaults after."""
    headers = ["name", "what changed", "now"]
    folds = []
    for old, new in itertools.pairwise(snapshots):
        breaking, additions = [], []
        for change in _changes.shape_changes([old, new]):
            found = _guide.signature_change(change, set())
            spelling = _changes.Location(change.module, change.name).spelling
            row = [
                Cell(spelling, link=f"#{name_anchor(spelling)}"),
                Cell(
                    found.what if found else change.what + ": additions only",
                    "bad" if found else "",
                ),
                Cell(_changes.describe_params(change.new)),
            ]
            (breaking if found else additions).append(row)
        if breaking or additions:
            summary = f"JAX {old.release} → {new.release}: {len(breaking)} that break old calls, {len(additions)} additions"
            folds.append(
                Fold(summary, tables=[Table(headers, breaking + additions, searchable=True)])
            )
    return Section(
        "Signatures and dataclass fields",
        "signatures",
        "Parameters and fields that changed between adjacent releases: first what old calls "
        "may pass and the newer release lacks (gone, or newly required), then additions with "
        "defaults, which break nothing.",
        folds=folds,
    )


def semantics(snapshots: list[Snapshot]) -> Section:
    """Behaviours whose probe states its finding in words (``summary``): runs of releases
    with the same finding, so that a change of meaning reads as one row per era."""
    rows = []
    for key, runs in _changes.summary_runs(snapshots):
        for i, (first, last, found) in enumerate(runs):
            span = first if first == last else f"{first} to {last}"
            tone = "info" if found.startswith("n/a") else ("warn" if len(runs) > 1 else "")
            rows.append(
                [Cell(key.partition(".")[2] if i == 0 else ""), Cell(span), Cell(found, tone)]
            )
    return Section(
        "Changes of meaning",
        "semantics",
        "The same code compiles to a different program. No spelling fixes these: pallas-compat "
        "and migrate leave them alone, so read each era that your releases span.",
        [Table(["behaviour", "releases", "what the same code does"], rows)],
    )


def behaviours(snapshots: list[Snapshot]) -> Section:
    rows = []
    for old, new in itertools.pairwise(snapshots):
        for change in _guide.behaviours(old, new):
            if change.kind is not _guide.ChangeKind.BEHAVIOUR:
                continue
            raised = change.what.endswith("Now raises.")
            rows.append(
                [
                    Cell(change.subject),
                    Cell(f"{old.release} → {new.release}"),
                    Cell(change.what, "bad" if raised else "good"),
                    Cell(change.instead),
                    Cell(change.detail),
                ]
            )
    section = Section(
        "Behaviours and error messages",
        "behaviours",
        "Calls that started or stopped raising between adjacent releases, in words, with the "
        "error text. A change of message wording alone is not listed; the raw differences are "
        "folded below.",
        [Table(["behaviour", "releases", "what", "write instead", "error text"], rows)],
    )
    diffs = _changes.behaviour_changes(snapshots)
    section.folds = [
        Fold(
            f"Every recorded difference, as text diffs ({len(diffs)})",
            "behaviour-diffs",
            code=[(f"{c.key}: JAX {c.before} → {c.after}", c.diff) for c in diffs],
        )
    ]
    return section


def outside(snapshots: list[Snapshot]) -> Section:
    """The JAX APIs outside Pallas that kernel files import, one row per spelling, so that
    doctor's uses of them link to a row as its Pallas uses do."""
    rows = []
    for feature in FEATURES:
        if not feature.outside:
            continue
        for location in feature.locations:
            spelling = location.spelling
            cells = []
            for snap in snapshots:
                record = snap.data["features"].get(feature.key, {})
                state = record.get("candidates", {}).get(spelling, "absent")
                mark, tone = MARKS.get(state, ABSENT)
                cells.append(Cell(mark, tone, why=f"JAX {snap.release}: {state}"))
            rows.append(
                [
                    Cell(spelling, anchor=name_anchor(spelling)),
                    Cell(feature.title),
                    *cells,
                    Cell(describe(location.releases) if location.releases else "—"),
                    Cell(feature.hint),
                ]
            )
    headers = ["API", "what", *(s.release for s in snapshots), "in JAX", "write instead"]
    return Section(
        "Outside Pallas: the JAX APIs kernel files import",
        "outside",
        "Not Pallas, but kernel files of JAX's own ops and of the libraries use them, and later "
        "releases dropped or moved them: the shim serves each, `patch()` puts it back where old "
        "code imports it, `migrate` rewrites it and `doctor` lists it. ● present, ◐ deprecated, · absent; "
        "'in JAX' is every release from 0.4.30 on, scanned from the sources.",
        [Table(headers, rows)],
    )


def imports(snapshots: list[Snapshot], undeclared: dict[str, list[str]]) -> Section:
    rows = []
    for release, module, error in _changes.import_failures(snapshots):
        snap = next(s for s in snapshots if s.release == release)
        record = snap.data["modules"].get(module, {})
        shipped = not absent_module(record, module)
        text = error if shipped else f"not shipped in JAX {release} ({error})"
        rows.append([Cell(release), Cell(module), Cell(text, "bad" if shipped else "info")])
    for snap in snapshots:
        for module, record in sorted(snap.data["modules"].items()):
            if record.get("deprecated"):
                rows.append(
                    [
                        Cell(snap.release),
                        Cell(module),
                        Cell(f"deprecated: {record['deprecated']}", "warn"),
                    ]
                )
    rows += [
        [Cell(release), Cell("(undeclared dependency)"), Cell(", ".join(names), "warn")]
        for release, names in undeclared.items()
    ]
    rows.sort(key=lambda row: Version(row[0].text))  # stable: per release, in the order above
    return Section(
        "Modules: import failures, deprecations, undeclared dependencies",
        "imports",
        "Pallas modules that did not import in a clean environment (or that the release does not "
        "ship), modules that warn on import, and what JAX imported without declaring it.",
        [Table(["JAX", "module", "what"], rows)],
    )


def kernels(kernel_results: dict[str, dict[str, Any]]) -> Section:
    """Counts per mode and release first; the kernels that do not pass everywhere; every
    kernel x release table folded."""
    releases = sorted(kernel_results, key=Version)
    modes: list[str] = []
    by_kernel: dict[str, dict[tuple[str, str], dict[str, Any]]] = {}
    for release in releases:
        for record in kernel_results[release]["results"]:
            if record["mode"] not in modes:
                modes.append(record["mode"])
            by_kernel.setdefault(record["kernel"], {})[(release, record["mode"])] = record
    counts, tables, uneven = [], [], []
    for mode in modes:
        rows, row_counts = [], []
        for release in releases:
            found = [c[(release, mode)] for c in by_kernel.values() if (release, mode) in c]
            ok = sum(r["status"] in (KernelStatus.PASS, KernelStatus.CAUGHT) for r in found)
            row_counts.append(Cell(f"{ok}/{len(found)}", "good" if ok == len(found) else "warn"))
        counts.append([Cell(mode), *row_counts])
        for kernel, cells in by_kernel.items():
            row = [Cell(kernel)]
            for release in releases:
                record = cells.get((release, mode))
                if record is None:
                    row.append(Cell("—", "info", why=f"not run on JAX {release} in this mode"))
                    continue
                why = record.get("detail") or record.get("tolerance", "")
                row.append(Cell(record["status"], tone_of(record["status"]), why=why))
            rows.append(row)
            statuses = {c.text.split()[0] for c in row[1:]}
            if statuses & {KernelStatus.FAIL, KernelStatus.ERROR, KernelStatus.MISSED, "wrong"}:
                uneven.append([Cell(mode), *row])
        tables.append(Table(["kernel", *releases], rows, caption=f"mode: {mode}"))
    return Section(
        "Kernels x mode x release",
        "kernels",
        "The chapter's kernels (python -m kernels): how many pass (or are caught, where the "
        "chapter expects an error) per mode and release, then each kernel that does not pass "
        "everywhere (with why, and the tolerance the verdict is taken at against NumPy "
        "float64; the measured errors move with the CPU and are kept in .nox/timings). Interpreter "
        "timings are not kernel speed and are not shown.",
        [
            Table(["mode", *releases], counts, "passing, per mode and release"),
            Table(["mode", "kernel", *releases], uneven, "failing or missed somewhere", keys=2),
        ],
        folds=[Fold(f"Every kernel, mode {t.caption[6:]}", tables=[t]) for t in tables],
    )


def skipped(missing: dict[str, str]) -> Section:
    rows = [[Cell(release), Cell(reason, "info")] for release, reason in sorted(missing.items())]
    return Section(
        "Skipped releases",
        "skipped",
        "Releases of the matrix without a snapshot in this report, and why.",
        [Table(["JAX", "why"], rows)],
    )


def support_windows(surface: Surface) -> list[tuple[str, str]]:
    """From each probed release to the newest: the windows libraries name most."""
    newest = surface.releases[-1]
    return [(s.release, newest) for s in surface.snapshots if s.release != newest]


def support_tables(found: _support.Window) -> list[Table]:
    tables = []
    for area in found.areas:
        rows = [
            [
                Cell(row.spelling, link=row.link),
                Cell(
                    _support.runs_text(row.runs, found.releases),
                    "good"
                    if row.native_everywhere(found.releases) and not row.warns
                    else "warn"
                    if row.native_everywhere(found.releases)
                    else "bad",
                ),
                Cell(_support.runs_text(row.warns, found.releases) if row.warns else "—"),
                Cell(
                    _support.runs_text(row.served, found.releases),
                    "good" if row.served_everywhere(found.releases) else "bad",
                ),
            ]
            for row in area.rows
        ]
        for cells, row in zip(rows, area.rows, strict=True):
            cells.append(Cell(_support.keywords_text(row) if row.keywords else "—"))
        headers = [
            "spelling",
            "natively on",
            "warns on",
            "with pallas_compat on",
            "keywords not on every release",
        ]
        tables.append(
            Table(headers, rows, caption=f"{area.title}: {area.answer()}", searchable=True)
        )
    return tables


def support_section(found: _support.Window) -> Section:
    return Section(
        f"Supporting JAX {found.first} to {found.last}",
        support_anchor(found.first, found.last),
        f"{len(found.releases)} releases. Per area, every spelling, names that never changed "
        "included: where it runs natively, where it warns, and where pallas_compat runs it.",
        support_tables(found),
    )


def support_anchor(first: str, last: str) -> str:
    return f"support-{first}-{last}".replace(".", "-")


def support(surface: Surface) -> Section:
    folds = []
    for first, last in support_windows(surface):
        found = _support.window(first, last, surface)
        native = sum(1 for a in found.areas if a.native)
        folds.append(
            Fold(
                f"JAX {first} to {last} ({len(found.releases)} releases): {native} of "
                f"{len(found.areas)} areas have a spelling that runs natively on every release",
                support_anchor(first, last),
                f"python -m report support --from {first} --to {last}",
                support_tables(found),
            )
        )
    return Section(
        "Support windows: what runs on every release from A to B",
        "support",
        "For a library that supports a range of JAX releases: per area (BlockSpec, compiler "
        "params, memory spaces, interpret mode, loads and stores, semaphores, pipelining), the "
        "spellings that run natively on every release of the window, and where none does, the "
        "pallas_compat spelling that does. Any window of the scanned releases in a terminal: "
        "`python -m report support --from A --to B`.",
        folds=folds,
    )


def answers(releases: list[str], surface: Surface) -> list[Answer]:
    """The questions people bring, each one click (or two: a fold) or one command away."""
    oldest, newest = releases[0], releases[-1]
    window = support_windows(surface)[len(support_windows(surface)) // 2]
    return [
        Answer(
            "I use X and Y on release A: what is the newest release my code runs on unchanged, "
            "and what do I write?",
            "timeline",
            f"names and call forms on all {len(surface.releases)} releases (doctor's last "
            "lines: where each file runs unchanged, and with pallas_compat)",
            "pallas-compat doctor src/",
        ),
        Answer(
            f"What breaks from A to B (e.g. {oldest} → {newest})?",
            f"upgrade-{oldest}-{newest}".replace(".", "-"),
            f"upgrade guide {oldest} → {newest} (every probed pair in Upgrade guides)",
            f"python -m report guide --from {oldest} --to {newest}",
        ),
        Answer("When did pl.dot go?", "name-pl-dot", "pl.dot, release by release"),
        Answer(
            "When does dict compiler_params break?",
            form_anchor(CallForm.DICT_PARAMS),
            f"{CallForm.DICT_PARAMS}, release by release",
        ),
        Answer(
            f"Do my kernels run on the newest release ({newest})?",
            "corpus",
            f"JAX's own kernels of {oldest}-{newest} run on every release",
            f"pallas-compat doctor src/ --target {newest}",
        ),
        Answer(
            f"What can a library supporting JAX {window[0]} to {window[1]} write?",
            support_anchor(*window),
            f"support window {window[0]} to {window[1]}",
            f"python -m report support --from {window[0]} --to {window[1]}",
        ),
    ]


def build(
    surface: Surface,
    kernel_results: dict[str, dict[str, Any]],
    skipped_releases: dict[str, str],
    undeclared: dict[str, list[str]],
    corpus_results: dict[str, dict[str, Any]] | None = None,
    thirdparty_results: dict[str, dict[str, Any]] | None = None,
) -> list[Section]:
    from report._corpus import THIRDPARTY, corpus

    snapshots = list(surface.snapshots)
    sections = [
        guides(surface, kernel_results, corpus_results or {}, thirdparty_results or {}),
        name_timeline(surface),
        support(surface),
        summary(snapshots),
        semantics(snapshots),
        behaviours(snapshots),
        shapes(snapshots),
        outside(snapshots),
        imports(snapshots, undeclared),
        kernels(kernel_results),
    ]
    if corpus_results:
        sections.append(corpus(corpus_results))
    if thirdparty_results:
        sections.append(corpus(thirdparty_results, THIRDPARTY))
    sections.append(skipped(skipped_releases))
    return sections
