"""Assemble probe outcomes into one deterministic snapshot (written by ``pallas_compat._file_writes``)."""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable
from typing import Any

from common import ProbeStatus
from probes import SCHEMA
from probes._registry import SECTIONS
from probes._runner import GroupResult


def count_facts(value: Any) -> int:
    """Leaf values recorded: the size of what a diff can compare."""
    if isinstance(value, dict):
        return sum(count_facts(v) for v in value.values())
    if isinstance(value, list):
        return sum(count_facts(v) for v in value) or 1
    return 1


def assemble(
    results: Iterable[GroupResult], wall_s: float
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Place each outcome at ``snapshot[section][name]``; failures keep their reason. The
    timings come back apart: a snapshot holds only what the release is, so that a re-run on
    the same release writes the same bytes."""
    snapshot: dict[str, Any] = {"schema": SCHEMA, **{section: {} for section in SECTIONS}}
    failed: dict[str, str] = {}
    group_failures: dict[str, dict[str, str]] = {}
    seconds: dict[str, float] = {}
    titles: dict[str, str] = {}
    total = 0
    for result in results:
        titles.update(result.titles)
        seconds[f"group:{result.name}"] = result.seconds
        if result.failure is not None:
            group_failures[result.name] = result.failure
        for outcome in result.outcomes.values():
            total += 1
            section, _, name = outcome.key.partition(".")
            seconds[outcome.key] = outcome.seconds
            if outcome.status == ProbeStatus.OK:
                snapshot[section][name] = outcome.value
            else:
                failed[outcome.key] = outcome.status
                snapshot[section][name] = {
                    "probe_failed": {"status": outcome.status, **(outcome.error or {})}
                }
    snapshot["summary"] = {
        "probes": total,
        "failed": failed,
        "group_failures": group_failures,
        "facts": sum(count_facts(snapshot[section]) for section in SECTIONS),
        "probe_titles": dict(sorted(titles.items())),
    }
    timings = {
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "seconds": seconds,
        "wall_s": round(wall_s, 3),
    }
    return snapshot, timings


def dumps(snapshot: dict[str, Any]) -> str:
    """Canonical text: sorted keys, fixed indentation, strict JSON, trailing newline."""
    return (
        json.dumps(snapshot, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    )


def stable_part(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The part that diffs compare: everything but ``volatile`` (which snapshots written
    before timings moved to ``--timings`` still hold)."""
    return {k: v for k, v in snapshot.items() if k != "volatile"}
