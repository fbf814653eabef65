from __future__ import annotations

from report._cli import main

raise SystemExit(main())
