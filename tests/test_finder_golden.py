"""doctor finds what an independent reading found: every use with its line, column, rule,
API, certainty, releases, warning releases and advice, on the repository's fixtures and
kernels and the corpus's third-party libraries. The golden was recorded by running the last
revision whose doctor read with libcst (``scripts/record_doctor_golden.py``), not by the code
under test; what the facts learnt since is named below, with its new value."""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from kernels.thirdparty._libraries import BY_NAME
from pallas_compat.lint._finder import may_use_pallas, uses_in
from tests.third_party import library_dir

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "tests" / "fixtures" / "doctor_golden.json"
sys.path.insert(0, str(REPO / "scripts"))

from record_doctor_golden import files  # noqa: E402
from since_reference import known_to_reference  # noqa: E402


def digest(text: str) -> str:
    """How the golden records a use's advice."""
    return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Changed:
    """A fact learnt since the reference revision: its value there, its value now, and why."""

    then: object
    now: object
    why: str


#: (rule, API, field) -> how it changed since the reference.
CHANGED_SINCE: dict[tuple[str, str, str], Changed] = {
    ("PAL201", "BlockSpec(index_map, block_shape)", "releases"): Changed(
        [["0.4.30", "0.4.30"]],
        [["0.4.30", "0.4.34"]],
        "the release scan found 0.4.31-0.4.34 still take index_map first (with a warning)",
    ),
    ("PAL201", "BlockSpec(index_map, block_shape)", "warns"): Changed(
        [], [["0.4.31", "0.4.34"]], "the same scan: those releases warn"
    ),
    ("PAL103", "pltpu.TPUMemorySpace.ANY", "releases"): Changed(
        [["0.4.30", "0.6.1"]],
        [["0.4.30", "0.7.0"]],
        "the scan follows JAX's deprecated aliases: TPUMemorySpace (an alias of MemorySpace "
        "from 0.6.2) kept ANY through 0.7.0",
    ),
    ("PAL202", "BlockSpec(?, ?): argument order unknown", "hint"): Changed(
        "5dc06e46860a",
        digest(
            "pl.BlockSpec(block_shape, index_map); JAX 0.4.30-0.4.34 took index_map first: "
            "check which argument is the index map"
        ),
        "the advice names the releases that took index_map first (to 0.4.34, not 0.4.30)",
    ),
}
#: The golden's fields after (line, column, rule, API).
FIELDS = ("certain", "releases", "warns", "hint")


def rows(path: str, data: bytes) -> list[list[object]]:
    """The uses as the golden records them, less what the reference could not know; a
    field named in ``CHANGED_SINCE`` with its value now is recorded as the reference had it
    (any other value stays, and differs)."""
    found = []
    for u in uses_in(path, data):
        if not known_to_reference(u.code, u.api):
            continue
        row = json.loads(json.dumps([u.line, u.column, u.code, u.api, u.certain, u.releases]))
        row += json.loads(json.dumps([u.warns, digest(u.hint)]))
        for at, field in enumerate(FIELDS, start=4):
            changed = CHANGED_SINCE.get((u.code, u.api, field))
            if changed is not None and row[at] == changed.now:
                row[at] = changed.then
        found.append(row)
    return found


def test_doctor_finds_every_use_the_reference_found_with_its_states_and_advice() -> None:
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
