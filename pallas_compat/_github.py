"""``doctor --format github``: GitHub Actions workflow commands, one per use that breaks
(``::error``) or warns or cannot be told (``::warning``), so that each shows on its line of
the pull request's diff."""

from __future__ import annotations

from typing import Any


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


LEVELS = {"breaks": "error", "works with a warning": "warning", "cannot tell": "warning"}


def annotations(report: dict[str, Any]) -> list[str]:
    """The workflow commands for ``report`` (doctor's JSON report)."""
    lines = []
    for use in report["uses"]:
        level = LEVELS.get(use["state"])
        if level is None:
            continue
        title = escape_property(f"{use['code']} {use['rule']}")
        where = (
            f"file={escape_property(use['path'])},line={use['line']},col={use['column']},"
            f"title={title}"
        )
        message = f"{use['api']}: {use['verdict']}; write: {use['write_instead']}"
        lines.append(f"::{level} {where}::{escape_data(message)}")
    return lines
