from __future__ import annotations

from probes._cli import main

raise SystemExit(main())
