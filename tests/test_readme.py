"""The README's and the docs' first example is what the tools say: the doctor lines they show
(cut at ``...``) are doctor's own, and the code after is what migrate writes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pallas_compat._cli import main

REPO = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"```(\w+)\n(.*?)```", re.S)


def blocks(page: Path) -> list[tuple[str, str]]:
    return FENCE.findall(page.read_text(encoding="utf-8"))


@pytest.mark.parametrize("page", ["README.md", "docs/index.md"])
def test_the_first_example_is_what_doctor_and_migrate_say(
    page: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code = [text for kind, text in blocks(REPO / page) if kind == "python"]
    shown = next(text for kind, text in blocks(REPO / page) if kind in ("console", "text"))
    before, after = code[0], code[1]
    monkeypatch.chdir(tmp_path)
    Path("kernel.py").write_text(before)
    assert main(["doctor", "kernel.py", "--target", "0.12.0.1"]) == 1
    said = capsys.readouterr().out.splitlines()
    lines = [line.removeprefix("$ ") for line in shown.splitlines() if not line.startswith("$")]
    assert len(lines) <= len(said)
    for line, real in zip(lines, said, strict=False):
        assert real.startswith(line.removesuffix("..."))
    assert main(["migrate", "kernel.py", "--target", "0.12.0.1", "--write"]) == 0
    assert Path("kernel.py").read_text() == after
