"""Every fact the chapter asserts for JAX 0.12.0.1, read from the snapshot (not re-derived).

The chapter is the Pallas chapter written against JAX 0.12.0.1 (not part of this repository).
Expected values are its own asserts and printed outputs, and each test quotes the claim it
holds the snapshot to, with its section (``claim``), word for word.
"""

from __future__ import annotations

import re
import sys
from typing import Any

import pytest

pytestmark = pytest.mark.chapter


def claim(section: str, *quotes: str) -> pytest.MarkDecorator:
    """The chapter's section and its words (as printed, or as its code asserts them) that a
    test holds the snapshot to."""
    return pytest.mark.chapter(section=section, claims=quotes)


PL = "jax.experimental.pallas"
TPU = f"{PL}.tpu"


def names(snapshot: dict[str, Any], module: str) -> dict[str, Any]:
    return snapshot["modules"][module]["names"]


def raised(record: dict[str, Any]) -> dict[str, str]:
    assert record["outcome"] == "raised", record
    return record["error"]


def fields(snapshot: dict[str, Any], module: str, name: str) -> list[str]:
    return [f["name"] for f in names(snapshot, module)[name]["fields"]]


@claim("§0", "Instead of writing code from memory, let's confirm things one at a time")
def test_probe_run_is_clean(snapshot: dict[str, Any]) -> None:
    assert snapshot["summary"]["failed"] == {} and snapshot["summary"]["group_failures"] == {}


# §0 probe 1: import paths and key names
@claim(
    "§0 Probe 1",
    "Import paths: jax.experimental.pallas (usual alias pl), plus the backend submodules tpu, triton and mosaic_gpu",
)
@pytest.mark.parametrize("module", [PL, TPU, f"{PL}.triton", f"{PL}.mosaic_gpu"])
def test_import_paths(snapshot: dict[str, Any], module: str) -> None:
    assert snapshot["modules"][module]["imports"] is True


@claim(
    "§0 Probe 1",
    'must_have = ["pallas_call", "BlockSpec", "GridSpec", "program_id", "num_programs", "when", "cdiv", "ds", "CompilerParams", "CostEstimate", "debug_print", "Squeezed"]',
)
@pytest.mark.parametrize(
    "name",
    [
        "pallas_call",
        "BlockSpec",
        "GridSpec",
        "program_id",
        "num_programs",
        "when",
        "cdiv",
        "ds",
        "CompilerParams",
        "CostEstimate",
        "debug_print",
        "Squeezed",
    ],
)
def test_must_have_names(snapshot: dict[str, Any], name: str) -> None:
    assert names(snapshot, PL)[name]["status"] == "present"


@claim(
    "§0 Probe 1",
    'assert hasattr(pltpu, "InterpretParams") and hasattr(pltpu, "CompilerParams") and hasattr(pltpu, "VMEM")',
)
@pytest.mark.parametrize(
    ("module", "name"),
    [
        (TPU, "InterpretParams"),
        (TPU, "CompilerParams"),
        (TPU, "VMEM"),
        (f"{PL}.mosaic_gpu", "InterpretGPUParams"),
        (f"{PL}.triton", "CompilerParams"),
    ],
)
def test_backend_names(snapshot: dict[str, Any], module: str, name: str) -> None:
    assert names(snapshot, module)[name]["status"] == "present"


@claim(
    "§0 Probe 1",
    "Names that no longer exist: {'pl.load': False, 'pl.store': False, 'pl.InterpretParams': False, 'pltpu.TPUCompilerParams': False}",
)
@pytest.mark.parametrize(
    ("module", "name"),
    [(PL, "load"), (PL, "store"), (PL, "InterpretParams"), (TPU, "TPUCompilerParams")],
)
def test_names_from_older_tutorials_are_gone(
    snapshot: dict[str, Any], module: str, name: str
) -> None:
    assert names(snapshot, module)[name]["status"] in {"absent", "removed"}


