"""A full inventory of every Pallas module: every public name, its state and its shape.

Nothing here is hand-picked: ``dir()`` of each module, plus every name its deprecation table
knows, plus the names the API-facts table watches (recorded as ``absent`` when missing).
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import functools
import importlib
import inspect
import pkgutil
import warnings
from types import ModuleType
from typing import Any

from pallas_compat import deprecation_table
from pallas_compat.facts import INVENTORIED_MODULES, PL, watched_names
from probes._observe import error_record, py_repr
from probes._registry import Probe


#: Always inventoried, even on releases where they do not exist (then: does not import).
def discover_modules() -> list[str]:
    """The base list plus any other public submodule the installed Pallas ships."""
    found = set(INVENTORIED_MODULES)
    try:
        package = importlib.import_module(PL)
        found.update(
            f"{PL}.{m.name}"
            for m in pkgutil.iter_modules(package.__path__)
            if not m.name.startswith("_")
        )
    except Exception:  # the inventory of PL itself records why
        pass
    return sorted(found)


def signature(obj: Any) -> list[dict[str, str]] | None:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    params = []
    for param in sig.parameters.values():
        entry = {"name": param.name, "kind": param.kind.name}
        if param.default is not inspect.Parameter.empty:
            entry["default"] = py_repr(param.default)
        params.append(entry)
    return params


def dataclass_fields(cls: type) -> list[dict[str, str]]:
    fields = []
    for f in dataclasses.fields(cls):
        entry = {"name": f.name}
        if f.default is not dataclasses.MISSING:
            entry["default"] = py_repr(f.default)
        elif f.default_factory is not dataclasses.MISSING:
            entry["default_factory"] = getattr(
                f.default_factory, "__qualname__", py_repr(f.default_factory)
            )
        if not f.init:
            entry["init"] = "false"
        fields.append(entry)
    return fields


_SIMPLE = (str, int, float, bool, type(None), tuple, enum.Enum)


def describe(obj: Any) -> dict[str, Any]:
    """Kind plus what a migration needs: signature, dataclass fields or enum members."""
    if isinstance(obj, ModuleType):
        return {"kind": "module", "module": obj.__name__}
    if isinstance(obj, type):
        record: dict[str, Any] = {"defined_in": getattr(obj, "__module__", None)}
        if issubclass(obj, enum.Enum):
            record["kind"] = "enum"
            record["members"] = {m.name: py_repr(m.value) for m in obj}
        elif dataclasses.is_dataclass(obj):
            record["kind"] = "dataclass"
            record["fields"] = dataclass_fields(obj)
        else:
            record["kind"] = "class"
            record["signature"] = signature(obj)
        record["bases"] = [f"{b.__module__}.{b.__qualname__}" for b in obj.__bases__]
        return record
    if callable(obj):
        return {
            "kind": "function",
            "signature": signature(obj),
            "defined_in": getattr(obj, "__module__", None),
        }
    record = {"kind": "constant", "type": type(obj).__qualname__}
    if isinstance(obj, _SIMPLE):
        record["repr"] = py_repr(obj)
    return record


def name_record(module: ModuleType, name: str, public: set[str]) -> dict[str, Any]:
    """Read deprecation state from the module's table, never from warnings (once per process)."""
    entry = deprecation_table(module).get(name)
    if entry is not None:
        message, obj = entry
        if obj is None:
            try:
                getattr(module, name)
                return {"status": "removed", "message": message, "note": "access did not raise"}
            except AttributeError as exc:
                return {"status": "removed", "message": error_record(exc)["message"]}
        return {"status": "deprecated", "message": message, **describe(obj)}
    if name not in public:
        return {"status": "absent"}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            obj = getattr(module, name)
    except AttributeError:
        return {"status": "absent"}
    except Exception as exc:
        return {"status": "present", "kind": "broken", "error": error_record(exc)}
    return {"status": "present", **describe(obj)}


def module_deprecation(module: ModuleType) -> str | None:
    """The message a module warns with when imported (``pallas.gpu`` from 0.4.35 on), read
    from its top-level ``warn(...)`` calls: a warning fires once per process, so whether this
    worker sees it depends on who imported the module first; the source does not."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError, SyntaxError):
        return None
    for statement in tree.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
            continue
        if call.func.attr != "warn":
            continue
        texts = [
            a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
        ]
        message = " ".join(t for t in texts if " " in t)  # not the warning's id
        if message:
            return " ".join(message.split())
    return None


def inventory(module_name: str) -> dict[str, Any]:
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        return {"imports": False, "error": error_record(exc)}
    public = {n for n in dir(module) if not n.startswith("_")}
    names = public | set(deprecation_table(module)) | watched_names().get(module_name, set())
    records = {name: name_record(module, name, public) for name in sorted(names)}
    record: dict[str, Any] = {
        "imports": True,
        "has_deprecation_table": "_deprecations" in vars(module),
    }
    deprecated = module_deprecation(module)
    if deprecated is not None:  # every name of a deprecated module is deprecated with it
        record["deprecated"] = deprecated
        for entry in records.values():
            if entry["status"] == "present":
                entry.update(status="deprecated", message=deprecated)
    return {**record, "names": records}


def probes() -> list[Probe]:
    return [
        Probe(f"modules.{name}", functools.partial(inventory, name)) for name in discover_modules()
    ]
