"""The Pallas-using libraries of the third-party corpus, each at one version written for JAX
0.4.30-0.7.x, and the release each is validated on.

A library's release is the newest of the corpus's source releases (the default matrix and
0.4.35) that was out when the version was uploaded and that its declared requirement admits:
what its authors could have run it on. ``tests/test_thirdparty.py`` checks the requirement
side of that rule against each wheel's own metadata.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Library:
    #: The distribution's name on the package registry, and the version in the corpus.
    name: str
    version: str
    #: The top-level package its files import each other by.
    package: str
    #: When the version was uploaded, and what it declared of JAX.
    uploaded: str
    requires: str
    #: The JAX release its kernels are validated on (see the module docstring).
    written_for: str
    #: What its kernel files import besides JAX and NumPy (installed by the corpus session).
    needs: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}"

    @property
    def wheel_glob(self) -> str:
        return f"{self.name.replace('-', '_')}-{self.version}-*.whl"


LIBRARIES: tuple[Library, ...] = (
    Library("fjformer", "0.0.70", "fjformer", "2024-07-17", "jax>=0.4.30", "0.4.30"),
    Library(
        "ringattention",
        "0.1.2",
        "ringattention",
        "2024-08-12",
        "jax>=0.4.29",
        "0.4.30",
        needs=("einops", "flax"),
    ),
    Library("aqtp", "0.8.2", "aqt", "2024-10-24", "jax", "0.4.35", needs=("flax",)),
    Library(
        "jax-flash-attn2",
        "0.0.1",
        "jax_flash_attn2",
        "2024-10-23",
        "jax>=0.4.33",
        "0.4.35",
        needs=("chex",),
    ),
    Library("jaxite", "0.0.3", "jaxite", "2024-12-11", "jax~=0.4.13", "0.4.35"),
    Library(
        "easydel",
        "0.1.4",
        "easydel",
        "2025-05-02",
        "jax>=0.5.3",
        "0.5.3",
        needs=("chex", "einops"),
    ),
    Library(
        "recurrentgemma",
        "1.0.0",
        "recurrentgemma",
        "2025-06-04",
        "jax>=0,<1",
        "0.5.3",
        needs=("einops", "flax"),
    ),
    # openxla's kernel library, where JAX 0.11 points its deprecated GPU ops: Mosaic GPU
    Library(
        "tokamax",
        "0.0.2",
        "tokamax",
        "2025-10-08",
        "jax[cuda12,tpu]>=0.7.2",
        "0.7.2",
        needs=("pydantic",),
    ),
)

BY_NAME: dict[str, Library] = {library.name: library for library in LIBRARIES}
