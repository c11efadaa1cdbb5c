"""Layer 2, numerics: the building blocks every method shares.

Anchors (BKHK), anchor graphs, spectral embeddings and k-means, small dense linear algebra,
tensor shrinkage, clustering metrics, 2-D layouts, the BLAS thread policy, and the numba
kernels they use (``jit/``). Nothing here knows a method by name. "<name> spec §N" in
comments is section N of docs/methods/spec/<name>.md.

May import: ``core.data``.
"""
