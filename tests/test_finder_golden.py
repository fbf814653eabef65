"""doctor's ``ast`` path finds what its libcst path found (issue 44): every use with its line,
column, rule, API and certainty, on the repository's fixtures and kernels and the corpus's
third-party libraries (a use's releases, state and advice come from the facts both paths
share). The golden was recorded by running the last libcst revision
(``scripts/record_doctor_golden.py``), not by the code under test."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from kernels.thirdparty._libraries import BY_NAME
from pallas_compat.lint._finder import may_use_pallas, uses_in
from tests.third_party import library_dir

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "tests" / "fixtures" / "doctor_golden.json"
sys.path.insert(0, str(REPO / "scripts"))

from record_doctor_golden import files  # noqa: E402

#: Rules written after the reference revision: it could not find their uses.
LATER_RULES = frozenset({"PAL109", "PAL212", "PAL213"})
#: (rule, API) of the reference's rules that learnt a use since, from a fact added on purpose.
LATER_FACTS = {
    ("PAL211", "plgpu.load(idx=...)"): "JAX 0.12.0 moved plgpu.load's idx into the ref "
    "(KEYWORD_MOVES), and the rule reads the argument given by position too",
}


def rows(path: str, data: bytes) -> list[list[object]]:
    """The uses as the golden records them, less what the reference could not know."""
    return [
        [u.line, u.column, u.code, u.api, u.certain]
        for u in uses_in(path, data)
        if u.code not in LATER_RULES and (u.code, u.api) not in LATER_FACTS
    ]


def test_the_ast_path_finds_every_use_the_libcst_path_found() -> None:
    for name in BY_NAME:
        library_dir(name)  # fails with the command that fetches it, where it is missing
    golden = json.loads(GOLDEN.read_text())["uses"]
    checked, differing = 0, []
    for key, path in files():
        data = Path(path).read_bytes()
        if not may_use_pallas(data):
            continue
        assert key in golden, f"{key}: not in the golden (rerun scripts/record_doctor_golden.py)"
        found = rows(path, data)
        checked += len(found)
        if found != golden[key]:
            differing.append(key)
    assert not differing, differing
    assert checked == sum(len(v) for v in golden.values()) > 1000
