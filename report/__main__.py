from __future__ import annotations

import sys

try:
    from report._cli import main
except ModuleNotFoundError as exc:  # run from a checkout without the project's dependencies
    if (exc.name or "").partition(".")[0] in ("pallas_compat", "report", "common"):
        raise  # ours: a bug, not a missing install
    print(
        f"python -m report: error: needs {exc.name} (a dependency of pallas-compat, whose "
        "rules the report asks what migrate fixes); install the project: pip install -e .",
        file=sys.stderr,
    )
    raise SystemExit(2) from None

raise SystemExit(main())
