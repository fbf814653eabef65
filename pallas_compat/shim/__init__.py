"""The shim: one stable Pallas API on every JAX release, and ``patch()``.

Its public face is the package itself (``from pallas_compat import pl, pltpu, patch``); these
modules are private. The namespaces (``_namespaces``) are JAX's own modules plus the fills
(``_fills``): old names back-filled, new ones forward-filled, call forms adapted by facades
(``_block_spec``, ``_compiler_params``, ``_pallas_call``, ``_interpret``). ``patch()``
(``_patch``) installs the same fills into JAX itself.

Floor: above the facts (``pallas_compat.facts``), which it reads; it imports nothing of the
rules, the lint tools or the matrix (``tests/test_floors.py``).
"""
