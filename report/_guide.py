"""The upgrade guide from release A to release B: only what breaks or changes, in words.

One typed model (``Change``) computed from two snapshots (plus the kernel and corpus results
of B), rendered as text by ``python -m report guide`` and ``diff``, and as a section of the
report. Each change says what to write instead (a spelling or a line of code, never JAX's
message pasted), whether ``pallas_compat`` serves the old code, and whether ``migrate``
rewrites it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from packaging.version import Version

from common import CallOutcome, CorpusStatus, KernelStatus, Word
from pallas_compat.facts import (
    ALIASES,
    CALL_FORMS,
    CALL_KEYWORDS,
    GPU_LEGACY,
    PALLAS_CALL,
    SERVED_KEYWORDS,
    TRITON,
    WRITE_INSTEAD,
    CallForm,
    Feature,
    Location,
    call_form_releases,
    features_and_moves,
    form_anchor,
    member_forms,
    moved_members,
    name_anchor,
    pallas_call_keyword_releases,
    release_ranges,
    shim_serves,
    works_in,
)
from pallas_compat.rules import (
    gpu_module,
    migrate_fixes,
    migrate_fixes_keyword,
    rule_for_feature,
    rule_for_form,
)
from report import _changes, _migrated
from report._corpus import works
from report._load import Snapshot
from report._surface import ABSENT, DEPRECATED, PRESENT, RUNS, Surface


class ChangeKind(Word):
    """What kind of break; the values are the guide's group headings."""

    REMOVED = "removed"
    RENAMED = "renamed or moved"
    CALL_FORM = "call forms and signatures"
    BEHAVIOUR = "behaviours"
    MEANING = "changes of meaning"
    KERNELS = "kernels"
    DEPRECATED = "deprecated (still works, warns)"


@dataclass(frozen=True)
class Change:
    kind: ChangeKind
    subject: str
    what: str
    instead: str = ""
    #: Does old code keep working through ``pallas_compat`` (shim imports or ``patch()``)?
    shim: bool | None = None
    #: Does ``pallas-compat migrate`` rewrite the old code?
    migrate: bool | None = None
    anchor: str = ""
    #: Before / after error text, for behaviours; JAX's dating where it differs.
    detail: str = ""
    #: JAX's own advice (its deprecation message), where it says more than ``instead``.
    advice: str = ""


@dataclass(frozen=True)
class Guide:
    old: str
    new: str
    changes: list[Change]
    #: What the guide could not check for this pair (behaviours of unprobed releases).
    note: str = ""

    @property
    def anchor(self) -> str:
        return f"upgrade-{self.old}-{self.new}".replace(".", "-")

    def by_kind(self) -> list[tuple[ChangeKind, list[Change]]]:
        return [
            (kind, found)
            for kind in ChangeKind
            if (found := [c for c in self.changes if c.kind is kind])
        ]


# -- names


def migrate_rewrites(feature: Feature) -> bool:
    """Does ``migrate`` rewrite the feature's old spellings (some forms at least)? Its rule says."""
    return migrate_fixes(rule_for_feature(feature))


def migrate_writes(module: str, name: str, new: str, promised: bool, surface: Surface) -> bool:
    """Does ``migrate --target new`` make a use of ``module.name`` run on ``new``: what it
    writes, read back by ``doctor``, every Pallas name in it one ``new`` has (``_migrated``);
    where it leaves a plain use untouched (its rule rewrites the calls it can prove), the
    rule's word (``promised``)."""
    found = _migrated.written(module, name, new)
    if found is None:
        return promised
    return found.runs and all(surface.state(new, *place)[0] in RUNS for place in found.names)


def owner(loc: str) -> Feature | None:
    for feature in features_and_moves():
        if any(f"{place.module}:{place.attr}" == loc for place in feature.locations):
            return feature
    return None


#: "Use pl.X" in JAX's deprecation messages, in any alias people (and the table) use.
SPELLED = "|".join(sorted({*ALIASES.values(), "jax"}))
USE_SPELLING = re.compile(rf"\b[Uu]se (`?)((?:{SPELLED})\.[\w.]+(?:\(\))?)\1")


