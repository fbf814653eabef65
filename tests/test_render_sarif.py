"""``doctor --format sarif``: a SARIF 2.1.0 log that code scanning imports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pallas_compat._cli import main
from pallas_compat.lint import _docs_site
from pallas_compat.lint._rule_page import page
from pallas_compat.rules import RULES, masked_access

SOURCE = "from jax.experimental import pallas as pl\nx = pl.load(r, (0,))\ni = pl.program_id(0)\n"


def test_the_log_names_each_rule_and_locates_each_result(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "k.py"
    path.write_text(SOURCE)
    assert main(["doctor", str(path), "--target", "0.7.1", "--format", "sarif"]) == 0
    log = json.loads(capsys.readouterr().out)
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "pallas-compat"
    assert [r["id"] for r in driver["rules"]] == [r.code for r in RULES]
    (result,) = run["results"]  # pl.load warns on 0.7.1 (deprecated): a warning, not an error
    assert result["ruleId"] == "PAL301" and result["level"] == "warning"
    assert driver["rules"][result["ruleIndex"]]["id"] == "PAL301"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == path.as_uri()
    assert location["region"] == {"startLine": 2, "startColumn": 5}
    assert main(["doctor", str(path), "--target", "0.12.0.1", "--format", "sarif"]) == 1
    (result,) = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert result["level"] == "error" and "breaks on 0.12.0.1" in result["message"]["text"]


def test_each_rule_carries_its_page_and_links_to_it_where_a_site_is_known(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "k.py"
    path.write_text(SOURCE)
    monkeypatch.setattr(_docs_site, "CHECKOUT_SITE", tmp_path / "no-site")
    main(["doctor", str(path), "--target", "0.12.0.1", "--format", "sarif"])
    rules = json.loads(capsys.readouterr().out)["runs"][0]["tool"]["driver"]["rules"]
    masked = next(r for r in rules if r["id"] == "PAL301")
    assert masked["help"]["markdown"] == page(masked_access)  # what `pallas-compat rule` prints
    assert not any("helpUri" in r for r in rules)  # no site to link to
    site = tmp_path / "site"
    (site / "rules").mkdir(parents=True)
    main(["doctor", str(path), "--target", "0.12.0.1", "--format", "sarif", "--docs", str(site)])
    rules = json.loads(capsys.readouterr().out)["runs"][0]["tool"]["driver"]["rules"]
    assert [r["helpUri"] for r in rules] == [f"{site.as_uri()}/rules/{r.code}.html" for r in RULES]
    url = "https://docs.example.org/pallas-compat/"
    main(["doctor", str(path), "--target", "0.12.0.1", "--format", "sarif", "--docs", url])
    rules = json.loads(capsys.readouterr().out)["runs"][0]["tool"]["driver"]["rules"]
    assert rules[0]["helpUri"] == f"{url}rules/{RULES[0].code}.html"
