"""Record libcst's qualified names for the cases of ``tests/test_scopes.py``: the independent
reference the scope analysis (``pallas_compat.rules._scopes``) is held to.

pallas-compat no longer depends on libcst; this script is the only thing that reads it. Run
it where libcst is installed (``pip install libcst``) after adding a case:

    python scripts/record_scopes_golden.py
"""

from __future__ import annotations

import json
import sys
import textwrap
from importlib.metadata import version
from pathlib import Path

import libcst as cst
from libcst.metadata import PositionProvider, QualifiedNameProvider

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.test_scopes import CASES, GOLDEN  # noqa: E402


class Collect(cst.CSTVisitor):
    """Every name read in an expression (not the name after a dot, not a keyword's name)."""

    METADATA_DEPENDENCIES = (QualifiedNameProvider, PositionProvider)

    def __init__(self) -> None:
        super().__init__()
        self.found: dict[str, list[str]] = {}

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.keep(node)
        node.value.visit(self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.keep(node)

    def keep(self, node: cst.CSTNode) -> None:
        span = self.get_metadata(PositionProvider, node)
        key = f"{span.start.line}:{span.start.column}:{span.end.line}:{span.end.column}"
        names = self.get_metadata(QualifiedNameProvider, node, set())
        self.found[key] = sorted(q.name for q in names)


def main() -> None:
    recorded = {}
    for name, source in CASES.items():
        collect = Collect()
        cst.MetadataWrapper(cst.parse_module(textwrap.dedent(source))).visit(collect)
        recorded[name] = collect.found
    GOLDEN.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN.relative_to(ROOT)} (libcst {version('libcst')})")


if __name__ == "__main__":
    main()