@claim(
    "§0 Probe 1",
    "pallas_call parameters: ['kernel', 'out_shape', 'grid_spec', 'grid', 'in_specs', 'out_specs', 'scratch_shapes', 'input_output_aliases', 'debug', 'interpret', 'name', 'compiler_params', 'cost_estimate', 'metadata']",
    "interpret default: False",
)
def test_pallas_call_signature(snapshot: dict[str, Any]) -> None:
    params = names(snapshot, PL)["pallas_call"]["signature"]
    assert [p["name"] for p in params] == [
        "kernel",
        "out_shape",
        "grid_spec",
        "grid",
        "in_specs",
        "out_specs",
        "scratch_shapes",
        "input_output_aliases",
        "debug",
        "interpret",
        "name",
        "compiler_params",
        "cost_estimate",
        "metadata",
    ]
    assert next(p for p in params if p["name"] == "interpret")["default"] == "False"


# §0 probe 2: what interpret= accepts
@claim(
    "§0 Probe 2",
    "in 0.12.0.1 the interpret argument takes three kinds of values, and all of them run on CPU",
)
@pytest.mark.parametrize("form", ["interpret_true", "interpret_tpu_params", "interpret_gpu_params"])
def test_interpret_forms_all_run_on_cpu(snapshot: dict[str, Any], form: str) -> None:
    record = snapshot["behaviours"][form]
    assert record["outcome"] == "returned"
    assert record["value"] == {"output": [10.0 + i for i in range(8)], "matches_float64": True}


@claim("§0 Probe 2", "ValueError : Only interpret mode is supported on CPU backend.")
def test_cpu_without_interpret_fails(snapshot: dict[str, Any]) -> None:
    err = raised(snapshot["behaviours"]["cpu_without_interpret"])
    assert (
        err["type"] == "ValueError" and "Only interpret mode is supported on CPU" in err["message"]
    )


@claim("§0 Probe 2", "AttributeError : module 'jax.experimental.pallas' has no attribute 'store'")
def test_old_load_store_kernel_fails(snapshot: dict[str, Any]) -> None:
    err = raised(snapshot["behaviours"]["old_load_store_kernel"])
    assert err == {
        "type": "AttributeError",
        "message": "module 'jax.experimental.pallas' has no attribute 'store'",
    }


@claim("§0 Probe 2", "for a dynamic slice use pl.ds(start, size)")
def test_ds_halves(snapshot: dict[str, Any]) -> None:
    assert snapshot["behaviours"]["ds_halves"]["value"] == [10.0 + i for i in range(8)]


# §1: the primitive, interpret-mode HLO, TPU cross-lowering
@claim(
    "§1.3",
    "Interpret mode: the compiled HLO has only ordinary ops and a while loop, no custom-call",
)
def test_jaxpr_and_hlo(snapshot: dict[str, Any]) -> None:
    record = snapshot["behaviours"]["jaxpr_structure"]
    assert record["outer_primitives"] == ["pallas_call"]
    assert all("Ref" in aval for aval in record["kernel_invar_avals"])
    assert record["interpret_hlo_custom_calls"] == 0


@claim("§1.3", "TPU lowering result: %0 = stablehlo.custom_call @tpu_custom_call(%arg0, %arg1)")
def test_tpu_cross_lowering_emits_the_custom_call(snapshot: dict[str, Any]) -> None:
    record = snapshot["behaviours"]["lowering_api"]["trace().lower(lowering_platforms=)"]
    assert record == {"outcome": "returned", "value": {"tpu_custom_call": True}}


@claim("§1.3", "GPU cross-lowering fails on this machine with No supported GPU devices found")
def test_gpu_cross_lowering_needs_a_gpu(snapshot: dict[str, Any]) -> None:
    assert (
        "No supported GPU devices found"
        in raised(snapshot["behaviours"]["gpu_cross_lowering"]["cuda"])["message"]
    )