def successor(feature: Feature, release: str, surface: Surface) -> Location | None:
    """The newest public spelling of a renamed feature that ``release`` has."""
    for place in reversed(feature.locations):
        if not place.private and surface.state(release, place.module, place.attr)[0] == PRESENT:
            return place
    return None


MESSAGE_RELEASE = re.compile(r"(deprecated|removed) in JAX v?(\d+\.\d+(?:\.\d+)*)")


def wrong_release(message: str | None, measured: dict[str, str]) -> str:
    """Where JAX's message dates a change to another release than the release sources show
    it (``measured``: change -> the first release showing it), say what was measured."""
    found = [
        (change, said, measured[change])
        for change, said in MESSAGE_RELEASE.findall(message or "")
        if change in measured and Version(measured[change]) != Version(said)
    ]
    if not found:
        return ""
    said = ", ".join(f"{change} in {release}" for change, release, _ in found)
    seen = ", ".join(f"{change} from {release}" for change, _, release in found)
    return f"JAX's message says {said}; the release sources show it {seen}"


def measured_changes(surface: Surface, module: str, name: str) -> dict[str, str]:
    """change -> the first release the name is in that state, after it last worked plainly."""
    found = {}
    deprecated = surface.first(module, name, DEPRECATED)
    if deprecated:
        found["deprecated"] = deprecated
    lived = [r for r in surface.releases if surface.state(r, module, name)[0] in RUNS]
    if lived:
        gone = surface.first(module, name, ABSENT, after=lived[-1])
        if gone:
            found["removed"] = gone
    return found


def jax_advice(message: str | None, instead: str) -> str:
    """JAX's "Use X instead" sentence, where it names something ``instead`` does not."""
    for sentence in re.split(r"(?<=\.) ", " ".join((message or "").split())):
        if re.match(r"[Uu]se ", sentence):
            said = sentence.rstrip(".").replace("``", "")
            wanted = USE_SPELLING.search(sentence)
            if wanted and wanted.group(2) in instead:
                return ""
            return f"JAX's advice: {said}"
    return ""


def instead_of(module: str, name: str, new: str, message: str | None) -> str:
    """What to write for a name with no feature: the table, or the spelling JAX's own message
    names; else say there is none."""
    loc = f"{module}:{name}"
    if loc in WRITE_INSTEAD:
        return WRITE_INSTEAD[loc]
    found = USE_SPELLING.search(message or "")
    if found:
        return found.group(2)
    return f"no public successor in JAX {new}"


def name_change(
    module: str, name: str, old: str, new: str, surface: Surface, message: str | None
) -> Change:
    """A name that works on ``old`` and not on ``new``: renamed or removed (and when), and
    who handles it. "pallas_compat serves it" is what the shim was measured to serve."""
    loc = f"{module}:{name}"
    spelling = Location(module, name).spelling
    anchor = surface.anchor(module, name)
    feature = owner(loc)
    served = shim_serves(module, name, new)
    gone = surface.first(module, name, ABSENT, after=old) or new
    dating = wrong_release(message, measured_changes(surface, module, name))
    if feature is not None and feature.renamed:
        place = successor(feature, new, surface)
        if place is not None and place.spelling != spelling:
            since = surface.first(place.module, place.attr, PRESENT) or new
            what = f"renamed to {place.spelling} in JAX {since}; the old name went in {gone}"
            rewrites = migrate_writes(module, name, new, migrate_rewrites(feature), surface)
            return Change(
                ChangeKind.RENAMED,
                spelling,
                what,
                place.spelling,
                served,
                rewrites,
                anchor,
                dating,
                jax_advice(message, place.spelling),
            )
    if feature is not None:
        what = f"removed in JAX {gone}" + ("; pallas-compat serves it" if served else "")
        return Change(
            ChangeKind.REMOVED,
            spelling,
            what,
            feature.hint,
            served,
            migrate_writes(module, name, new, migrate_rewrites(feature), surface),
            anchor,
            dating,
            jax_advice(message, feature.hint),
        )
    if module == GPU_LEGACY and surface.state(new, TRITON, name)[0] == PRESENT:
        place = Location(TRITON, name).spelling  # the legacy module was Triton's: patch() and
        what = f"module gone in JAX {gone}: {place}"  # migrate both follow the import
        rewrites = migrate_writes(module, name, new, migrate_fixes(gpu_module.RULE), surface)
        return Change(ChangeKind.RENAMED, spelling, what, place, served, rewrites, anchor, dating)
    instead = instead_of(module, name, new, message)
    what = f"removed in JAX {gone}" + ("; pallas-compat serves it" if served else "")
    advice = jax_advice(message, instead)
    rewrites = migrate_writes(module, name, new, False, surface)
    return Change(
        ChangeKind.REMOVED, spelling, what, instead, served, rewrites, anchor, dating, advice
    )


