"""pallas_compat/_cpus.py: the CPUs this process may use, which the shim's XLA threads and the
matrix's parallel runs are sized by."""

from __future__ import annotations

import os

import pytest

from pallas_compat import _cpus


def test_usable_cpus_is_what_the_process_may_run_on() -> None:
    count = _cpus.usable_cpus()
    assert 1 <= count <= (os.cpu_count() or 1)
    if hasattr(os, "sched_getaffinity"):
        assert count == len(os.sched_getaffinity(0))


def test_without_affinity_it_asks_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert _cpus.usable_cpus() == 1