# §2: kernel conventions
@claim(
    "§2.1",
    "Wrong: the kernel returns its result (like an ordinary function) instead of writing it into the output Ref",
)
def test_kernel_must_return_none(snapshot: dict[str, Any]) -> None:
    err = raised(snapshot["behaviours"]["kernel_returns_value"])
    assert (
        err["type"] == "ValueError"
        and "should return None. It returns a PyTree: PyTreeDef(*)" in err["message"]
    )


@claim(
    "§2.1",
    "Correct: always pass arrays in as inputs (Python scalars may be captured by closure; they're treated as compile-time constants)",
)
def test_kernel_must_not_capture_arrays(snapshot: dict[str, Any]) -> None:
    record = snapshot["behaviours"]["kernel_captures_constant"]
    err = raised(record["array_constant"])
    assert (
        err["type"] == "ValueError"
        and "captures constants [f32[6]]. You should pass them as inputs." in err["message"]
    )
    assert record["python_scalar_and_weight_input_correct"] is True


@claim(
    "§2.2",
    'Wrong: index_map returns an "element offset" instead of a "block index" — no error, silently wrong results',
)
def test_element_offset_index_map_is_silently_wrong(snapshot: dict[str, Any]) -> None:
    record = snapshot["behaviours"]["index_map_element_offsets"]
    assert record["wrong_elements"] == 32 and record["outputs_16_to_19"] == [
        96.0,
        98.0,
        100.0,
        102.0,
    ]
    assert record["block_indices_correct"] is True


# §3: the interpreters
@claim("§3.1", "The callback's actual signature is (token, grid_point, core_id) -> token")
def test_grid_visit_order_and_recorder_arity(snapshot: dict[str, Any]) -> None:
    record = snapshot["behaviours"]["grid_point_recorder"]
    assert record["three_args"]["visit_order"] == [[i, j] for i in range(2) for j in range(3)]
    assert record["three_args"]["value"] is True
    assert record["two_args"]["outcome"] == "raised"


@claim("§3.2", 'Out-of-bounds blocks: you read "garbage", which is NaN in interpret mode')
def test_padding_is_nan_and_elementwise_is_unaffected(snapshot: dict[str, Any]) -> None:
    record = snapshot["behaviours"]["padding_read_past_end"]
    assert record["last_block_read"]["value"] == {
        "valid_tail": [97.0, 98.0, 99.0, 100.0],
        "padding": "nan",
    }
    assert record["elementwise_on_ragged_length"]["value"] is True


@claim(
    "§3.4",
    'uninitialized_memory="nan" (default) / "zero"',
    'out_of_bounds_reads="raise" (default)',
    "detect_races=True",
    "num_cores_or_threads",
    "you call pltpu.reset_tpu_interpret_mode_state() before using it again in the same process",
)
def test_simulator_parameters(snapshot: dict[str, Any]) -> None:
    params = {
        f["name"]: f.get("default") for f in names(snapshot, TPU)["InterpretParams"]["fields"]
    }
    assert params["uninitialized_memory"] == "'nan'" and params["out_of_bounds_reads"] == "'raise'"
    assert {"detect_races", "num_cores_or_threads", "grid_point_recorder"} <= set(params)
    assert names(snapshot, TPU)["reset_tpu_interpret_mode_state"]["status"] == "present"


@claim(
    "§3.4",
    'pl.debug_print("pid={}", pl.program_id(0)). It works in interpret mode (tested: one line per program)',
)
def test_debug_print_prints_once_per_program(snapshot: dict[str, Any]) -> None:
    assert snapshot["behaviours"]["debug_print"]["lines"] == ["pid=0", "pid=1", "pid=2"]


# §4: advanced kernels
@claim(
    "§4.1",
    "Wrong: testing program_id with a Python if — it's a tracer at tracing time and can't be converted to bool",
)
def test_python_if_on_program_id(snapshot: dict[str, Any]) -> None:
    err = raised(snapshot["behaviours"]["python_if_on_program_id"])
    assert err["type"] == "jax.errors.TracerBoolConversionError"
    assert err["first_line"] == "Attempted boolean conversion of traced array with shape bool[]."


