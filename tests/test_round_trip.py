"""doctor on what ``migrate`` wrote finds no use that migrate claims to have fixed: every use
that still breaks on the target sits in a statement migrate noted (``# pallas-compat:``), on
every file of the corpora (the repository's fixtures and kernels, JAX's own kernels of the
corpus releases, the third-party libraries) and every release of the default matrix. One
reading decides for both; this is where a fix that does less than its finder promised shows."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest

from kernels.thirdparty._libraries import BY_NAME
from pallas_compat import rules
from pallas_compat.lint._finder import may_use_pallas, uses_in
from pallas_compat.lint._migrate import MARKER, Migration
from pallas_compat.lint._noqa import statement_span
from tests.third_party import library_dir

REPO = Path(__file__).resolve().parent.parent
MATRIX = json.loads((REPO / "jax-matrix.json").read_text())["default"]
sys.path.insert(0, str(REPO / "scripts"))

from fetch_ops import default_cache  # noqa: E402
from record_doctor_golden import files  # noqa: E402

#: The releases whose shipped kernels the corpus runs (``noxfile.CORPUS_FROM``).
CORPUS_FROM = ("0.4.30", "0.4.35", "0.4.36", "0.6.2", "0.9.2", "0.12.0.1")


def corpora() -> list[Path]:
    """Every file of the corpora (the ops and the libraries must be fetched)."""
    for name in BY_NAME:
        library_dir(name)
    ops = default_cache() / "ops"
    missing = [r for r in CORPUS_FROM if not (ops / r).is_dir()]
    if missing:
        pytest.fail(
            f"JAX's kernels of {', '.join(missing)} are not fetched; run python "
            f"scripts/fetch_ops.py --releases {','.join(CORPUS_FROM)} (nox -s tests does)"
        )
    found = [Path(path) for _, path in files()]
    return found + [p for r in CORPUS_FROM for p in sorted((ops / r).rglob("*.py"))]


def unclaimed(text: str, target: str) -> list[str]:
    """The uses in ``text`` that break on ``target`` outside a noted statement (a use of a
    rule that fixes nothing is the reader's to settle, not migrate's claim)."""
    lines = text.splitlines()
    spans = [s for node in ast.walk(ast.parse(text)) if (s := statement_span(node))]
    found = []
    for use in uses_in("migrated.py", text):
        if not use.breaks_on(target) or rules.RULES_BY_CODE[use.code].fix is rules.Fix.NONE:
            continue
        around = [(first, last) for first, last in spans if first <= use.line <= last]
        first = min((f for f, _ in around), default=use.line)
        last = max((la for _, la in around), default=use.line)
        if not any(MARKER in lines[at - 1] for at in range(first, last + 1)):
            found.append(f"{use.line}: {use.code} {use.api}")
    return found


def test_doctor_finds_nothing_migrate_claims_to_have_fixed() -> None:
    checked, failing = 0, []
    for path in corpora():
        data = path.read_bytes()
        if not may_use_pallas(data):
            continue
        try:
            migration = Migration(data.decode())
        except (SyntaxError, UnicodeDecodeError):
            continue  # doctor names it as unreadable; migrate leaves it
        if not migration.findings:
            continue
        checked += 1
        written: set[str] = set()
        for target in MATRIX:
            text = migration.code(target)
            if text in written:
                continue
            written.add(text)
            failing += [f"{path} for {target}: {u}" for u in unclaimed(text, target)]
    assert checked > 150
    assert not failing, "\n".join(failing)


def test_the_check_can_fail() -> None:
    """A use migrate leaves without a note is caught."""
    text = "from jax.experimental import pallas as pl\nx = pl.load(r, (0,))\n"
    assert unclaimed(text, "0.12.0.1") == ["2: PAL301 pl.load"]
    assert unclaimed(text + "# pallas-compat: noted\n", "0.12.0.1") != []  # another line
    noted = text.replace("(0,))\n", "(0,))  # pallas-compat: left\n")
    assert unclaimed(noted, "0.12.0.1") == []
