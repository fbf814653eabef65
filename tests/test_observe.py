from __future__ import annotations

from probes._observe import clip, error_record, normalize, observe, strip_tracebacks


def test_normalize_drops_addresses_and_install_paths() -> None:
    text = (
        "<function f at 0x7f3a2b4c5d60> in /opt/venv/lib/python3.12/site-packages/jax/_src/core.py"
    )
    assert normalize(text) == "<function f> in <site-packages>/jax/_src/core.py"
    assert normalize("<jax._src.pallas.core.NoBlockSpec object at 0x7f3a2b4c5d60>") == (
        "<NoBlockSpec object>"
    )
    assert normalize("id 0x7f3a2b4c5d60 freed") == "id 0x… freed"


def test_normalize_drops_this_checkout_path_and_line() -> None:
    from probes._runner import REPO_ROOT

    assert (
        normalize(f"kernel at {REPO_ROOT}/probes/interpret.py:110 fails")
        == "kernel at <repo>/probes/interpret.py fails"
    )


def test_strip_tracebacks_keeps_the_error_lines() -> None:
    text = (
        "INTERNAL: CpuCallback error: Traceback (most recent call last):\n"
        '  File "/x/callback.py", line 829, in _wrapped\n'
        "    result = f()\n"
        "RuntimeError: Revisited block (slice(0, 32, 1),) of output 0."
    )
    assert (
        strip_tracebacks(text)
        == "INTERNAL: CpuCallback error:\nRuntimeError: Revisited block (slice(0, 32, 1),) of output 0."
    )


def test_error_record_qualifies_non_builtin_types() -> None:
    class LocalError(Exception):
        pass

    assert error_record(ValueError("x")) == {"type": "ValueError", "message": "x"}
    assert error_record(LocalError("y"))["type"].endswith("LocalError")


def test_observe_records_both_outcomes() -> None:
    assert observe(lambda: 3, lambda v: v * 2) == {"outcome": "returned", "value": 6}
    assert observe(lambda: 1 / 0)["error"]["type"] == "ZeroDivisionError"


def test_clip_says_how_much_it_dropped() -> None:
    assert clip("abcdef", 3) == "abc… [3 more chars]"
