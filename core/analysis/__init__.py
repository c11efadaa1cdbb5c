"""Analyses of a run's result: what a group of samples means.

Named groups of samples and their composition (``groups``), what sets one group apart from
another per view (``compare``: effect size, AUC, p, q over observed samples), the clusters
against metadata columns and survival (``association``), how much each view agrees with the
result (``view_agreement``) and why one sample sits in its cluster (``explain_sample``).
Every function takes plain NumPy/SciPy inputs; long work is a generator yielding
:class:`AnalysisProgress` and returning its result (``core.numerics.steps.drain`` runs one).
The app shows what these compute; ``mvc explain`` writes them to CSV.

May import: ``core.data``, ``core.numerics``, ``core.methods``, ``core.records``,
``core.experiments``.
"""

from core.analysis.progress import AnalysisProgress

__all__ = ["AnalysisProgress"]
