"""Where the documentation site is, so that doctor's HTML and SARIF output link each use to
its rule's page (``rules/PAL301.html``).

``--docs SITE`` (a built site's folder, which must hold the rule pages, or a URL), else the
site ``nox -s docs`` built in the pallas-compat checkout doctor runs from; installed from a
wheel, without either, there is nothing to link to (``pallas-compat rule CODE`` prints the
same page, and SARIF carries it whole).
"""

from __future__ import annotations

from pathlib import Path

from pallas_compat._usage import UsageError

__all__ = ["CHECKOUT_SITE", "docs_url", "rule_url"]

#: The site a checkout of pallas-compat builds (``nox -s docs``).
CHECKOUT_SITE = Path(__file__).resolve().parents[2] / "site"


def docs_url(given: str | None) -> str | None:
    """The site's address for links (no trailing slash), or None when there is none."""
    if given is None:
        return CHECKOUT_SITE.as_uri() if (CHECKOUT_SITE / "rules").is_dir() else None
    if "://" in given:
        return given.rstrip("/")
    path = Path(given).expanduser()
    if not (path / "rules").is_dir():
        raise UsageError(
            f"--docs {given}: not a built pallas-compat docs site (no rules/ in it; "
            "`nox -s docs` builds one into site/), nor a URL"
        )
    return path.resolve().as_uri()


def rule_url(site: str, code: str) -> str:
    """The address of a rule's page in the site."""
    return f"{site}/rules/{code}.html"