@claim("§4.1", "Wrong: forgetting to zero at k == 0 and just doing +=")
def test_missing_accumulator_init(snapshot: dict[str, Any]) -> None:
    assert snapshot["behaviours"]["accumulator_without_init_interpret"]["nan_fraction"] == 1.0
    record = snapshot["behaviours"]["uninitialized_memory"]
    assert record["no_init_nan"]["value"]["nan_fraction"] == 1.0
    assert record["no_init_zero"]["value"] == {"nan_fraction": 0.0, "max_err_above_1": True}
    assert (
        record["with_init_nan"]["value"]["within"] and record["with_init_zero"]["value"]["within"]
    )


@claim(
    "§4.1",
    "Request a float32 on-chip scratch area with scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)]",
)
def test_vmem_scratch_works_in_interpret_mode(snapshot: dict[str, Any]) -> None:
    value = snapshot["behaviours"]["vmem_scratch_in_interpret"]["value"]
    assert value == {"dtype": "bfloat16", "max_rel_err_below_2^-7": True}


@claim(
    "§4.4", 'compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel", "arbitrary"))'
)
def test_dimension_semantics_accepted_in_interpret_mode(snapshot: dict[str, Any]) -> None:
    record = snapshot["behaviours"]["dimension_semantics_in_interpret"]
    assert record["compiler_params"] == "CompilerParams" and record["value"]["within"] is True


@claim(
    "§4.4",
    'Wrong: the reduction dim is the first grid dim — the same output block is visited "non-consecutively"',
)
def test_revisited_block(snapshot: dict[str, Any]) -> None:
    record = snapshot["behaviours"]["revisited_block_detection"]
    assert record["interpret_true_wrong_order"]["within"] is True  # right by luck
    err = raised(record["simulator_wrong_order"])
    assert err["revisited_line"].startswith(
        "RuntimeError: Revisited block (slice(0, 32, 1),) of output 0 in iteration (1, 0)."
    )
    assert record["simulator_reduce_last"]["value"]["within"] is True
    assert snapshot["behaviours"]["reset_after_raise"] == {
        "first_raised": True,
        "after_reset": {
            "outcome": "returned",
            "value": {"within": True, "atol": 0.0001, "rtol": 1e-05},
        },
    }


# §5: transformations
@claim("§5.1", "block sizes must be Python integers, not tracers")
def test_jit_needs_static_block_sizes(snapshot: dict[str, Any]) -> None:
    record = snapshot["behaviours"]["jit_block_sizes"]
    err = raised(record["traced"])
    assert err["type"] == "ValueError" and err["first_line"].startswith(
        "Unsupported block dimension type"
    )
    assert (
        record["static_argnames"]["value"]["within"]
        and record["functools_partial"]["value"]["within"]
    )


@claim(
    "§5.2",
    "JAX's batching rule adds a dimension at the front of the grid and inserts a squeezed dimension (Squeezed) at the front of each BlockSpec's block shape",
)
def test_vmap_adds_a_grid_dimension(snapshot: dict[str, Any]) -> None:
    record = snapshot["behaviours"]["vmap_grid_and_block"]
    assert (
        record["primitive"] == "pallas_call" and record["grid"] == [3, 4, 4] and record["correct"]
    )
    assert record["block_shape"] == "(Squeezed(), Blocked(block_size=64), Blocked(block_size=128))"
    assert snapshot["behaviours"]["vmap_in_axes_none"]["within"] is True


@claim(
    "§5.3",
    'Reverse mode already fails at the "linearize" step (before it ever reaches transposition)',
)
def test_reverse_mode_fails_at_linearize(snapshot: dict[str, Any]) -> None:
    record = snapshot["behaviours"]["grad_direct"]
    for transform in ("grad", "linearize"):
        err = raised(record[transform])
        assert err["type"] == "ValueError"
        assert err["first_line"].startswith(
            "Linearization failed to produce known values for all output primals"
        )


