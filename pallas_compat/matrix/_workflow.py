"""``pallas-compat matrix --emit github``: the same matrix as a GitHub Actions workflow, one
job per JAX release (a shard), then one job that merges the shards' JSON into the table (in
the log) and the HTML page (an artifact), as the project's own main-job workflow does."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from pallas_compat.matrix._routes import Route

TEMPLATE = """\
# Written by `pallas-compat matrix --emit github`: the tests on every JAX release, by every
# route, one job per release, then one job that merges the results.
name: pallas-compat matrix

on:
  push:
  pull_request:
  workflow_dispatch:

env:
  # How to install pallas-compat until it is on the package registry: a path or URL of its
  # wheel or sdist, or a git URL.
  PALLAS_COMPAT: "pallas-compat[matrix]"

jobs:
  release:
    runs-on: ubuntu-latest
    strategy:
      fail-fast: false
      matrix:
        jax: {releases}
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - run: python -m pip install uv "$PALLAS_COMPAT"
      # Exit status 1 when a run fails: the shard's result is still uploaded and merged.
      - run: |
          pallas-compat matrix --project {project} --jax ${{{{ matrix.jax }}}} --routes {routes} --format json --output matrix-${{{{ matrix.jax }}}}.json -- {command}
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: matrix-${{{{ matrix.jax }}}}
          path: matrix-${{{{ matrix.jax }}}}.json

  merge:
    needs: release
    if: always()
    runs-on: ubuntu-latest
    steps:
      # The checkout: doctor's advice under each failure reads the lines it passed through.
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - run: python -m pip install uv "$PALLAS_COMPAT"
      - uses: actions/download-artifact@v4
        with:
          pattern: matrix-*
          path: shards
          merge-multiple: true
      - run: pallas-compat matrix --merge shards/*.json --format html --output matrix.html || true
      - uses: actions/upload-artifact@v4
        with:
          name: matrix-html
          path: matrix.html
      - run: pallas-compat matrix --merge shards/*.json
"""


def workflow(
    releases: tuple[str, ...], routes: tuple[Route, ...], command: list[str], project: Path
) -> str:
    """The workflow for these releases, routes and command. ``project`` is named relative to
    the current folder (the checkout's root in CI) where it lies inside it."""
    try:
        where = project.relative_to(Path.cwd()).as_posix() or "."
    except ValueError:
        where = str(project)
    return TEMPLATE.format(
        releases=json.dumps(list(releases)),
        project=shlex.quote(where),
        routes=",".join(str(r) for r in routes),
        command=shlex.join(command),
    )
