from __future__ import annotations

import pytest

from probes._runner import Group, Launcher, run_groups

FAULTY = Group("faulty", ("tests.fault_probes",))


@pytest.fixture(params=["fork", "spawn"])
def launcher(request: pytest.FixtureRequest) -> Launcher:
    return Launcher(request.param)


def test_each_fault_costs_only_its_own_entry(launcher: Launcher) -> None:
    (result,) = run_groups([FAULTY], jobs=1, launcher=launcher)
    statuses = {key: outcome.status for key, outcome in result.outcomes.items()}
    assert statuses == {
        "behaviours.a_fine_before": "ok",
        "behaviours.b_raises": "error",
        "behaviours.c_hangs": "timeout",
        "behaviours.d_segfaults": "crashed",
        "behaviours.e_exits": "crashed",
        "behaviours.f_fine_after": "ok",
    }
    assert result.outcomes["behaviours.f_fine_after"].value == {"still": "here"}
    assert result.outcomes["behaviours.b_raises"].error == {
        "type": "RuntimeError",
        "message": "boom",
    }
    assert "SIGSEGV" in result.outcomes["behaviours.d_segfaults"].error["message"]
    assert "exit status 3" in result.outcomes["behaviours.e_exits"].error["message"]
    assert result.failure is None
    # one worker to start, one after each of the hang, the segfault and the exit
    assert result.workers == 4


def test_a_group_that_cannot_start_is_recorded_not_raised(launcher: Launcher) -> None:
    missing = Group("missing", ("tests.no_such_probe_module",))
    result, other = run_groups([missing, FAULTY], jobs=2, launcher=launcher)
    assert other.outcomes["behaviours.f_fine_after"].status == "ok"
    assert result.failure is not None and result.failure["type"] == "crashed"
    assert "No module named" in result.failure["message"]
    assert result.outcomes == {}


def test_results_come_back_in_group_order() -> None:
    fine = Group("fine", ("tests.fault_probes",))
    results = run_groups([FAULTY, fine], jobs=2, launcher=Launcher("fork"))
    assert [r.name for r in results] == ["faulty", "fine"]
