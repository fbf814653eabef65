"""pallas_compat/matrix/_page.py: the matrix as a page; every string escaped, each failing
cell linked to its failure."""

from __future__ import annotations

from pathlib import Path

from pallas_compat.matrix._page import page
from pallas_compat.matrix._results import Failure, Run, Status


def test_cells_link_to_failures_and_nothing_is_left_unescaped() -> None:
    runs = [
        Run(
            "0.6.2",
            "native",
            Status.FAILED,
            passed=1,
            failed=1,
            failures=[Failure("t.py::test_<a>", "TypeError: <bad> & worse")],
            outcomes={"t.py::test_<a>": "failed", "t.py::test_b": "passed"},
        ),
        Run(
            "0.6.2",
            "patch",
            Status.PASSED,
            passed=2,
            outcomes={"t.py::test_<a>": "passed", "t.py::test_b": "passed"},
        ),
        Run("0.4.30", "native", Status.NOT_INSTALLABLE, reason="needs jax>=0.5 <sic>"),
    ]
    html = page(runs, ["pytest", "-k", "<x>"], Path("/p/proj"), None)
    assert "<a>" not in html and "<bad>" not in html and "<sic>" not in html and "<x>" not in html
    assert 'href="#run-0-6-2-native"' in html and 'id="run-0-6-2-native"' in html
    assert "TypeError: &lt;bad&gt; &amp; worse" in html and "needs jax&gt;=0.5 &lt;sic&gt;" in html
    assert html.index("<th>native</th>") < html.index("<th>patch</th>")
    assert "1 of 3 runs passed" in html
    assert "Tests that failed somewhere (1 of 2)" in html
    assert '<th class="test">t.py::test_&lt;a&gt;</th>' in html and "t.py::test_b</th>" not in html
