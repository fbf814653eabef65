"""One rule's documentation page, in Markdown, made from the rule itself: its module's docstring
(what changed), doctor's reading of its example (on which releases, from the release facts), the
example before and after migrate, and the notes migrate leaves for a person.

``pallas-compat rule CODE`` prints it and the docs site (``nox -s docs``) publishes it, so the
terminal and the site say the same thing, and neither can drift from the code.
"""

from __future__ import annotations

import inspect
import re
from types import ModuleType

from pallas_compat import rules
from pallas_compat.lint._finder import uses_in
from pallas_compat.lint._migrate import migrate_source
from pallas_compat.lint._notes import MARKER
from pallas_compat.lint._report import Finding
from pallas_compat.rules._rule import Fix, Rule

__all__ = ["module_of", "page", "page_name"]

#: reStructuredText's inline literal (````x````), which Markdown writes with one backtick.
RST_LITERAL = re.compile(r"``(.+?)``", re.S)


def module_of(code: str) -> ModuleType | None:
    """The module of the rule with this code (``PAL301``), or None."""
    return next((m for m in rules.MODULES if m.RULE.code == code.upper()), None)


def page_name(rule: Rule) -> str:
    """The page's file in the docs site, relative to its ``rules/`` folder."""
    return f"{rule.code}.md"


def page(module: ModuleType) -> str:
    """The rule's page: what it checks, what changed, where, and what migrate does about it."""
    rule: Rule = module.RULE
    example = rule.example
    migrated = migrate_source(example.before, example.target, frozenset({rule.code}))
    parts = [
        f"# {rule.code} {rule.name}\n",
        f"{rule.summary}.\n",
        f"**Fix:** {rule.fix}.\n",
        "## What changed\n",
        changed(module),
        "## Where it works\n",
        releases(rule),
        "## Example\n",
        fenced(example.before),
        f"`pallas-compat migrate --target {example.target}` writes:\n",
        fenced(migrated),
        "## What it leaves for a person\n",
        left_for_a_person(rule, migrated),
    ]
    return "\n".join(parts)


def changed(module: ModuleType) -> str:
    """The docstring less its first line's code and name, as Markdown paragraphs."""
    text = inspect.cleandoc(module.__doc__ or "")
    head, _, rest = text.partition(":")
    body = rest.strip() if head.strip() == str(module.RULE) else text
    return RST_LITERAL.sub(r"`\1`", body) + "\n"


def releases(rule: Rule) -> str:
    """A table of what doctor reports for the example, each use with its releases."""
    example = rule.example
    found = [u for u in uses_in("example.py", example.before) if u.code == rule.code]
    rows = [
        "| use | works in | deprecated in | on " + example.target + " | write instead |",
        "| --- | --- | --- | --- | --- |",
    ]
    for use in found:
        finding = Finding.of(use, example.target, [example.target], f"JAX {example.target}")
        deprecated = finding.as_json()["deprecated_in"] or ""
        cells = [use.api, finding.works_in, deprecated, finding.verdict, finding.write or "-"]
        rows.append("| " + " | ".join(cell_text(c) for c in cells) + " |")
    lead = (
        "What `pallas-compat doctor` reports for the example below: the releases come from the "
        "release scan of every JAX release's Pallas sources, and the advice is for the target.\n"
    )
    return lead + "\n" + "\n".join(rows) + "\n"


def cell_text(text: str) -> str:
    """Text for a Markdown table cell: code spans kept whole, pipes escaped."""
    return text.replace("|", "\\|").replace("\n", " ")


def fenced(code: str) -> str:
    return f"```python\n{code.rstrip()}\n```\n"


def left_for_a_person(rule: Rule, migrated: str) -> str:
    notes = [line.strip() for line in migrated.splitlines() if MARKER in line]
    if notes:
        listed = "\n".join(f"- `{note}`" for note in notes)
        return (
            "migrate writes a note where it cannot prove a rewrite safe, and doctor keeps "
            f"naming the use until a person has acted on it. In the example:\n\n{listed}\n"
        )
    if rule.fix is Fix.NONE:
        return "Everything: doctor names each use and migrate leaves the code as it is.\n"
    if rule.fix in (Fix.PARTLY, Fix.NOTES):
        return (
            "Nothing in this example. Forms migrate cannot prove safe get a "
            f"`{MARKER} ...` note instead of a rewrite, and doctor keeps naming them.\n"
        )
    return "Nothing: migrate rewrites every form of it.\n"
