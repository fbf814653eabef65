"""What a rule's hooks receive: ``doctor``'s reading of one file (``FindContext``) and
``migrate``'s fixing of it for one target (``FixContext``), typed, so that a reader (and
mypy) can follow the target release from ``migrate`` into a rule.

A finder (``find_*``) reads the file once, over ``ast``, and decides: it returns each ``Use``
doctor reports, and where ``migrate`` can act, a ``Finding`` carrying the use and its fix. A
fix is a function of the ``FixContext``: it asks the target its questions and turns what the
finder read into text edits, never reading the source again to decide. The rules see only
what is written here, and never import the dispatchers (a floor above).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pallas_compat.facts._registry import Drift, Registry
    from pallas_compat.facts._table import Feature, Location
    from pallas_compat.rules._bindings import Bindings
    from pallas_compat.rules._edits import Edits, Text
    from pallas_compat.rules._expansions import Expansions
    from pallas_compat.rules._rule import Rule
    from pallas_compat.rules._scopes import Scopes
    from pallas_compat.rules._use import Use

__all__ = ["FindContext", "Finding", "FixContext", "Fixer"]


class FindContext(Protocol):
    """``doctor``'s walk, over the standard library's ``ast``: the file's path and text, the
    table's views, a rule's own state, qualified names (star imports and module aliases
    followed), where a node starts, and the module's bindings read once."""

    path: str
    #: The table's derived views (drifted names, moved members) the rules look up.
    table: Registry
    #: What a rule keeps while the walk goes on, under its code.
    state: dict[str, Any]
    scopes: Scopes
    #: Answers kept for the walk of one file, under a helper's or rule's name.
    memo: dict[str, dict[int, Any]]
    module: ast.Module

    @property
    def expansions(self) -> Expansions | None: ...

    @property
    def text(self) -> Text: ...

    def keyword_owner(self, callable_key: str, name: str) -> Rule | None: ...

    def qualified(self, node: ast.AST) -> set[str]: ...

    def position(self, node: ast.AST) -> tuple[int, int]: ...

    def import_of(self, alias: ast.AST) -> ast.Import | ast.ImportFrom | None: ...

    @property
    def bindings(self) -> Bindings: ...


class FixContext(Protocol):
    """``migrate``'s fixing of one file for one target: the target, asked through its
    answers; the file's text and the edits made to it (``edits``); the imports and the notes a
    fix adds; the finder's reading, for a name a fix must spell."""

    @property
    def table(self) -> Registry:
        """The table's derived views (drifted names, moved members) the rules look up."""

    @property
    def edits(self) -> Edits: ...

    @property
    def reading(self) -> FindContext:
        """doctor's reading of the file: qualified names and bindings, read once."""

    @property
    def target(self) -> str: ...

    def works_in(self, spans: Sequence[Sequence[str]]) -> bool: ...

    def since(self, release: str) -> bool: ...

    def works(self, loc: Location) -> bool: ...

    def present(self, loc: Location) -> bool: ...

    def form_works(self, form: str) -> bool: ...

    def replacement(self, drift: Drift | Feature) -> Location | None: ...

    def replacement_params(self, backend: str) -> Location | None: ...

    def alias_for(self, module: str) -> str: ...

    def keyword_owner(self, callable_key: str, name: str) -> Rule | None: ...

    def mark(self, text: str) -> None: ...

    def unmark(self, prefix: str) -> None: ...

    def current(self, node: ast.AST, *, leading: bool = False) -> str: ...

    def replace(self, node: ast.AST, text: str, *, leading: bool = False) -> None: ...


#: A fix: makes its edits (or notes) for the target. True where it rewrote the whole node
#: into another (a call made another call): no later rule rewrites that node.
Fixer = Callable[[FixContext], "bool | None"]


@dataclass(frozen=True)
class Finding:
    """A rule's decision at one place: the use doctor reports (None for a fix of a use another
    rule reports), the node its fix rewrites (fixes run from the innermost node out, so that
    an outer rewrite carries the inner ones), and the fix."""

    use: Use | None
    node: ast.AST
    fix: Fixer
    #: The rule's code, stamped by the dispatcher.
    code: str = ""
