"""What ``doctor`` (and ``migrate``, to choose the files it rewrites) finds in each file: read
here, parsed by ``ast`` and searched in worker processes (``-j``), kept in the cache by
content. Lines about files left untouched come out in the order of the files."""

from __future__ import annotations

import dataclasses
import multiprocessing
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from pallas_compat._cpus import usable_cpus
from pallas_compat.lint import _finder
from pallas_compat.lint._cache import Cache, content_key
from pallas_compat.lint._inputs import (
    internal_error,
    read,
    too_deep,
    too_large,
    why_not_parsed,
)
from pallas_compat.lint._noqa import Silenced, by_statement, noqa_lines
from pallas_compat.lint._options import Inputs
from pallas_compat.lint._tree import Source
from pallas_compat.rules._use import Use

__all__ = ["Outcome", "analyse", "analysis_of"]

#: Below this many bytes to parse, worker processes cost more than they save.
PARALLEL_FROM = 256 * 1024


@dataclass(frozen=True)
class Outcome:
    """One file: its uses (None: left untouched, ``message`` says why), its ``# noqa``
    lines, and its bytes where it has uses (``migrate`` rewrites those)."""

    uses: tuple[Use, ...] | None
    noqa: Silenced = dataclasses.field(default_factory=dict)
    message: str = ""
    data: bytes | None = None


def examine(path: str, data: bytes, command: str) -> tuple[list[Use] | None, Silenced, str]:
    """Parse and search one file (in a worker process, or here)."""
    with _finder.gc_paused():
        try:
            module = _finder.parse_source(data)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            return None, {}, f"{path}: cannot parse, left untouched ({why_not_parsed(exc)})"
        try:
            uses = _finder.find_uses(path, module, data)
        except RecursionError:
            return None, {}, too_deep(path, command)
        except Exception as exc:  # a bug of ours must not hide the other files
            return None, {}, internal_error(path, command, exc)
    return uses, by_statement(noqa_lines(data), module), ""


def examine_all(
    batch: list[tuple[str, bytes, str]],
) -> list[tuple[list[Use] | None, Silenced, str]]:
    return [examine(*item) for item in batch]


def analyse(files: Sequence[Source], command: str, jobs: int, cache: Cache) -> list[Outcome]:
    """An ``Outcome`` for each of ``files``, in their order."""
    outcomes: list[Outcome | None] = []
    pending: list[tuple[int, str, bytes, str]] = []
    for source in files:
        data, message = read(source)
        if data is None:
            outcomes.append(Outcome(None, message=message))
        elif not _finder.may_use_pallas(data):
            outcomes.append(Outcome(()))
        elif (large := too_large(data)) is not None:
            why = f"{source.path}: too large to check, left untouched ({large})"
            outcomes.append(Outcome(None, message=why))
        else:
            key = content_key(data)
            kept = cache.get(key)
            if kept is not None:
                outcomes.append(from_cache(str(source.path), kept, data))
            else:
                outcomes.append(None)
                pending.append((len(outcomes) - 1, str(source.path), data, key))
    for (at, _, data, key), (uses, noqa, message) in zip(
        pending, run(pending, command, jobs), strict=True
    ):
        if uses is None:
            outcomes[at] = Outcome(None, message=message)
            continue
        cache.put(
            key, {"uses": [fields(u) for u in uses], "noqa": sorted(map(list_of, noqa.items()))}
        )
        outcomes[at] = Outcome(tuple(uses), noqa, data=data if uses else None)
    cache.save()
    done = [outcome for outcome in outcomes if outcome is not None]
    for outcome in done:
        if outcome.message:
            print(outcome.message, file=sys.stderr)
    return done


def run(
    pending: list[tuple[int, str, bytes, str]], command: str, jobs: int
) -> list[tuple[list[Use] | None, Silenced, str]]:
    """``examine`` each pending file: in ``jobs`` worker processes where there is enough to
    parse, else here."""
    items = [(path, data, command) for _, path, data, _ in pending]
    size = sum(len(data) for _, data, _ in items)
    if jobs <= 1 or len(items) < 2 or size < PARALLEL_FROM:
        return examine_all(items)
    workers = min(jobs, len(items))
    batches = balanced([len(data) for _, data, _ in items], workers * 4)
    with ProcessPoolExecutor(workers, mp_context=context()) as pool:
        answers = pool.map(examine_all, [[items[i] for i in batch] for batch in batches])
        results: list[Any] = [None] * len(items)
        for batch, answer in zip(batches, answers, strict=True):
            for index, result in zip(batch, answer, strict=True):
                results[index] = result
    return results


def balanced(sizes: list[int], count: int) -> list[list[int]]:
    """The indices of ``sizes`` in ``count`` batches of about equal total size (largest
    first, each to the lightest batch): several batches a worker, so that one large file
    does not leave the other workers idle."""
    batches: list[list[int]] = [[] for _ in range(count)]
    loads = [0] * count
    for index in sorted(range(len(sizes)), key=lambda i: -sizes[i]):
        lightest = loads.index(min(loads))
        batches[lightest].append(index)
        loads[lightest] += sizes[index]
    return [batch for batch in batches if batch]


def context() -> multiprocessing.context.BaseContext:
    """Fork where the platform has it (nothing to re-import: the workers start at once)."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def fields(use: Use) -> dict[str, Any]:
    found = dataclasses.asdict(use)
    del found["path"]
    return found


def list_of(item: tuple[int, frozenset[str]]) -> list[Any]:
    return [item[0], sorted(item[1])]


def from_cache(path: str, kept: dict[str, Any], data: bytes) -> Outcome:
    uses = tuple(
        Use(
            path=path,
            **{
                **fields_,
                "releases": tuple(tuple(span) for span in fields_["releases"]),
                "warns": tuple(tuple(span) for span in fields_["warns"]),
            },
        )
        for fields_ in kept["uses"]
    )
    noqa = {line: frozenset(codes) for line, codes in kept["noqa"]}
    return Outcome(uses, noqa, data=data if uses else None)


def analysis_of(inputs: Inputs, files: Sequence[Source], command: str) -> list[Outcome]:
    """``analyse`` as asked: ``--jobs``, the cache folder (or none)."""
    return analyse(files, command, inputs.jobs or usable_cpus(), Cache(inputs.cache))
