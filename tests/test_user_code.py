"""kernels.corpus._user_code: the copies' registrations as user code are skipped only where
they change nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from jax._src import source_info_util as info

from kernels.corpus._user_code import copies_are_user_code


@pytest.fixture
def inclusions() -> Iterator[list[str]]:
    """JAX's registered inclusions, restored after the test."""
    before = list(info._include_paths)
    yield info._include_paths
    info._include_paths[:] = before
    info._include_path_regex.cache_clear()
    info.is_user_filename.cache_clear()


def test_a_copy_under_the_work_folder_is_user_code_without_registering(
    inclusions: list[str], tmp_path: Path
) -> None:
    copy = tmp_path / "corpus_0_4_30_flash_attention_patch"
    with copies_are_user_code(tmp_path):
        info.register_inclusion(str(copy))
    assert str(copy) not in inclusions
    assert info.is_user_filename(str(copy / "tpu" / "flash_attention.py"))


def test_a_folder_elsewhere_still_registers(inclusions: list[str], tmp_path: Path) -> None:
    elsewhere = str(tmp_path / "elsewhere")
    with copies_are_user_code(tmp_path / "work"):
        info.register_inclusion(elsewhere)
    assert elsewhere in inclusions


def test_a_folder_jax_excludes_still_registers(inclusions: list[str], tmp_path: Path) -> None:
    """Inside an excluded folder the registration is what makes the frames the user's."""
    excluded = str(tmp_path / "site-packages" / "jax")
    info._exclude_paths.append(excluded)
    info._exclude_path_regex.cache_clear()
    try:
        with copies_are_user_code(tmp_path):
            info.register_inclusion(excluded + "/experimental/pallas/ops")
        assert excluded + "/experimental/pallas/ops" in inclusions
    finally:
        info._exclude_paths.remove(excluded)
        info._exclude_path_regex.cache_clear()


def test_jaxs_own_registration_is_back_afterwards(tmp_path: Path) -> None:
    register = info.register_inclusion
    with copies_are_user_code(tmp_path):
        assert info.register_inclusion is not register
    assert info.register_inclusion is register
