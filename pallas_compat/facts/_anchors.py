"""The API-diff report's anchors, shared by the report and ``doctor --format html`` so that a
use in someone's code links to the row that tells its story."""

from __future__ import annotations

import re

from pallas_compat.facts._table import BLOCK_SPEC_ORDER, CALL_FORMS, DICT_PARAMS


def name_anchor(spelling: str) -> str:
    """``pl.load`` -> ``name-pl-load``: letters, digits and dashes only, whatever the name."""
    return "name-" + re.sub(r"[^a-z0-9]+", "-", spelling.lower()).strip("-")


def form_anchor(form: str) -> str:
    """``compiler_params={"mosaic": {...}}`` -> ``form-compiler-params-mosaic``."""
    return "form-" + re.sub(r"[^a-z0-9]+", "-", form.lower()).strip("-")


def anchor_for(api: str) -> str:
    """The anchor of what ``doctor`` reports: a call form's row (the BlockSpec order, known or
    not, is one), an enum's row for one of its members, else the name's row."""
    if api.startswith("BlockSpec"):
        return form_anchor(BLOCK_SPEC_ORDER)
    if api.startswith("compiler_params={"):  # any backend's dict: one row
        return form_anchor(DICT_PARAMS)
    if api in CALL_FORMS or "(" in api:
        return form_anchor(api)
    parts = api.split(".")
    if len(parts) > 2 and parts[-1].isupper():
        return name_anchor(".".join(parts[:-1]))
    return name_anchor(api)
