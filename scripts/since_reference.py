"""What doctor learnt since the reference revision (the last whose doctor read with libcst), so
that comparisons with it leave out only what it could not know.

``tests/test_finder_golden.py`` and ``benchmarks/doctor_speed.py`` read this.
"""

from __future__ import annotations

#: The reference revision.
REFERENCE = "0543206"

#: Rules written after the reference revision: it could not find their uses.
LATER_RULES = frozenset({"PAL109", "PAL212", "PAL213"})

#: (rule, API) of the reference's rules that learnt a use since, from a fact added on purpose.
LATER_FACTS = {
    ("PAL211", "plgpu.load(idx=...)"): "JAX 0.12.0 moved plgpu.load's idx into the ref "
    "(KEYWORD_MOVES), and the rule reads the argument given by position too",
    **dict.fromkeys(
        [
            ("PAL207", f"plgpu.CompilerParams({field}=...)")
            for field in ("lowering_semantics", "profile_dir", "profile_space")
        ],
        "a params class's keyword is judged over every spelling of the class (the rename "
        "serves the rest): GPUCompilerParams, before 0.6.1, lacked these in some releases",
    ),
}

#: APIs the reference reported under an older rule, now reported by a later one.
SUPERSEDED = {
    "plgpu.GPUMesh": "PAL109 (gpu-mesh) reports GPUMesh and its moved options, which the "
    "reference reported as a removed name (PAL102) and unsupported keywords (PAL207)",
}


def known_to_reference(code: str, api: str) -> bool:
    """Whether the reference revision could have reported this use as it is reported now."""
    if code in LATER_RULES or (code, api) in LATER_FACTS:
        return False
    return not any(api == name or api.startswith(name + "(") for name in SUPERSEDED)
