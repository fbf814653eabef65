"""The default probe groups, slowest first so that parallel runs finish together.

Modules in one group share a worker process, and so one JAX import and one compiler warm-up,
which cost several seconds each; isolation does not depend on groups (every probe is isolated).
"""

from __future__ import annotations

from probes._runner import Group

GROUPS: tuple[Group, ...] = (
    Group("transforms", ("probes.transforms",)),
    Group("simulator", ("probes.simulator", "probes.lowering", "probes.semantics")),
    Group("interpret", ("probes.interpret",)),
    Group(
        "surface",
        (
            "probes.environment",
            "probes.inventory",
            "probes.features",
            "probes.compiler_params",
            "probes.autodiff",
            "probes.hardware",
        ),
    ),
)

GROUPS_BY_NAME = {group.name: group for group in GROUPS}
