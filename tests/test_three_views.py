"""One truth, three views: for the uses people ask about, on every scanned release, doctor's
state, the page's cell and the upgrade guide say the same (works, works with a warning,
breaks). The page is built here from the committed snapshots."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pallas_compat._cli import main as compat_main
from pallas_compat.facts import DICT_PARAMS, form_anchor, scanned_releases
from report._guide import ChangeKind, guide
from report._load import load_snapshots
from report._surface import Surface

REPO = Path(__file__).resolve().parent.parent
WORKS, WARNS, BREAKS = "works", "works with a warning", "breaks"
TONE = {"good": WORKS, "warn": WARNS, "bad": BREAKS, "info": BREAKS}

#: (what the use is, its source, the module and name or form it uses)
USES = [
    ("pl.load", "x = pl.load(x_ref, (0,))", "jax.experimental.pallas", "load"),
    ("pl.store", "pl.store(o_ref, (0,), x)", "jax.experimental.pallas", "store"),
    ("pl.dot", "y = pl.dot(a, b)", "jax.experimental.pallas", "dot"),
    (
        "pltpu.TPUCompilerParams",
        "p = pltpu.TPUCompilerParams()",
        "jax.experimental.pallas.tpu",
        "TPUCompilerParams",
    ),
    (
        "pltpu.CompilerParams",
        "p = pltpu.CompilerParams()",
        "jax.experimental.pallas.tpu",
        "CompilerParams",
    ),
    ("pltpu.repeat", "y = pltpu.repeat(x, 2, 0)", "jax.experimental.pallas.tpu", "repeat"),
    (DICT_PARAMS, "f = pl.pallas_call(k, out_shape=s, compiler_params={'mosaic': {}})", None, None),
]
HEADER = (
    "from jax.experimental import pallas as pl\nfrom jax.experimental.pallas import tpu as pltpu\n"
)


@pytest.fixture(scope="module")
def page(built_report: Path) -> str:
    return (built_report / "api-diff.html").read_text()


@pytest.fixture(scope="module")
def surface() -> Surface:
    return Surface(tuple(load_snapshots(REPO / "reports" / "snapshots")))


def page_states(page: str, anchor: str) -> list[str]:
    """The row's presence strip, one state per scanned release, from the cells' colours."""
    row = re.search(rf'<tr class="row"><td id="{re.escape(anchor)}">.*?</tr>', page)
    assert row, anchor
    tones = re.findall(r'<td class="(good|warn|bad|info) m"', row.group(0))
    assert len(tones) == len(scanned_releases()), anchor
    return [TONE[t] for t in tones]


def doctor_states(tmp: Path, source: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    path = tmp / "k.py"
    path.write_text(HEADER + source + "\n")
    states = []
    for release in scanned_releases():
        compat_main(["doctor", str(path), "--target", release, "--format", "json"])
        (use,) = json.loads(capsys.readouterr().out)["uses"]
        states.append(use["state_on_target"])
    return states


def guide_states(
    subject: str, surface: Surface, doctor: list[str], *, form: bool
) -> list[str | None]:
    """From the first release the use works plainly on, the guide's word for each later one
    (None before it: a guide is for upgrades). A name breaks where the guide has it removed
    or renamed (a keyword of it gone is another use); a call form where it is refused."""
    breaking = {ChangeKind.CALL_FORM} if form else {ChangeKind.REMOVED, ChangeKind.RENAMED}
    releases = scanned_releases()
    start = doctor.index(WORKS)
    found: list[str | None] = [None] * (start + 1)
    found[start] = WORKS
    for release in releases[start + 1 :]:
        kinds = {
            c.kind for c in guide(releases[start], release, surface).changes if c.subject == subject
        }
        if kinds & breaking:
            found.append(BREAKS)
        elif ChangeKind.DEPRECATED in kinds:
            found.append(WARNS)
        else:
            found.append(WORKS)
    return found


@pytest.mark.parametrize(("what", "source", "module", "name"), USES, ids=[u[0] for u in USES])
def test_doctor_the_page_and_the_guide_agree_on_every_release(
    what: str,
    source: str,
    module: str | None,
    name: str | None,
    page: str,
    surface: Surface,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    doctor = doctor_states(tmp_path, source, capsys)
    anchor = surface.anchor(module, name) if module and name else form_anchor(what)
    assert doctor == page_states(page, anchor)
    for release, said, told in zip(
        scanned_releases(),
        doctor,
        guide_states(what, surface, doctor, form=module is None),
        strict=True,
    ):
        assert told in (None, said), (what, release, said, told)
    assert len(set(doctor)) > 1  # a use that changed somewhere: the comparison means something
