from __future__ import annotations

import json
from pathlib import Path

import pytest

from common import MatrixError, load_matrix

REPO = Path(__file__).resolve().parent.parent


def write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "jax-matrix.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_the_committed_matrix() -> None:
    matrix = load_matrix(REPO / "jax-matrix.json")
    assert matrix.default[0] == "0.4.30" and "0.12.0.1" in matrix.default
    assert set(matrix.default) <= set(matrix.every)
    minors = {tuple(int(p) for p in r.split(".")[:2]) for r in matrix.every}
    assert len(matrix.default) == len(minors) + 1  # the oldest, then one per minor series
    assert all(matrix.python_for(r) == "3.12" for r in matrix.default)


def test_python_follows_requires_python(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {"default": ["1.0"], "every": [{"jax": "1.0", "requires_python": ">=3.13"}]},
    )
    assert load_matrix(path).python_for("1.0") == "3.13"


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{not json", "not valid JSON"),
        ({"default": ["0.4.30"]}, "needs 'default' and 'every'"),
        ({"default": ["9.9.9"], "every": [{"jax": "0.4.30"}]}, "unknown JAX release 9.9.9"),
        ({"default": ["x.y"], "every": [{"jax": "x.y"}]}, "'x.y' is not a release number"),
        (
            {"default": ["1.0"], "every": [{"jax": "1.0", "requires_python": ">=three"}]},
            "bad requires_python",
        ),
    ],
)
def test_bad_matrix_files(tmp_path: Path, content: object, says: str) -> None:
    path = write(tmp_path, content)
    with pytest.raises(MatrixError, match=says) as info:
        load_matrix(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)
