"""What a rule's hooks receive: the walk of one file, typed, so that a reader (and mypy) can
follow the target release from ``migrate`` into a rule.

``doctor``'s dispatcher (``lint._finder.UseFinder``, over ``ast``) gives the finders
(``find_*``) a ``FindContext``; ``migrate``'s (``lint._migrate.MigratorBase``, a libcst
visitor) gives the rewrites (``rewrite_*``) a ``RewriteContext``. The rules see only what is
written here, and never import the dispatchers (they sit a floor above).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    import ast

    import libcst as cst
    from libcst.metadata import BaseMetadataProvider

    from pallas_compat.facts._registry import Drift, Registry
    from pallas_compat.facts._table import Feature, Location
    from pallas_compat.rules._argument_order import Bindings
    from pallas_compat.rules._expansions import Expansions
    from pallas_compat.rules._numbers import FlatReading
    from pallas_compat.rules._read import Bindings as ReadBindings
    from pallas_compat.rules._rule import Rule
    from pallas_compat.rules._scopes import Scopes

__all__ = ["FindContext", "ReadsMetadata", "RewriteContext"]

T = TypeVar("T")


class ReadsMetadata(Protocol):
    """A libcst visitor's metadata (qualified names, positions), as the helpers read it."""

    def get_metadata(
        self, key: type[BaseMetadataProvider[T]], node: cst.CSTNode, default: T = ...
    ) -> T: ...


class Walk(ReadsMetadata, Protocol):
    """What both walks give: the table's views, the module's bindings and expansions, a
    rule's own state, and which rule owns a keyword (for the catch-all keyword rule)."""

    #: The table's derived views (drifted names, moved members) the rules look up.
    table: Registry
    #: What a rule keeps while the walk goes on, under its code.
    state: dict[str, Any]

    @property
    def expansions(self) -> Expansions | None: ...

    def keyword_owner(self, callable_key: str, name: str) -> Rule | None: ...


class FindContext(Protocol):
    """``doctor``'s walk, over the standard library's ``ast``: the file's path, the table's
    views, a rule's own state, qualified names (star imports and module aliases followed),
    where a node starts, and the module's bindings read once."""

    path: str
    #: The table's derived views (drifted names, moved members) the rules look up.
    table: Registry
    #: What a rule keeps while the walk goes on, under its code.
    state: dict[str, Any]
    scopes: Scopes
    #: Answers kept for the walk of one file, under a helper's or rule's name.
    memo: dict[str, dict[int, Any]]

    @property
    def expansions(self) -> Expansions | None: ...

    def keyword_owner(self, callable_key: str, name: str) -> Rule | None: ...

    def qualified(self, node: ast.AST) -> set[str]: ...

    def position(self, node: ast.AST) -> tuple[int, int]: ...

    @property
    def bindings(self) -> ReadBindings: ...


class RewriteContext(Walk, Protocol):
    """``migrate``'s walk: the target, asked through its answers, and the edits a rule makes
    beside its rewrite (imports, notes)."""

    @property
    def target(self) -> str: ...

    def works_in(self, spans: Sequence[Sequence[str]]) -> bool: ...

    def works(self, loc: Location) -> bool: ...

    def form_works(self, form: str) -> bool: ...

    def once(self, key: str, compute: Callable[[], T]) -> T: ...

    def bindings(self) -> Bindings: ...

    def alias_for(self, module: str) -> str: ...

    def replacement(self, drift: Drift | Feature) -> Location | None: ...

    def replacement_params(self, backend: str) -> Location | None: ...

    def mark(self, text: str) -> None: ...

    def unmark(self, prefix: str) -> None: ...

    def code(self, node: cst.CSTNode) -> str: ...

    def source_reading(self) -> FlatReading: ...
