"""Rewrite drifted Pallas idioms into what a target JAX release accepts, as ruff applies its
fixes: doctor's reading of a file (``_finder``) decides each use and what its fix needs, and
each fix turns that decision into text edits for the target (``rules._edits``). Only what
breaks (or warns) on the target is touched, and only inside the edited ranges: formatting and
comments elsewhere stay byte for byte. What cannot be rewritten safely gets a
``# pallas-compat:`` note (``_notes``) and stays a ``doctor`` entry.

``Fixing`` is the rules' context for one target (the target, the edits, the imports and notes
a fix adds); ``Migration`` runs one file's fixes for as many targets as asked.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from pallas_compat import rules
from pallas_compat.facts._registry import Drift, Registry, registry
from pallas_compat.facts._table import (
    ALIASES,
    BACKENDS_BY_KEY,
    FEATURES_BY_KEY,
    Feature,
    Location,
    call_form_releases,
    call_form_warned_releases,
    release_ranges,
)
from pallas_compat.facts._target import Target
from pallas_compat.lint._finder import UseFinder, gc_paused, parse_source
from pallas_compat.lint._imports import (
    Needed,
    add_imports,
    drop_bindings,
    made_unused,
    module_bindings,
    name_reads,
)
from pallas_compat.lint._noqa import Silenced, silenced
from pallas_compat.lint._notes import MARKER, Lines, write_notes
from pallas_compat.rules._context import Finding, FixContext
from pallas_compat.rules._edits import EditConflict, Edits

__all__ = ["MARKER", "Fixing", "Migration", "migrate_source"]

#: Modules imported under these names when a rewrite needs them and the file has no name.
IMPORT_NAMES: dict[str, str] = {**ALIASES, "jax.numpy": "jnp"}


class Fixing:
    """One file's fixes for one target: what the rules ask of the target, the edits they make,
    the imports and notes they add. The rules see it as a ``FixContext``."""

    def __init__(self, reading: UseFinder, target: Target, aliases: dict[str, str]) -> None:
        self.reading = reading
        self.edits = Edits(reading.text)
        #: The target, asked through ``works_in`` and its kin.
        self.asked = target
        #: The table's derived views (drifted names, moved members) the rules look up.
        self.table: Registry = registry()
        #: The name the file binds each module to, from all its top-level imports; a rewrite
        #: adds to it.
        self.aliases = dict(aliases)
        self.needed: list[Needed] = []
        #: Line -> the notes for it; ``at`` is the line of the statement being fixed.
        self.notes: dict[int, list[str]] = {}
        self.at: int | None = None

    # -- what the rules ask

    @property
    def target(self) -> str:
        return self.asked.release

    def works_in(self, spans: Sequence[Sequence[str]]) -> bool:
        """Is the target inside one of the ``[first, last]`` spans?"""
        return self.asked.works_in(spans)

    def since(self, release: str) -> bool:
        return self.asked.since(release)

    def works(self, loc: Location) -> bool:
        """Present on the target and not deprecated there: migrate also rewrites what only
        warns, so that the migrated file runs quietly (``-W error`` suites)."""
        deprecated = release_ranges().get("deprecated", {}).get(f"{loc.module}:{loc.attr}", [])
        return self.works_in(loc.releases) and not self.works_in(deprecated)

    def present(self, loc: Location) -> bool:
        """Present on the target, deprecated or not."""
        return self.works_in(loc.releases)

    def form_works(self, form: str) -> bool:
        """Does the target take ``form`` without a deprecation warning? (A form it takes
        with one is rewritten where the rule can.)"""
        warned = call_form_warned_releases(form)
        return self.works_in(call_form_releases(form)) and not (warned and self.works_in(warned))

    def replacement(self, drift: Drift | Feature) -> Location | None:
        """The newest public spelling of a renamed feature that works on the target, or where
        JAX moved the same object; where the target has it only deprecated (it works, with a
        warning: ``pl.DeviceIdType`` on 0.12.0.1), that spelling, which the rule notes."""
        if isinstance(drift, Drift) and drift.moved_to is not None:
            return drift.moved_to if self.present(drift.moved_to) else None
        feature = drift.feature if isinstance(drift, Drift) else drift
        if feature is None or not feature.renamed:
            return None
        served = [loc for loc in reversed(feature.locations) if not loc.private or feature.outside]
        return next((loc for loc in served if self.works(loc)), None) or next(
            (loc for loc in served if self.present(loc)), None
        )

    def replacement_params(self, backend: str) -> Location | None:
        return self.replacement(FEATURES_BY_KEY[BACKENDS_BY_KEY[backend].feature])

    def alias_for(self, module: str) -> str:
        """The name this file uses for ``module``, adding the import if it has none. A JAX
        module outside Pallas is reached through ``jax`` (``jax.dtypes.itemsize_bits``), so
        that no new name can shadow one the file binds (``from jax._src import dtypes``)."""
        if module in self.aliases:
            return self.aliases[module]
        if module == "jax":
            self.needed.append(Needed("jax"))
            return "jax"
        if module.startswith("jax.") and module not in IMPORT_NAMES:
            return f"{self.alias_for('jax')}.{module.removeprefix('jax.')}"
        parent, _, child = module.rpartition(".")
        alias = IMPORT_NAMES.get(module, child)
        self.needed.append(Needed(parent, child, alias))
        self.aliases[module] = alias
        return alias

    def keyword_owner(self, callable_key: str, name: str) -> rules.Rule | None:
        """The rule that handles keyword ``name`` of ``callable_key`` itself, if one does."""
        return rules.keyword_owner(callable_key, name)

    def mark(self, text: str) -> None:
        """A note for the statement being fixed (none where no statement owns the node)."""
        if self.at is not None:
            self.notes.setdefault(self.at, []).append(text)

    def unmark(self, prefix: str) -> None:
        """Take back a note for an API this statement no longer uses."""
        if self.at in self.notes:
            self.notes[self.at] = [n for n in self.notes[self.at] if not n.startswith(prefix)]

    def current(self, node: ast.AST, *, leading: bool = False) -> str:
        """The node's text with the edits made inside it."""
        return self.edits.node(node, leading=leading)

    def replace(self, node: ast.AST, text: str, *, leading: bool = False) -> None:
        start, end = self.edits.source.span(node)
        self.edits.replace(start, end, text, leading=leading)


