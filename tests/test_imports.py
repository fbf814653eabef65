from __future__ import annotations

import json
import subprocess
import sys

from probes.imports import check, check_forked


def test_clean_environment_has_nothing_undeclared() -> None:
    report = check()
    assert report["undeclared"] == []
    assert "jax.experimental.pallas" not in report["errors"]


def test_a_missing_third_party_package_is_reported(monkeypatch) -> None:
    import importlib

    real = importlib.import_module

    def fake(name: str, *args: object):
        if name == "jax.experimental.pallas.tpu":
            raise ModuleNotFoundError("No module named 'absl'", name="absl")
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", fake)
    report = check()
    assert report["undeclared"] == ["absl"] and report["install"] == ["absl-py"]
    assert "absl" in report["errors"]["jax.experimental.pallas.tpu"]


def test_module_entry_point_prints_one_json_line() -> None:
    out = subprocess.run([sys.executable, "-m", "probes.imports"], capture_output=True, text=True)
    assert out.returncode == 0 and json.loads(out.stdout.splitlines()[-1])["undeclared"] == []


def test_the_forked_check_agrees_and_leaves_this_process_alone() -> None:
    before = set(sys.modules)
    assert check_forked() == json.loads(json.dumps(check_in_subprocess()))
    assert set(sys.modules) == before


def check_in_subprocess() -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "probes.imports"], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.splitlines()[-1])