@claim(
    "§5 summary",
    "The primitive has no partial eval or transpose rule, so it fails at the linearize step",
)
def test_autodiff_rules(snapshot: dict[str, Any]) -> None:
    rules = snapshot["autodiff"]["rules"]
    assert rules["has_jvp"] and not rules["has_partial_eval"] and not rules["has_transpose"]
    assert snapshot["autodiff"]["grad_check"]["grad_works"] is False


@claim(
    "§5.3",
    "tangents for only some inputs (ValueError: safe_zip() ...); a kernel that uses program_id",
)
def test_jvp_rule_is_fragile(snapshot: dict[str, Any]) -> None:
    record = snapshot["behaviours"]["jvp_direct"]
    assert record["simple"]["value"]["within"] is True
    assert raised(record["partial_tangents"])["type"] == "ValueError"
    assert "safe_zip()" in record["partial_tangents"]["error"]["message"]
    assert raised(record["uses_program_id"])["type"] == "AssertionError"


@claim("§5.3", "Correct: custom_vjp, with both forward and backward as Pallas kernels")
def test_custom_vjp_with_a_pallas_backward(snapshot: dict[str, Any]) -> None:
    record = snapshot["behaviours"]["custom_vjp"]
    for key in ("grad_vs_float64", "jit_grad_vs_float64", "vmap_grad"):
        assert record[key]["value"]["within"] is True, key
    assert record["check_grads_float32"]["outcome"] == "returned"
    assert record["check_grads_float64"] == {"outcome": "returned", "value": "float64"}
    err = raised(record["jvp"])
    assert (
        err["type"] == "TypeError"
        and "can't apply forward-mode autodiff (jvp) to a custom_vjp function." in err["message"]
    )


# §6: TPU rules, compiler params, hardware table
@claim(
    "§6.1",
    "the last two dimensions of a block shape must be divisible by 8 and 128 respectively, or equal the full size of the corresponding array dimension",
)
@pytest.mark.parametrize(
    ("block", "lowers"),
    [
        ("8x128", True),
        ("64x128", True),
        ("256x512", True),
        ("4x128", False),
        ("64x100", False),
        ("8x64", False),
        ("full_dims_4x100_of_4x100", True),
    ],
)
def test_tpu_block_shape_rule(snapshot: dict[str, Any], block: str, lowers: bool) -> None:
    record = snapshot["behaviours"]["tpu_block_shape_rule"][block]
    assert record["lowers"] is lowers
    if not lowers:
        assert record["first_sentence"].startswith(
            "The Pallas TPU lowering currently requires that the last two dimensions of your block shape are"
        )


@claim(
    "§6.1",
    "On this machine a bf16 (8, 128) block passes lowering",
    "Cross-lowering 1-D blocks on this machine requires specifying a concrete TPU model (the error message suggests jax.sharding.use_abstract_mesh)",
)
def test_bf16_block_lowers_and_1d_needs_a_chip(snapshot: dict[str, Any]) -> None:
    record = snapshot["behaviours"]["tpu_block_shape_narrow_and_1d"]
    assert record["bf16_8x128"]["lowers"] is True
    assert "jax.sharding.use_abstract_mesh" in record["1d_1024_of_2048"]["error"]["message"]


@claim("§6.2", "pallas_call(compiler_params=...) takes a backend-specific dataclass")
def test_compiler_params(snapshot: dict[str, Any]) -> None:
    behaviours = snapshot["behaviours"]
    tpu = behaviours["compiler_params_tpu"]["value"]
    assert (
        tpu["dimension_semantics"] == "('parallel', 'parallel', 'arbitrary')"
        and tpu["vmem_limit_bytes"] == "67108864"
    )
    assert list(tpu) == sorted(
        [
            "dimension_semantics",
            "allow_input_fusion",
            "vmem_limit_bytes",
            "collective_id",
            "has_side_effects",
            "flags",
            "internal_scratch_in_bytes",
            "serialization_format",
            "disable_bounds_checks",
            "disable_semaphore_checks",
            "skip_device_barrier",
            "allow_collective_id_without_custom_barrier",
            "shape_invariant_numerics",
            "use_tc_tiling_on_sc",
            "needs_layout_passes",
            "fuse_transposed_lhs_in_matmul",
            "opt_level",
        ]
    )
    assert behaviours["compiler_params_triton"]["value"] == {"num_warps": "4", "num_stages": "3"}
    assert behaviours["compiler_params_mosaic_gpu"]["value"]["max_concurrent_steps"] == "2"
    assert (
        behaviours["grid_dimension_semantics_enum"]["PARALLEL"]["value"]["str"]
        == "GridDimensionSemantics.PARALLEL"
    )