def names(old: str, new: str, surface: Surface) -> list[Change]:
    changes = []
    for module, name in surface.names():
        before, _ = surface.state(old, module, name)
        after, message = surface.state(new, module, name)
        if before in RUNS and after not in RUNS:
            changes.append(name_change(module, name, old, new, surface, message))
        elif before == PRESENT and after == DEPRECATED:
            replaced = name_change(module, name, old, new, surface, message)
            instead = WRITE_INSTEAD.get(f"{module}:{name}") or replaced.instead
            if instead == replaced.subject or instead.startswith("no public"):
                instead = instead_of(module, name, new, message)
            since = surface.first(module, name, DEPRECATED, after=old) or new
            gone = measured_changes(surface, module, name).get("removed")
            what = f"deprecated in JAX {since}" + (
                f"; removed in {gone}" if gone else "; no release removes it yet"
            )
            changes.append(
                Change(
                    ChangeKind.DEPRECATED,
                    replaced.subject,
                    what,
                    instead,
                    True,
                    replaced.kind is ChangeKind.RENAMED,
                    replaced.anchor,
                    replaced.detail,
                    jax_advice(message, instead),
                )
            )
    return changes


# -- call forms, keywords, signatures


def first_refusing(spans: list[list[str]], old: str, surface: Surface) -> str:
    """The first release after ``old`` outside ``spans`` (where the form stopped working)."""
    later = [r for r in surface.releases if Version(r) > Version(old)]
    return next((r for r in later if not works_in(spans, r)), later[-1] if later else old)


def call_forms(
    old: str, new: str, surface: Surface, shapes: list[_changes.ShapeChange] | None
) -> list[Change]:
    """Call forms and ``pallas_call`` keywords a release stopped taking (scanned, on every
    release), then signature changes: probed when both releases are, else the scan's."""
    changes = []
    for form, instead in CALL_FORMS.items():
        spans = call_form_releases(form)
        if works_in(spans, old) and not works_in(spans, new):
            what = f"refused from JAX {first_refusing(spans, old, surface)}"
            changes.append(
                Change(
                    ChangeKind.CALL_FORM,
                    form,
                    what,
                    instead,
                    True,  # the shim's facades take every form (tests/test_shim_kernels.py)
                    migrate_fixes(rule_for_form(form)),
                    form_anchor(form),
                )
            )
    for name in sorted(release_ranges()["keywords"].get(PALLAS_CALL, {})):
        spans = pallas_call_keyword_releases(name)
        if f"pallas_call({name}=...)" in CALL_FORMS:
            continue  # listed above, as a call form
        if works_in(spans, old) and not works_in(spans, new):
            instead = CALL_KEYWORDS.get(name, f"leave pallas_call({name}=...) out")
            changes.append(
                Change(
                    ChangeKind.CALL_FORM,
                    f"pallas_call({name}=...)",
                    f"keyword gone in JAX {first_refusing(spans, old, surface)}",
                    instead,
                    name in SERVED_KEYWORDS,
                    migrate_fixes_keyword(PALLAS_CALL, name),
                )
            )
    keywords_listed = {c.subject for c in changes}
    if shapes is None:
        return changes + scanned_keyword_changes(old, new, keywords_listed)
    for change in shapes:
        found = signature_change(change, keywords_listed)
        if found is not None:
            changes.append(found)
    return changes


