"""pallas_compat/lint/_rule_page.py and ``pallas-compat rule``: a rule's page, made from the
rule's module, the release scan and migrate's own output, the same in the terminal and the site."""

from __future__ import annotations

import pytest

from pallas_compat._cli import main
from pallas_compat.lint._rule_page import module_of, page
from pallas_compat.rules import MODULES, RULES, block_spec_order_unknown, masked_access


def test_a_page_says_what_changed_where_and_what_migrate_writes() -> None:
    text = page(masked_access)
    assert text.startswith("# PAL301 masked-load-store\n")
    assert "**Fix:** migrate rewrites the forms it can prove, notes the rest." in text
    # what changed: the module's docstring, its reST literals as Markdown code
    changed = text.split("## What changed")[1].split("## Where it works")[0]
    assert "`pl.load`, `pl.store` and `pl.swap`, which left `pl`" in changed
    assert "``" not in changed
    # where: what doctor reports, from the release scan (pl.load: deprecated in 0.7.1 with
    # JAX's own DeprecationWarning, gone in 0.9.0; the chapter's release refuses it)
    assert (
        "| pl.load | 0.4.30-0.8.3 | 0.7.1-0.8.3 | breaks on 0.12.0.1 | x_ref[idx] (no mask)" in text
    )
    # the example as written, and what migrate makes of it, each once
    assert text.count("pl.store(o_ref, (pl.ds(0, 8),), pl.load(x_ref, (pl.ds(0, 8),)) + 1)") == 1
    assert "    o_ref[pl.ds(0, 8)] = x_ref[pl.ds(0, 8)] + 1\n```" in text
    assert "## What it leaves for a person\n\nNothing in this example." in text


def test_a_rule_migrate_only_notes_shows_its_note() -> None:
    text = page(block_spec_order_unknown)
    assert "**Fix:** no fix (doctor only)." in text
    assert "## What it leaves for a person\n\nEverything" in text


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.RULE.code)
def test_every_rule_has_a_page_with_every_part(module: object) -> None:
    text = page(module)  # type: ignore[arg-type]
    for heading in ("What changed", "Where it works", "Example", "What it leaves for a person"):
        assert f"\n## {heading}\n\n" in text
    where = text.split("## Where it works")[1].split("## Example")[0]
    assert where.count("\n| ") >= 3, "doctor reports no use of the rule in its own example"


def test_the_rule_command_prints_the_page_by_code_or_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["rule", "PAL301"]) == 0
    assert capsys.readouterr().out == page(masked_access)
    assert main(["rule", "masked-load-store"]) == 0
    assert capsys.readouterr().out == page(masked_access)
    assert module_of("pal301") is masked_access


def test_the_rule_command_prints_every_page_in_code_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["rule", "--all"]) == 0
    out = capsys.readouterr().out
    headings = [line[2:] for line in out.splitlines() if line.startswith("# PAL")]
    assert headings == [str(rule) for rule in RULES]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["rule", "PAL999"], "no rule 'PAL999'"),
        (["rule"], "give one rule's code or name"),
        (["rule", "PAL301", "--all"], "give one rule's code or name"),
    ],
)
def test_a_rule_that_is_not_there_is_one_line_and_exit_2(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and says in err and err.count("\n") == 1
