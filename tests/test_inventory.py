from __future__ import annotations

import dataclasses
import enum
import types
import warnings

from probes.inventory import describe, discover_modules, inventory, name_record


@dataclasses.dataclass(frozen=True)
class Params:
    num_warps: int = 4
    flags: dict = dataclasses.field(default_factory=dict)


class Color(enum.Enum):
    RED = "red"


def kernel(x_ref, o_ref, *, interpret=False):  # type: ignore[no-untyped-def]
    pass


def test_describe_kinds() -> None:
    assert describe(Params)["kind"] == "dataclass"
    assert describe(Params)["fields"] == [
        {"name": "num_warps", "default": "4"},
        {"name": "flags", "default_factory": "dict"},
    ]
    assert describe(Color) | {"defined_in": None} == {
        "kind": "enum",
        "members": {"RED": "'red'"},
        "defined_in": None,
        "bases": ["enum.Enum"],
    }
    assert describe(kernel)["signature"][-1] == {
        "name": "interpret",
        "kind": "KEYWORD_ONLY",
        "default": "False",
    }
    assert describe(types)["kind"] == "module"
    assert describe(3) == {"kind": "constant", "type": "int", "repr": "3"}


def _module_with_table() -> types.ModuleType:
    module = types.ModuleType("m")
    module.Present = Params  # type: ignore[attr-defined]
    module._deprecations = {
        "Old": ("Old is deprecated, use Present", Params),  # type: ignore[attr-defined]
        "Gone": ("Gone was removed, use Present", None),
    }

    def __getattr__(name: str) -> object:
        if name == "Gone":
            raise AttributeError("Gone was removed, use Present")
        raise AttributeError(name)

    module.__getattr__ = __getattr__  # type: ignore[attr-defined]
    return module


def test_deprecation_state_comes_from_the_table_without_warnings() -> None:
    module = _module_with_table()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert name_record(module, "Old", {"Present"})["status"] == "deprecated"
        gone = name_record(module, "Gone", {"Present"})
    assert gone == {"status": "removed", "message": "Gone was removed, use Present"}
    assert name_record(module, "Present", {"Present"})["status"] == "present"
    assert name_record(module, "Never", {"Present"}) == {"status": "absent"}


def test_a_module_that_does_not_import_is_recorded() -> None:
    record = inventory("jax.experimental.pallas.no_such_backend")
    assert record["imports"] is False and record["error"]["type"] == "ModuleNotFoundError"


def test_discovery_always_includes_the_known_backends() -> None:
    found = discover_modules()
    assert "jax.experimental.pallas" in found and "jax.experimental.pallas.tpu" in found
    assert found == sorted(found)