def scanned_keyword_changes(old: str, new: str, listed: set[str]) -> list[Change]:
    """For a release the probes did not take: keywords of public callables that ``old`` takes
    and ``new`` does not, from the release scan."""
    changes = []
    for key, words in sorted(release_ranges().get("keywords", {}).items()):
        module, _, attr = key.partition(":")
        spelling = Location(module, attr).spelling
        gone = sorted(
            w
            for w, spans in words.items()
            if works_in(spans, old) and not works_in(spans, new) and not w.startswith("_")
        )
        gone = [w for w in gone if f"pallas_call({w}=...)" not in listed]
        if gone and works_in(Location(module, attr).releases or [[old, new]], new):
            changes.append(
                Change(
                    ChangeKind.CALL_FORM,
                    spelling,
                    "signature: " + "; ".join(f"`{w}` gone" for w in gone),
                    ", ".join(f"no {w}=" for w in gone),
                    anchor=name_anchor(spelling),
                )
            )
    return changes


def signature_change(change: _changes.ShapeChange, listed: set[str]) -> Change | None:
    """Parameters or dataclass fields that old calls may pass and the new release lacks, and
    required parameters appended after the old ones; additions with defaults break nothing.
    Which new name replaces a gone one is not guessed: both lists are shown."""
    old, new = positions(change.old), positions(change.new)
    gone = sorted(n for n in old if n not in new and f"pallas_call({n}=...)" not in listed)
    required = []
    if change.what == "signature":
        required = sorted(n for n in required_parameters(change.new) if new.get(n, 0) >= len(old))
    if not gone and not required:
        return None
    spelling = Location(change.module, change.name).spelling
    added = sorted(n for n in new if n not in old)
    parts = [f"`{n}` gone" for n in gone] + [f"`{n}` now required" for n in required]
    if added:
        parts.append("new: " + ", ".join(f"`{n}`" for n in added))
    instead = ", ".join(f"no {n}=" for n in gone)
    if change.what == "members":
        instead = ", ".join(member_instead(change, n) for n in gone)
    if required:
        instead = f"{spelling}({_changes.describe_params(change.new)})"
    return Change(
        ChangeKind.CALL_FORM,
        spelling,
        f"{change.what}: {'; '.join(parts)}",
        instead,
        None,
        None,
        name_anchor(spelling),
    )


def member_instead(change: _changes.ShapeChange, member: str) -> str:
    """What to write for an enum member JAX dropped: where it moved, the form that replaced
    it, or (where the facts know neither) that it is gone."""
    qname = f"{change.module}.{change.name}.{member}"
    known = member_forms().get(qname) or moved_members().get(qname)
    spelling = Location(change.module, change.name).spelling
    return known[2] if known else f"no {spelling}.{member}"


def positions(params: Any) -> dict[str, int]:
    """Public parameter or field name -> its position."""
    if not isinstance(params, list):
        return {}
    names = [p.get("name", "") for p in params]
    return {n: i for i, n in enumerate(names) if n and not n.startswith("_")}


def required_parameters(params: Any) -> set[str]:
    if not isinstance(params, list):
        return set()
    return {
        p.get("name", "")
        for p in params
        if "default" not in p and not str(p.get("kind", "")).startswith("VAR")
    }


# -- behaviours in words


def outcomes(record: Any, path: str = "") -> dict[str, tuple[str, str]]:
    """path -> (outcome, first line of the error or the value) for every observed call."""
    found: dict[str, tuple[str, str]] = {}
    if not isinstance(record, dict):
        return found
    if "outcome" in record:
        error = record.get("error") or {}
        text = error.get("first_line") or first_meaningful(error.get("message") or "")
        kind = error.get("type", "")
        found[path] = (record["outcome"], f"{kind}: {text}" if error else "")
    for key, value in record.items():
        if isinstance(value, dict) and key not in ("error", "value"):
            found.update(outcomes(value, f"{path}.{key}" if path else key))
    return found


