"""``pytest -p pallas_compat.matrix._junit``: each pytest run of a matrix cell writes its own
JUnit XML into ``PALLAS_COMPAT_JUNIT_DIR``, so that a command that runs pytest more than once
(``pytest tests/a && pytest tests/b``) loses no run's results to the next. Only pytest loads
this module; ``matrix`` itself never imports pytest."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from pallas_compat.matrix._routes import JUNIT_FOLDER_VARIABLE


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Before pytest's own JUnit plugin reads the option: a file of this run's own, unless the
    command names one itself."""
    folder = os.environ.get(JUNIT_FOLDER_VARIABLE)
    if folder and not getattr(config.option, "xmlpath", None):
        name = f"junit-{os.getpid()}-{uuid.uuid4().hex[:12]}.xml"
        config.option.xmlpath = str(Path(folder) / name)
