"""Layer 4, records: what a run leaves behind.

``runs`` (the run record, labels CSV, run JSON), ``report`` and ``svg_charts`` (the HTML
report), ``session_file`` (saved sessions).

May import: ``core.data``, ``core.numerics``, ``core.methods``.
"""