def first_meaningful(message: str) -> str:
    """The first line, or for an error raised inside a callback (``...calling callback:``),
    the last line of the traceback it carries, which names the real error."""
    lines = [line.strip() for line in message.splitlines() if line.strip()] or [""]
    return lines[-1] if lines[0].endswith(":") and len(lines) > 1 else lines[0]


def behaviour_words(key: str, a: Any, b: Any, new: Snapshot) -> list[Change]:
    """Calls that started or stopped raising; message wording alone is not a change."""
    titles = new.data.get("summary", {}).get("probe_titles", {})
    title = titles.get(f"behaviours.{key}") or key.replace("_", " ")
    before, after = outcomes(a), outcomes(b)
    changes = []
    for path in sorted(set(before) & set(after)):
        (was, was_text), (now, now_text) = before[path], after[path]
        if was == now:
            continue
        subject = f"{key}.{path}" if path else key
        if now == CallOutcome.RAISED:
            what = f"{title} Now raises."
            detail = f"JAX {new.release}: {now_text}"
        else:
            what = f"{title} Now works."
            detail = f"before: {was_text}"
        changes.append(
            Change(ChangeKind.BEHAVIOUR, subject, what, behaviour_fix(key), detail=detail)
        )
    return changes


#: Behaviour probes whose break a known spelling fixes (the call form or feature it tries).
BEHAVIOUR_FIXES = {
    "dict_compiler_params": CALL_FORMS[CallForm.DICT_PARAMS],
    "blockspec_argument_order": CALL_FORMS[CallForm.BLOCK_SPEC_ORDER],
    "old_load_store_kernel": "x_ref[idx] / x_ref[idx] = v; masked: pltriton.load / pltpu.load",
    "cpu_without_interpret": "pl.pallas_call(..., interpret=True) on a CPU",
}


def behaviour_fix(key: str) -> str:
    return BEHAVIOUR_FIXES.get(key, "")


def behaviours(old: Snapshot, new: Snapshot) -> list[Change]:
    changes = []
    for key in sorted(set(old.data["behaviours"]) & set(new.data["behaviours"])):
        a, b = old.data["behaviours"][key], new.data["behaviours"][key]
        if _changes.summarised(a) or _changes.summarised(b):
            if _changes.summarised(a) != _changes.summarised(b):
                changes.append(
                    Change(
                        ChangeKind.MEANING,
                        key,
                        f"JAX {old.release}: {_changes.summarised(a)}; JAX {new.release}: "
                        f"{_changes.summarised(b)}",
                        "review by hand: no spelling fixes a change of meaning",
                        False,
                        False,
                        "semantics",
                    )
                )
            continue
        if a != b:
            changes += behaviour_words(key, a, b, new)
    return changes


# -- kernels


def kernels(old: str, new: str, results: dict[str, dict[str, Any]]) -> list[Change]:
    """Chapter kernels that passed on A and do not on B (same kernel, same mode)."""

    def table(release: str) -> dict[tuple[str, str], dict[str, Any]]:
        doc = results.get(release) or {}
        return {(r["kernel"], r["mode"]): r for r in doc.get("results", [])}

    before, after = table(old), table(new)
    changes = []
    for key in sorted(set(before) & set(after)):
        if before[key]["status"] == KernelStatus.PASS and after[key]["status"] != KernelStatus.PASS:
            kernel, mode = key
            why = after[key].get("reason") or after[key].get("error", {}).get("message", "")
            changes.append(
                Change(
                    ChangeKind.KERNELS,
                    f"{kernel} ({mode})",
                    f"{after[key]['status']} on JAX {new}",
                    str(why).splitlines()[0] if why else "",
                    anchor="kernels",
                )
            )
    return changes


