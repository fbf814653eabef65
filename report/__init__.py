"""The API-diff report: snapshots and results in, Markdown, HTML and text out (no JAX needed).

``python -m report`` writes ``reports/api-diff.md`` and ``.html`` from ``reports/snapshots``,
``reports/kernels`` and ``reports/corpus``; ``python -m report guide --from A --to B`` prints
what breaks from one release to another. Changes are typed (``ChangeKind``); one model
(``_model``) feeds the Markdown, HTML and text renderers.
"""

from __future__ import annotations
