"""numba kernels (all ``nogil=True``), one module per area; each has a NumPy twin in tests/.

Kernels take contiguous arrays and explicit sizes, hold no RNG and allocate little; the outer
loops stay in Python so solvers can yield between calls.
"""