def corpus(
    old: str,
    new: str,
    results: dict[str, dict[str, Any]],
    *,
    whose: str = "own ops",
    anchor: str = "corpus",
) -> list[Change]:
    """Kernels written for JAX A (its own ops, or libraries' kernels) run on B: one line per
    route, failures named."""
    records = [r for r in (results.get(new) or {}).get("results", []) if r["from"] == old]
    home = {
        (r.get("library"), r["kernel"]): r
        for r in (results.get(old) or {}).get("results", [])
        if r["route"] == "native" and r["from"] == old
    }
    changes = []
    for route in ("patch", "shim", "migrate"):
        mine = [
            r for r in records if r["route"] == route and r["status"] != CorpusStatus.DEPENDENCY
        ]
        if not mine:
            continue
        bad = sorted(
            {r["kernel"] for r in mine if not works(r, home.get((r.get("library"), r["kernel"])))}
        )
        ok = len(mine) - sum(
            1 for r in mine if not works(r, home.get((r.get("library"), r["kernel"])))
        )
        what = (
            f"JAX {old}'s {whose} kernels via {route}: {ok} of {len(mine)} work "
            "(in the interpreter and compiled for their GPU or TPU)"
        )
        if bad:
            what += f"; not: {', '.join(bad)}"
        subject = f"{whose.removeprefix('own ')} kernels ({route})"
        changes.append(Change(ChangeKind.KERNELS, subject, what, anchor=anchor))
    return changes


def guide(
    old: str,
    new: str,
    surface: Surface,
    kernel_results: dict[str, dict[str, Any]] | None = None,
    corpus_results: dict[str, dict[str, Any]] | None = None,
    thirdparty_results: dict[str, dict[str, Any]] | None = None,
) -> Guide:
    """The upgrade from ``old`` to ``new``, any two scanned releases: names, call forms and
    keywords from the release scan; behaviours and signatures where both were probed."""
    a, b = surface.probed(old), surface.probed(new)
    probed = a is not None and b is not None
    shapes = _changes.shape_changes([a, b]) if a is not None and b is not None else None
    changes = names(old, new, surface) + call_forms(old, new, surface, shapes)
    if a is not None and b is not None:
        changes += behaviours(a, b)
    changes += kernels(old, new, kernel_results or {})
    changes += corpus(old, new, corpus_results or {})
    changes += corpus(old, new, thirdparty_results or {}, whose="libraries'", anchor="thirdparty")
    order = list(ChangeKind)
    changes.sort(key=lambda c: (order.index(c.kind), c.subject))
    note = "" if probed else unprobed_note(old, new, surface)
    return Guide(old, new, changes, note)


def unprobed_note(old: str, new: str, surface: Surface) -> str:
    probed = [s.release for s in surface.snapshots]
    missing = [r for r in (old, new) if r not in probed]
    below = [r for r in probed if Version(r) <= Version(old)]
    above = [r for r in probed if Version(r) >= Version(new)]
    text = (
        f"Names, call forms and keywords are from the scan of every release; behaviours and "
        f"signatures are probed on the default matrix only, and JAX {' and '.join(missing)} "
        "is not in it."
    )
    if below and above:
        text += (
            f" The nearest probed pair: python -m report guide --from {below[-1]} --to {above[0]}"
        )
    return text


# -- text


def yes_no(value: bool | None) -> str:
    return {True: "yes", False: "no", None: "—"}[value]


def text(found: Guide) -> str:
    lines = [f"Upgrading JAX {found.old} -> {found.new}: {len(found.changes)} changes"]
    if found.note:
        lines.append(found.note)
    for kind, changes in found.by_kind():
        lines += ["", f"{kind.value} ({len(changes)})"]
        for c in changes:
            lines.append(f"  {c.subject}: {c.what}")
            if c.instead:
                lines.append(f"      write: {c.instead}")
            if c.advice:
                lines.append(f"      {c.advice}")
            if c.shim is not None or c.migrate is not None:
                lines.append(
                    f"      pallas_compat serves it: {yes_no(c.shim)}; migrate rewrites it: "
                    f"{yes_no(c.migrate)}"
                )
            if c.detail:
                lines.append(f"      {c.detail}")
    return "\n".join(lines) + "\n"