#: The context the rules' fixes are promised (``rules._context``): mypy checks it matches.
_FIXES: type[FixContext] = Fixing


def left_alone(noqa: Silenced) -> set[str]:
    """The codes of the whole-file rules (``WHOLE_FILE``) a ``# noqa`` names anywhere."""
    return {
        m.RULE.code
        for m in rules.MODULES
        if getattr(m, "WHOLE_FILE", False)
        and any(silenced(noqa, line, m.RULE.code) for line in noqa)
    }


def post_order(finding: Finding, order: dict[str, int], reading: UseFinder) -> tuple[int, ...]:
    """Inner nodes first (an outer fix reads their edits), a node's fixes in the rules'
    order."""
    start, end = reading.text.span(finding.node)
    return (end, -start, order[finding.code])


class Migration:
    """One file migrated for as many targets as asked: doctor's reading of it, once, and its
    fixes, run for each target."""

    def __init__(
        self,
        source: str,
        selected: frozenset[str] | None = None,
        noqa: Silenced | None = None,
        path: str = "<string>",
    ) -> None:
        self.source = source
        with gc_paused():
            self.module = parse_source(source)
            self.reading = UseFinder(path, self.module, source)
            self.reading.walk()
        noqa = noqa or {}
        order = {rule.code: i for i, rule in enumerate(m.RULE for m in rules.MODULES)}
        left = left_alone(noqa)
        self.findings = sorted(
            (
                f
                for f in self.reading.findings
                if (selected is None or f.code in selected)
                and f.code not in left
                and not silenced(noqa, getattr(f.node, "lineno", 0), f.code)
            ),
            key=lambda f: post_order(f, order, self.reading),
        )
        self.lines = Lines(self.module, self.reading.text)
        self.aliases = module_bindings(self.module)
        #: Each fixing made, with the target it asked: another target that answers every
        #: question alike gets the same text (``facts._target``).
        self._made: list[tuple[Target, str]] = []

    def code(self, target: str) -> str:
        """The file's text rewritten for JAX ``target`` (the same text where nothing breaks
        there)."""
        for asked, text in self._made:
            if asked.is_release(target) or asked.answers_alike(target):
                return text
        made = Target(target)
        text = self.made_for(made)
        self._made.append((made, text))
        return text

    def made_for(self, target: Target) -> str:
        fixing = Fixing(self.reading, target, self.aliases)
        taken: set[int] = set()
        for finding in self.findings:
            if id(finding.node) in taken:
                continue
            fixing.at = self.lines.line_of(finding.node)
            try:
                if finding.fix(fixing):
                    taken.add(id(finding.node))
            except EditConflict:  # two rules rewrote one place: the second leaves a note
                fixing.mark(f"{finding.code} could not be applied here with another rewrite")
        if not fixing.edits.made and not any(fixing.notes.values()):
            return self.source
        add_imports(fixing.edits, self.module, fixing.needed)
        write_notes(fixing.edits, fixing.notes)
        text = fixing.edits.result()
        if text == self.source:
            return text
        # A rewrite may leave an import unused (``pltpu.repeat`` rewritten away): it goes,
        # but never one the original did not use either.
        try:
            after = ast.parse(text)
        except SyntaxError:
            return text  # the command says the rewrite does not parse
        gone = made_unused(name_reads(self.module), text, after)
        return drop_bindings(text, after, gone) if gone else text


def migrate_source(
    source: str,
    target: str,
    selected: frozenset[str] | None = None,
    noqa: Silenced | None = None,
) -> str:
    """``source`` rewritten for JAX ``target`` (unchanged if nothing breaks there) by the
    ``selected`` rules (default: all), less what the ``noqa`` lines silence."""
    return Migration(source, selected, noqa).code(target)
