"""``pallas-compat matrix``: a project's own tests on every JAX release, by every route
(native, ``patch()``, after ``migrate``), as a release x route table, JSON, HTML or a GitHub
Actions workflow.

``_releases`` and ``_routes`` say what to run, ``_environments`` and ``_processes`` run it,
``_results`` reads the outcomes, ``_failure_advice`` asks doctor about the lines a failure
passed through, ``_output``, ``_page`` and ``_workflow`` write it. ``_patch_site`` is the
``sitecustomize`` the patch route puts on the path. Private: the CLI is its face.

Floor: above the lint tools, the rules and the facts; it imports nothing of the shim (the
runs import ``pallas_compat`` in their own processes).
"""
