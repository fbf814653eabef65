"""migrate: ``Compiled.cost_analysis()[0]`` where the target returns one dict (JAX 0.5.0 on)."""

from __future__ import annotations

import textwrap
from typing import Any

import jax

from pallas_compat.lint._migrate import migrate_source

#: Shaped like JAX 0.4.35's ``tpu/flash_attention.py`` (``_fwd_cost_estimate``).
OLD = textwrap.dedent(
    """\
    import jax

    def cost(fn, x):
      full_cost = (
          jax.jit(fn)
          .lower(x)
          .compile()
          .cost_analysis()
      )
      if not full_cost:
        return None
      return full_cost[0]["flops"], full_cost[0]["bytes accessed"]

    def direct(fn, x):
      return jax.jit(fn).lower(x).compile().cost_analysis()[0]["flops"]

    def rebound(fn, x, other):
      cost = jax.jit(fn).lower(x).compile().cost_analysis()
      cost = other
      return cost[0]

    def looped(fn, x, others):
      total = jax.jit(fn).lower(x).compile().cost_analysis()
      for total in others:
        pass
      return total[0]
    """
)


def migrated(target: str) -> str:
    return migrate_source(OLD, target)


def test_the_index_goes_where_the_target_returns_a_dict() -> None:
    new = migrated("0.5.0")
    assert 'return full_cost["flops"], full_cost["bytes accessed"]' in new
    assert 'compile().cost_analysis()["flops"]' in new
    assert "return cost[0]" in new  # rebound: not provably the same value, left alone
    assert "return total[0]" in new  # rebound by a loop: left alone
    assert migrated("0.4.38") == OLD


def test_migrated_for_this_release_the_old_code_runs() -> None:
    namespace: dict[str, Any] = {}
    exec(compile(migrated(jax.__version__), "<migrated>", "exec"), namespace)
    flops, accessed = namespace["cost"](lambda x: x * 2.0 + 1.0, 1.0)
    assert flops >= 1 and accessed > 0
    assert namespace["direct"](lambda x: x * 2.0, 1.0) >= 1


def test_doctor_lists_each_old_index_that_migrate_would_drop(tmp_path: Any, capsys: Any) -> None:
    from pallas_compat._cli import main

    (tmp_path / "kernel.py").write_text(
        OLD.replace("import jax\n", "import jax\nfrom jax.experimental import pallas as pl\n", 1)
    )
    assert main(["doctor", str(tmp_path), "--target", "0.12.0.1"]) == 1
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if "Compiled.cost_analysis()[0]" in line]
    assert len(lines) == 3, out  # two through full_cost, one direct; not the rebound name
    assert main(["doctor", str(tmp_path), "--target", "0.4.38"]) == 0
