"""The docs site's generated parts (an MkDocs hook, named in mkdocs.yml): a page per rule from
the rule's own module, the tables of rules and of served names from the package, the evidence
from the committed reports, and the API-diff report itself. Nothing here is written by hand, so
the site says what the code does and what the main job measured.

A hand-written page asks for a generated part with a marker on a line of its own
(``<!-- generated: served-names -->``); a marker no generator knows fails the build.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pallas_compat import facts, rules
from pallas_compat.lint._rule_page import page, page_name

if TYPE_CHECKING:
    from mkdocs.structure.files import Files

ROOT = Path(__file__).resolve().parent.parent
REPORT_MD = ROOT / "reports" / "api-diff.md"
REPORT_HTML = ROOT / "reports" / "api-diff.html"
MARKER = re.compile(r"^<!-- generated: ([a-z-]+) -->$", re.M)
#: The rules in code order, as the Rules section of the navigation lists them.
MODULES = sorted(rules.MODULES, key=lambda m: m.RULE.code)


def on_config(config: Any) -> Any:
    """Each rule's page joins the navigation under the Rules index."""
    for i, entry in enumerate(config["nav"]):
        if isinstance(entry, dict) and entry.get("Rules") == "rules/index.md":
            pages = [{str(m.RULE): f"rules/{page_name(m.RULE)}"} for m in MODULES]
            config["nav"][i] = {"Rules": ["rules/index.md", *pages]}
    return config


def on_files(files: Files, config: Any) -> Files:
    from mkdocs.structure.files import File  # lazy: the tests read the tables without mkdocs

    for module in MODULES:
        files.append(
            File.generated(config, f"rules/{page_name(module.RULE)}", content=page(module))
        )
    files.append(File.generated(config, "api-diff.html", abs_src_path=str(REPORT_HTML)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    def generated(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in GENERATORS:
            raise ValueError(f"{page.file.src_uri}: no generator for marker {name!r}")
        return GENERATORS[name]()

    return MARKER.sub(generated, markdown)


def rules_table() -> str:
    rows = ["| code | name | what it checks | fix |", "| --- | --- | --- | --- |"]
    for module in MODULES:
        rule = module.RULE
        link = f"[{rule.code}]({page_name(rule)})"
        rows.append(f"| {link} | {rule.name} | {cell(rule.summary)} | {rule.fix} |")
    return "\n".join(rows) + "\n"


def served_names() -> str:
    """Per namespace, each name the shim fills in, where it serves it and where JAX has it."""
    home = {}
    for module, alias in facts.NAMESPACE_OF.items():
        home.setdefault(alias, module)  # the first module of an alias is its own
    parts = []
    for alias, names in sorted(facts.served_names().items()):
        parts.append(f"### `pallas_compat.{alias}`\n")
        parts.append("| name | pallas_compat serves it on | JAX has it on |")
        parts.append("| --- | --- | --- |")
        for name, spans in sorted(names.items()):
            native = facts.Location(home[alias], name).releases
            has = facts.describe(native) if native else "not in the scan"
            parts.append(f"| `{alias}.{name}` | {facts.describe(spans)} | {has} |")
        parts.append("")
    return "\n".join(parts)


def report_section(title: str) -> Callable[[], str]:
    """A section of the committed API-diff report, one heading level down, its folds' tables
    rendered (``md_in_html``)."""

    def section() -> str:
        text = REPORT_MD.read_text(encoding="utf-8")
        start = text.index(f"\n## {title}\n")
        end = text.find("\n## ", start + 1)
        body = text[start + 1 : end if end != -1 else len(text)]
        body = re.sub(r"^(#+) ", r"#\1 ", body, flags=re.M)
        return body.replace("<details", '<details markdown="1"')

    return section


def cell(text: str) -> str:
    return text.replace("|", "\\|")


GENERATORS: dict[str, Callable[[], str]] = {
    "rules-table": rules_table,
    "served-names": served_names,
    "chapter-kernels": report_section("Kernels x mode x release"),
    "jax-ops": report_section("Real kernels: JAX's own ops on other releases"),
    "libraries": report_section("Real kernels: published libraries' kernels on newer releases"),
}
