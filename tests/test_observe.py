from __future__ import annotations

from probes._observe import error_record, observe


def test_error_record_qualifies_non_builtin_types() -> None:
    class LocalError(Exception):
        pass

    assert error_record(ValueError("x")) == {"type": "ValueError", "message": "x"}
    assert error_record(LocalError("y"))["type"].endswith("LocalError")


def test_observe_records_both_outcomes() -> None:
    assert observe(lambda: 3, lambda v: v * 2) == {"outcome": "returned", "value": 6}
    assert observe(lambda: 1 / 0)["error"]["type"] == "ZeroDivisionError"
