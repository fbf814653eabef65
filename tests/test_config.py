"""``[tool.pallas-compat]`` in the user's ``pyproject.toml``."""

from __future__ import annotations

from pathlib import Path

import pytest

from pallas_compat.lint._config import Config, ConfigError, find_pyproject, load


def project(tmp_path: Path, table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(f"[project]\nname = 'x'\n\n{table}")
    src = tmp_path / "src" / "pkg"
    src.mkdir(parents=True)
    (src / "k.py").write_text("x = 1\n")
    return src


def test_the_nearest_pyproject_above_the_paths_is_read(tmp_path: Path) -> None:
    src = project(tmp_path, '[tool.pallas-compat]\ntarget = "0.6.2"\nignore = ["PAL105"]\n')
    assert find_pyproject([str(src / "k.py")]) == tmp_path / "pyproject.toml"
    config = load([str(src)])
    assert config.target == "0.6.2" and config.ignore == ("PAL105",) and config.select == ()
    assert config.path == tmp_path / "pyproject.toml"


def test_no_table_is_the_defaults(tmp_path: Path) -> None:
    src = project(tmp_path, "")
    assert load([str(src)]) == Config()


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ('[tool.pallas-compat]\ntarjet = "0.6.2"\n', "has no key 'tarjet'"),
        ("[tool.pallas-compat]\ntarget = 6\n", "target must be a release string"),
        ('[tool.pallas-compat]\nsupport = ["0.6.2"]\n', "support is [oldest, newest]"),
        (
            '[tool.pallas-compat]\ntarget = "0.6.2"\nsupport = ["0.6.2", "0.7.1"]\n',
            "target or support, not both",
        ),
        ("[tool.pallas-compat]\nselect = [1]\n", "select must be a string or a list"),
        ("[tool.pallas-compat\n", "cannot read"),
    ],
)
def test_a_bad_table_is_one_line(tmp_path: Path, table: str, says: str) -> None:
    src = project(tmp_path, table)
    with pytest.raises(ConfigError, match=says.replace("[", r"\[")) as caught:
        load([str(src)])
    assert "\n" not in str(caught.value)
