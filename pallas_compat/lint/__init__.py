"""The source tools: ``doctor`` (find each use of a drifted API, say where it runs) and
``migrate`` (rewrite it for a release), over trees of user code.

``_tree`` and ``_inputs`` choose and read the files; ``_finder`` (doctor) and ``_migrate``
walk each one and hand its nodes to the rules' hooks, typed by ``rules._context``;
``_report`` is doctor's typed result, which every renderer (text in ``_doctor``, ``_render_*``
for HTML, GitHub annotations and SARIF) takes; ``_noqa``, ``_settings`` and ``_config`` read
what the user asked. Private: the CLI (``pallas-compat doctor|migrate|rules``) is its face.

Floor: above the rules and the facts; it imports nothing of the shim or the matrix.
"""