@claim(
    "§6.2",
    "bf16 matmul with dimension_semantics / vmem_limit_bytes: TPU lowering succeeded (not executed)",
)
def test_bf16_matmul_with_compiler_params_lowers(snapshot: dict[str, Any]) -> None:
    assert snapshot["behaviours"]["tpu_lowering_bf16_matmul"]["value"]["tpu_custom_call"] is True


@claim(
    "§6.3",
    "Estimates from the TPU hardware table that ships with 0.12 (pure arithmetic, runs on this machine; numbers come from pltpu.get_tpu_info_for_chip)",
)
@pytest.mark.parametrize(
    ("chip", "vmem_mib", "hbm_gbps", "bf16_tflops", "mxu"),
    [
        ("v4", 16, 615, 138, 128),
        ("v5e", 128, 820, 197, 128),
        ("v5p", 64, 1230, 230, 128),
        ("v6e", 128, 1640, 920, 256),
    ],
)
def test_tpu_hardware_table(
    snapshot: dict[str, Any], chip: str, vmem_mib: int, hbm_gbps: int, bf16_tflops: int, mxu: int
) -> None:
    info = snapshot["hardware"]["tpu_chips"]["info"][chip]
    assert (info["num_lanes"], info["num_sublanes"]) == (128, 8)
    assert round(info["vmem_capacity_bytes"] / 2**20) == vmem_mib
    assert round(info["mem_bw_bytes_per_second"] / 1e9) == hbm_gbps
    assert round(info["bf16_ops_per_second"] / 1e12) == bf16_tflops
    assert info["mxu_column_size"] == mxu


@claim("§6.3", "CostEstimate and input_output_aliases can be passed in interpret mode too")
def test_cost_estimate_and_aliases(snapshot: dict[str, Any]) -> None:
    assert snapshot["behaviours"]["cost_estimate_and_aliases"]["value"] == {"correct": True}


# Where the features resolve on the chapter's release
@claim("§0 Probe 2", "Note that it lives in the pltpu submodule; it is not pl.InterpretParams.")
@pytest.mark.parametrize(
    ("feature", "spelling"),
    [
        ("tpu_compiler_params", "pltpu.CompilerParams"),
        ("tpu_simulator", "pltpu.InterpretParams"),
        ("gpu_simulator", "plgpu.InterpretGPUParams"),
        ("enable_x64", "jax.enable_x64"),
    ],
)
def test_features_resolve_to_the_modern_spelling(
    snapshot: dict[str, Any], feature: str, spelling: str
) -> None:
    record = snapshot["features"][feature]
    assert record["status"] == "current" and record["resolves_to"] == spelling


def test_every_fact_names_its_section_and_quotes_the_chapter() -> None:
    module = sys.modules[__name__]
    facts = {
        n: f
        for n, f in vars(module).items()
        if n.startswith("test_")
        and f is not test_every_fact_names_its_section_and_quotes_the_chapter
    }
    for name, test in facts.items():
        quoted = [m for m in getattr(test, "pytestmark", []) if m.name == "chapter" and m.kwargs]
        assert len(quoted) == 1, f"{name} quotes no claim of the chapter"
        assert re.fullmatch(r"§\d(\.\d)?( Probe \d| summary)?", quoted[0].kwargs["section"]), name
        assert quoted[0].kwargs["claims"] and all(quoted[0].kwargs["claims"]), name
